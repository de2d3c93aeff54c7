package dev.socialgraph.gateway;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * Authentication (issue 5): every {@code /v1} request needs a bearer JWT, validated by Spring Security's resource
 * server support (HS256 with a shared secret locally, the identity provider's JWK Set in production): signature,
 * {@code exp}/{@code nbf} and a {@code sub} that is a positive 64-bit user id. Missing, malformed, expired or forged tokens get 401 problem+json and reach no service.
 * Actuator endpoints are open (they are scraped and probed inside the cluster; the NetworkPolicy exposes only the
 * gateway's API port).
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

    /** Tolerance on {@code exp} and {@code nbf}: the one {@link JwtValidators#createDefault()} applies. */
    static final Duration CLOCK_SKEW = Duration.ofSeconds(60);

    @Bean
    SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http, ProblemResponses problems) {
        return http
                .csrf(ServerHttpSecurity.CsrfSpec::disable) // bearer tokens, no cookies
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .requestCache(ServerHttpSecurity.RequestCacheSpec::disable)
                .authorizeExchange(ex -> ex
                        .pathMatchers("/v1/**").authenticated()
                        .anyExchange().permitAll())
                .oauth2ResourceServer(rs -> rs
                        .jwt(jwt -> { })
                        .authenticationEntryPoint((exchange, e) -> problems.write(exchange, HttpStatus.UNAUTHORIZED,
                                "Unauthorized", "a valid bearer token is required: " + e.getMessage(), "Authorization")))
                .exceptionHandling(eh -> eh
                        .authenticationEntryPoint((exchange, e) -> problems.write(exchange, HttpStatus.UNAUTHORIZED,
                                "Unauthorized", "a valid bearer token is required", "Authorization"))
                        .accessDeniedHandler((exchange, e) -> problems.write(exchange, HttpStatus.FORBIDDEN,
                                "Forbidden", e.getMessage(), "Authorization")))
                .build();
    }

    /**
     * With {@code graph.gateway.jwk-set-uri} set (production): signatures checked against the identity provider's
     * JWK Set (RS256, keys fetched and cached by Nimbus); otherwise HS256 with {@code graph.gateway.jwt-secret}.
     * The same claim validation either way: the default validators (timestamps with 60 s of clock skew) plus
     * {@link #subjectIsUserId}; behind {@link CachingJwtDecoder} unless {@code graph.gateway.jwt-cache.maximum-size}
     * is 0.
     */
    @Bean
    ReactiveJwtDecoder jwtDecoder(GatewayProperties properties, MeterRegistry meters) {
        NimbusReactiveJwtDecoder decoder;
        if (properties.jwkSetUri() != null) {
            decoder = NimbusReactiveJwtDecoder.withJwkSetUri(properties.jwkSetUri().toString()).build();
        } else {
            SecretKeySpec key = new SecretKeySpec(properties.jwtSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256");
            decoder = NimbusReactiveJwtDecoder.withSecretKey(key).macAlgorithm(MacAlgorithm.HS256).build();
        }
        decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(JwtValidators.createDefault(), subjectIsUserId()));
        GatewayProperties.JwtCache cache = properties.jwtCache();
        if (cache.maximumSize() == 0) {
            return decoder;
        }
        return new CachingJwtDecoder(decoder, cache.maximumSize(), cache.maxAge(), CLOCK_SKEW, Clock.systemUTC(), meters);
    }

    /** {@code sub} must be a positive 64-bit user id: it becomes the actor of every write. */
    static OAuth2TokenValidator<Jwt> subjectIsUserId() {
        return jwt -> {
            try {
                UserIds.parse(jwt.getSubject() == null ? "" : jwt.getSubject(), "sub");
                return OAuth2TokenValidatorResult.success();
            } catch (InvalidUserIdException e) {
                return OAuth2TokenValidatorResult.failure(
                        new OAuth2Error("invalid_token", "sub must be a positive 64-bit user id", null));
            }
        };
    }
}
