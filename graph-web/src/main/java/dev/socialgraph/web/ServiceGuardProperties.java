package dev.socialgraph.web;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
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
 * @param serviceTokenPrevious the credential being replaced, also accepted while a rotation is under way (env
 *                     {@code GRAPH_SERVICE_TOKEN_PREVIOUS}; unset otherwise): the services accept both, then the
 *                     callers switch to the new one, then this is removed, so no request is refused (docs/security.md).
 *                     At least 32 characters when set
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
        @Size(min = dev.socialgraph.common.token.ServiceCredential.MIN_LENGTH,
                message = dev.socialgraph.common.token.ServiceCredential.TOO_SHORT)
        String serviceTokenPrevious,
        @Valid @DefaultValue Web web) {

    /** An unset {@code GRAPH_SERVICE_TOKEN_PREVIOUS} ({@code ${GRAPH_SERVICE_TOKEN_PREVIOUS:}}) is no credential. */
    public ServiceGuardProperties {
        if (serviceTokenPrevious != null && serviceTokenPrevious.isBlank()) {
            serviceTokenPrevious = null;
        }
    }

    /** The credentials a request may carry: {@link #serviceToken}, and {@link #serviceTokenPrevious} when set. */
    public List<String> acceptedServiceTokens() {
        return serviceTokenPrevious == null ? List.of(serviceToken) : List.of(serviceToken, serviceTokenPrevious);
    }

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
        // never log the credentials
        return "ServiceGuardProperties[serviceToken=(hidden), serviceTokenPrevious="
                + (serviceTokenPrevious == null ? "(unset)" : "(hidden)") + ", web=" + web + "]";
    }
}
