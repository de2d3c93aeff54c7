package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

class GatewayPropertiesTest {

    private static final Validator VALIDATOR = Validation.buildDefaultValidatorFactory().getValidator();
    private static final GatewayProperties.ServicePool POOL =
            new GatewayProperties.ServicePool(256, 1024, Duration.ofSeconds(1));
    private static final GatewayProperties.Changes CHANGES =
            new GatewayProperties.Changes(2048, java.time.Duration.ofSeconds(40));

    private static GatewayProperties properties(long cacheSize, Duration maxAge, Duration responseTimeout) {
        GatewayProperties.Budget budget = new GatewayProperties.Budget(10, 20);
        return new GatewayProperties("0123456789abcdef0123456789abcdef", null, null, null, null, Duration.ofMinutes(5), URI.create("http://127.0.0.1:8082"),
                URI.create("http://127.0.0.1:8081"), budget, budget,
                new GatewayProperties.JwtCache(DataSize.ofBytes(cacheSize), maxAge), responseTimeout, DataSize.ofMegabytes(1), POOL, CHANGES);
    }

    private static Set<String> badFields(GatewayProperties p) {
        return VALIDATOR.validate(p).stream().map(ConstraintViolation::getPropertyPath).map(Object::toString)
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void validate_defaultsAndCacheOff_areAccepted() {
        assertThat(badFields(properties(20_000, Duration.ofMinutes(5), Duration.ofSeconds(5)))).isEmpty();
        assertThat(badFields(properties(0, Duration.ofMinutes(5), Duration.ofSeconds(5)))).isEmpty();
    }

    @Test
    void validate_zeroOrNegativeDurations_nameTheField() {
        assertThat(badFields(properties(1, Duration.ZERO, Duration.ofMillis(-5))))
                .containsExactlyInAnyOrder("jwtCache.maxAge", "responseTimeout");
    }

    @Test
    void jwtCache_negativeBytes_isRefusedNamingTheProperty() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new GatewayProperties.JwtCache(DataSize.ofBytes(-1), Duration.ofMinutes(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("graph.gateway.jwt-cache.max-bytes");
    }

    @Test
    void aJwkSet_withoutIssuerOrAudience_isRefusedNamingBoth_aSecretNeedsNeither() {
        GatewayProperties.Budget budget = new GatewayProperties.Budget(10, 20);
        URI jwks = URI.create("https://idp.example/.well-known/jwks.json");
        String[][] missing = {{null, "api://graph"}, {"https://idp.example/", null}, {" ", " "}};
        for (String[] pair : missing) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new GatewayProperties(null, null, jwks, pair[0],
                            pair[1], Duration.ofMinutes(5), URI.create("http://127.0.0.1:8082"),
                            URI.create("http://127.0.0.1:8081"), budget, budget,
                            new GatewayProperties.JwtCache(DataSize.ofMegabytes(1), Duration.ofMinutes(5)),
                            Duration.ofSeconds(5), DataSize.ofMegabytes(1), POOL, CHANGES))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("GRAPH_JWT_ISSUER").hasMessageContaining("GRAPH_JWT_AUDIENCE");
        }
        GatewayProperties bound = new GatewayProperties(null, null, jwks, "https://idp.example/", "api://graph",
                Duration.ofMinutes(5), URI.create("http://127.0.0.1:8082"), URI.create("http://127.0.0.1:8081"),
                budget, budget, new GatewayProperties.JwtCache(DataSize.ofMegabytes(1), Duration.ofMinutes(5)),
                Duration.ofSeconds(5), DataSize.ofMegabytes(1), POOL, CHANGES);
        assertThat(bound.jwtIssuer()).isEqualTo("https://idp.example/");
        assertThat(properties(1, Duration.ofMinutes(5), Duration.ofSeconds(5)).jwtIssuer()).isNull();
    }

    @Test
    void batchSize_unset_isATenthOfASecondsWorthWithinOneAndTheBurst() {
        assertThat(new GatewayProperties.Budget(200, 400).batchSize()).isEqualTo(20);
        assertThat(new GatewayProperties.Budget(20, 40).batchSize()).isEqualTo(2);
        assertThat(new GatewayProperties.Budget(1, 2).batchSize()).isEqualTo(1);
        assertThat(new GatewayProperties.Budget(1000, 50).batchSize()).isEqualTo(50);
        assertThat(new GatewayProperties.Budget(200, 400, 5).batchSize()).isEqualTo(5);
        assertThat(new GatewayProperties.Budget(200, 400, 1000).batchSize()).isEqualTo(400);
    }

    @Test
    void validate_zeroBatch_namesTheField() {
        GatewayProperties.Budget zero = new GatewayProperties.Budget(10, 20, 0);
        GatewayProperties p = new GatewayProperties("0123456789abcdef0123456789abcdef", null, null, null, null, Duration.ofMinutes(5),
                URI.create("http://127.0.0.1:8082"), URI.create("http://127.0.0.1:8081"), zero, zero,
                new GatewayProperties.JwtCache(DataSize.ofBytes(1), Duration.ofMinutes(5)), Duration.ofSeconds(5), DataSize.ofMegabytes(1), POOL, CHANGES);
        assertThat(badFields(p)).containsExactlyInAnyOrder("reads.batch", "writes.batch");
    }

    @Test
    void validate_emptyServicePool_namesTheFields() {
        GatewayProperties.Budget budget = new GatewayProperties.Budget(10, 20);
        GatewayProperties p = new GatewayProperties("0123456789abcdef0123456789abcdef", null, null, null, null, Duration.ofMinutes(5),
                URI.create("http://127.0.0.1:8082"), URI.create("http://127.0.0.1:8081"), budget, budget,
                new GatewayProperties.JwtCache(DataSize.ofBytes(1), Duration.ofMinutes(5)), Duration.ofSeconds(5), DataSize.ofMegabytes(1),
                new GatewayProperties.ServicePool(0, 0, Duration.ZERO), CHANGES);
        assertThat(badFields(p)).containsExactlyInAnyOrder("servicePool.maxConnections",
                "servicePool.pendingAcquireMax", "servicePool.pendingAcquireTimeout");
    }

    @Test
    void maxBodySize_outsideOneByteToAnInt_isRefusedNamingTheProperty() {
        GatewayProperties.Budget budget = new GatewayProperties.Budget(10, 20);
        for (DataSize size : new DataSize[] {DataSize.ofBytes(0), DataSize.ofGigabytes(2)}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new GatewayProperties(
                            "0123456789abcdef0123456789abcdef", null, null, null, null, Duration.ofMinutes(5), URI.create("http://127.0.0.1:8082"),
                            URI.create("http://127.0.0.1:8081"), budget, budget,
                            new GatewayProperties.JwtCache(DataSize.ofBytes(1), Duration.ofMinutes(5)), Duration.ofSeconds(5), size, POOL, CHANGES))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("graph.gateway.max-body-size");
        }
        assertThat(properties(1, Duration.ofMinutes(5), Duration.ofSeconds(5)).maxBodyBytes()).isEqualTo(1 << 20);
    }
}
