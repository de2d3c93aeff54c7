package dev.socialgraph.gateway;

import dev.socialgraph.wire.PublicApi;
import java.util.Map;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.config.ResourceHandlerRegistry;
import org.springframework.web.reactive.config.WebFluxConfigurer;

/**
 * Serves the public API's OpenAPI document at {@value #PATH} as {@code application/yaml} (RFC 9512). The file is
 * {@code docs/openapi.yaml}, copied into the jar's {@code static/} by the build (gateway/pom.xml), so the served
 * document cannot differ from the committed one. Spring's static resource handling alone would answer it as
 * {@code application/octet-stream}: its table of file extensions has no {@code .yaml}.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiDocument implements WebFluxConfigurer {

    /** Where the document is served; no token needed. */
    static final String PATH = PublicApi.GET_OPENAPI_DOCUMENT.template();

    /** Where the build puts it on the classpath. */
    static final String LOCATION = "classpath:/static/";

    @Override
    public void addResourceHandlers(ResourceHandlerRegistry registry) {
        // More specific than Spring Boot's "/**" handler, so this one answers the path.
        registry.addResourceHandler(PATH).addResourceLocations(LOCATION)
                .setMediaTypes(Map.of("yaml", MediaType.APPLICATION_YAML));
    }
}
