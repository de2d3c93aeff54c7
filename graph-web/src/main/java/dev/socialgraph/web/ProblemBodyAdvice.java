package dev.socialgraph.web;

import dev.socialgraph.wire.Headers;
import org.springframework.core.MethodParameter;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * Completes every {@link ProblemDetail} a servlet service writes, whoever built it (a service's {@link ProblemAdvice},
 * Spring MVC's own handlers, {@link ProblemErrorController}), with {@link ProblemTypes#complete}: a type of the one
 * vocabulary, and the caller's path as {@code instance}. Registered by {@link ProblemAutoConfiguration}.
 */
@ControllerAdvice
public class ProblemBodyAdvice implements ResponseBodyAdvice<Object> {

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true; // the body's type is known only in beforeBodyWrite (a ResponseEntity<?> may hold a problem)
    }

    @Override
    public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType selectedContentType,
                                  Class<? extends HttpMessageConverter<?>> selectedConverterType,
                                  ServerHttpRequest request, ServerHttpResponse response) {
        if (body instanceof ProblemDetail problem) {
            ProblemTypes.complete(problem, request.getHeaders().getFirst(Headers.PUBLIC_PATH),
                    request.getURI().getRawPath());
        }
        return body;
    }
}
