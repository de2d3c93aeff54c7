package dev.socialgraph.gateway;

import dev.socialgraph.web.MalformedRequests;
import dev.socialgraph.web.RequestBodyLimitWebFilter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;

/**
 * The gateway's limits on what a request may be, from graph-web (the same code as the reactive services'), with the
 * gateway's own problems ({@link ProblemResponses}):
 * <ul>
 *   <li>a body over {@code graph.gateway.max-body-size} gets 413 ({@code parameter: body}) before any byte of it
 *       reaches a service, by {@code Content-Length} or, for a chunked body, once the count passes the limit
 *       ({@link RequestBodyLimitWebFilter}); ordered right after Spring Security's filter chain, so that a body is
 *       read only for an authenticated request;</li>
 *   <li>what Netty's HTTP decoder refuses itself (a request line or headers too long, a request it cannot parse, a
 *       target that is not a URI) gets a problem+json body instead of an empty answer ({@link MalformedRequests}).</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
class RequestLimits {

    /** Right after Spring Security's {@code WebFilterChainProxy} (order -100, not public in its configuration). */
    static final int BODY_LIMIT_ORDER = -99;

    @Bean
    RequestBodyLimitWebFilter requestBodyLimit(ProblemResponses problems, GatewayProperties properties) {
        int maxBytes = properties.maxBodyBytes();
        return new RequestBodyLimitWebFilter(maxBytes, BODY_LIMIT_ORDER, exchange -> problems.write(exchange,
                HttpStatus.CONTENT_TOO_LARGE, "Content Too Large",
                "the request body is larger than " + maxBytes + " bytes", "body"));
    }

    @Bean
    MalformedRequests malformedRequests() {
        return new MalformedRequests();
    }
}
