package dev.socialgraph.gateway;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * The service credential ({@code graph.service-token}, environment {@code GRAPH_SERVICE_TOKEN}) the gateway sends
 * to the services, which refuse every request without it (graph-web). Required: a gateway without it could not
 * reach any service, so it does not start.
 *
 * @param serviceToken the deployment's service credential, at least 32 characters
 */
@Validated
@ConfigurationProperties("graph")
public record ServiceCredential(
        @NotBlank(message = "must be set (environment GRAPH_SERVICE_TOKEN): the services refuse requests without it")
        @Size(min = dev.socialgraph.common.token.ServiceCredential.MIN_LENGTH,
                message = dev.socialgraph.common.token.ServiceCredential.TOO_SHORT)
        String serviceToken) {

    @Override
    public String toString() {
        return "ServiceCredential[serviceToken=(hidden)]"; // never log the credential
    }
}
