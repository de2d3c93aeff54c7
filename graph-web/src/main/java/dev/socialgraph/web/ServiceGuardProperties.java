package dev.socialgraph.web;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * What the service guard ({@link ServiceGuardAutoConfiguration}) enforces, bound from {@code graph.service-token}
 * and {@code graph.web.*}. A missing or short token stops start-up: a service must never run open.
 *
 * @param serviceToken the deployment's service credential, compared with each request's {@code X-Service-Token}
 *                     header; at least 32 characters. Each service's {@code application.yml} reads it from the
 *                     environment variable {@code GRAPH_SERVICE_TOKEN}.
 * @param web          request limits
 */
@Validated
@ConfigurationProperties("graph")
public record ServiceGuardProperties(
        @NotBlank(message = "must be set (environment GRAPH_SERVICE_TOKEN): every request but /actuator must carry it"
                + " as X-Service-Token, and a service without one would be open to anyone who can reach its port")
        @Size(min = dev.socialgraph.common.token.ServiceCredential.MIN_LENGTH,
                message = dev.socialgraph.common.token.ServiceCredential.TOO_SHORT)
        String serviceToken,
        @Valid @DefaultValue Web web) {

    /**
     * @param maxRequestSize the largest request body accepted, in bytes (Spring's {@link DataSize} syntax:
     *                       {@code 1MB}, {@code 512KB}); default 1 MB, at most 1 GB. Larger bodies get 413.
     */
    public record Web(@NotNull @DefaultValue("1MB") DataSize maxRequestSize) {

        /** Largest accepted {@link #maxRequestSize()}: a chunked body is buffered in one array up to the limit. */
        static final DataSize CEILING = DataSize.ofGigabytes(1);

        public Web {
            if (maxRequestSize != null && (maxRequestSize.toBytes() < 1 || maxRequestSize.compareTo(CEILING) > 0)) {
                throw new IllegalArgumentException("graph.web.max-request-size must be between 1B and 1GB, was "
                        + maxRequestSize);
            }
        }
    }

    @Override
    public String toString() {
        return "ServiceGuardProperties[serviceToken=(hidden), web=" + web + "]"; // never log the credential
    }
}
