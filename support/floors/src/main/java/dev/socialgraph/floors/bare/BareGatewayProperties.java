package dev.socialgraph.floors.bare;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The bare gateway's settings, {@code floor.bare.*}.
 *
 * @param checkUri        base URI of the check service the route goes to, e.g. {@code http://127.0.0.1:8081}
 * @param serviceToken    the check service's credential, sent as {@code X-Service-Token} on every proxied request
 *                        (env {@code GRAPH_SERVICE_TOKEN}); required
 * @param responseTimeout longest silence of the check service while its answer is awaited or read (default 5 s, the
 *                        product gateway's)
 */
@Validated
@ConfigurationProperties("floor.bare")
public record BareGatewayProperties(
        @NotNull URI checkUri,
        @NotBlank(message = "must be set (environment GRAPH_SERVICE_TOKEN): the check service refuses requests "
                + "without its credential") String serviceToken,
        @DefaultValue("5s") @NotNull @DurationMin(millis = 1) Duration responseTimeout) {

    @Override
    public String toString() {
        return "BareGatewayProperties[checkUri=" + checkUri + ", serviceToken=(hidden), responseTimeout="
                + responseTimeout + "]";
    }
}
