package dev.socialgraph.gateway;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jose.util.JSONObjectUtils;
import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.wire.PublicApi;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.BearerTokenErrors;
import org.springframework.security.oauth2.server.resource.web.server.authentication.ServerBearerTokenAuthenticationConverter;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Authentication: every {@code /v1} request needs a bearer JWT, validated by Spring Security's resource
 * server support (HS256 with a shared secret locally, the identity provider's JWK Set in production): signature,
 * an {@code exp} (required: a token without one would never expire), {@code nbf} when present, and a {@code sub}
 * that is a JSON string holding a positive 64-bit user id, and the configured issuer and audience (required with a
 * JWK Set: {@link GatewayProperties#jwtIssuer}, {@link GatewayProperties#jwtAudience}). Missing, malformed, expired, unexpiring or forged tokens,
 * and requests with more than one {@code Authorization} header, get 401 problem+json and reach no service.
 * Authorization: {@code /v1/admin/**} (deactivate, reactivate, erase any user, read states and jobs) needs the
 * {@value #ADMIN_SCOPE} scope in the token's {@code scope} (or {@code scp}) claim; a valid token without it gets 403
 * {@code forbidden} naming the scope; so does {@code /v1/changes/**} (the whole change stream) the {@value #CHANGES_SCOPE}
 * scope. Every other {@code /v1} operation needs only a valid token.
 * The public port serves nothing but {@code /v1} and the OpenAPI document: the actuator answers on the management port
 * ({@code management.server.port}), which the NetworkPolicy opens to monitoring alone, so it needs no token.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

    /** The OAuth 2.0 scope that the account lifecycle's operator API, {@code /v1/admin/**}, needs. */
    static final String ADMIN_SCOPE = "graph:admin";

    /**
     * The authority Spring Security's default JWT converter ({@code JwtGrantedAuthoritiesConverter}) grants for
     * {@link #ADMIN_SCOPE}: it reads the {@code scope} claim (a space-separated string, OAuth 2.0 style, or a JSON
     * array), or {@code scp} when there is no {@code scope}, and prefixes each scope with {@code SCOPE_}.
     */
    static final String ADMIN_AUTHORITY = "SCOPE_" + ADMIN_SCOPE;

    /** The OAuth 2.0 scope the whole change stream, {@code /v1/changes}, needs: backends, not users. */
    static final String CHANGES_SCOPE = "graph:changes";

    /** The authority the default JWT converter grants for {@link #CHANGES_SCOPE}. */
    static final String CHANGES_AUTHORITY = "SCOPE_" + CHANGES_SCOPE;

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
                        .pathMatchers(PublicApi.ADMIN + "/**").hasAuthority(ADMIN_AUTHORITY)
                        .pathMatchers(PublicApi.CHANGES, PublicApi.CHANGES + "/**").hasAuthority(CHANGES_AUTHORITY)
                        .pathMatchers(PublicApi.PREFIX + "/**").authenticated()
                        .anyExchange().permitAll())
                .oauth2ResourceServer(rs -> rs
                        .bearerTokenConverter(singleAuthorizationHeader())
                        .jwt(jwt -> { })
                        .authenticationEntryPoint((exchange, e) -> problems.write(exchange, HttpStatus.UNAUTHORIZED,
                                "Unauthorized", "a valid bearer token is required: " + e.getMessage(), "Authorization")))
                .exceptionHandling(eh -> eh
                        .authenticationEntryPoint((exchange, e) -> problems.write(exchange, HttpStatus.UNAUTHORIZED,
                                "Unauthorized", "a valid bearer token is required", "Authorization"))
                        .accessDeniedHandler((exchange, e) -> problems.write(exchange, HttpStatus.FORBIDDEN,
                                "Forbidden", deniedDetail(exchange.getRequest().getPath().value(), e.getMessage()),
                                "Authorization")))
                .build();
    }

    /**
     * The 403's detail: for the operator API and the change stream, the scope the token lacks; otherwise Spring
     * Security's reason.
     */
    static String deniedDetail(String path, String reason) {
        if (path.startsWith(PublicApi.ADMIN + "/")) {
            return "this operation needs a bearer token whose scope includes " + ADMIN_SCOPE;
        }
        if (path.equals(PublicApi.CHANGES) || path.startsWith(PublicApi.CHANGES + "/")) {
            return "the change stream needs a bearer token whose scope includes " + CHANGES_SCOPE
                    + "; a user's own changes are GET /v1/me/changes";
        }
        return reason;
    }

    /**
     * No Spring Security observations at all. {@code management.observations.enable.spring.security=false} only makes
     * the observations no-ops: Spring Security still wrapped each of its web filters, the authentication manager
     * and the authorization decision in observation decorators, per request (the gateway's profile). Without
     * observations to make, it builds none of those wrappers.
     *
     * @return settings that observe no request, authentication or authorization
     */
    @Bean
    static SecurityObservationSettings noSecurityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    /**
     * Spring Security's bearer token converter, which reads only the first {@code Authorization} header, behind a
     * refusal of requests that carry several: which of them is the caller's would depend on the reader (a proxy in
     * front may use the last, a service behind the first), so such a request is not authenticated at all.
     */
    static ServerAuthenticationConverter singleAuthorizationHeader() {
        ServerBearerTokenAuthenticationConverter bearer = new ServerBearerTokenAuthenticationConverter();
        return exchange -> {
            List<String> values = exchange.getRequest().getHeaders().get(HttpHeaders.AUTHORIZATION);
            if (values != null && values.size() > 1) {
                return Mono.error(new OAuth2AuthenticationException(
                        BearerTokenErrors.invalidRequest("more than one Authorization header")));
            }
            return bearer.convert(exchange);
        };
    }

    /**
     * Refusals of Spring Security's firewall ({@code StrictServerWebExchangeFirewall}: methods other than GET, HEAD,
     * POST, PUT, DELETE, PATCH and OPTIONS, such as TRACE; {@code ;} matrix parameters, {@code //}, encoded slashes,
     * dots or percent signs, non-printable characters in the path) as 400 problem+json with its reason, instead of
     * its default empty 400.
     */
    @Bean
    ServerExchangeRejectedHandler exchangeRejectedHandler(ProblemResponses problems) {
        return (exchange, e) -> {
            String reason = String.valueOf(e.getMessage());
            String part = reason.contains("HTTP method") ? "method" : reason.contains("header") ? "headers" : "path";
            return problems.write(exchange, ProblemType.MALFORMED_REQUEST, reason, part);
        };
    }

    /**
     * With {@code graph.gateway.jwk-set-uri} set (production): signatures checked against the identity provider's
     * JWK Set (RS256, keys fetched and refreshed every {@code graph.gateway.jwk-refresh} by
     * {@link IdentityProviderKeys}); otherwise HS256 with {@code graph.gateway.jwt-secret}, and also
     * {@code graph.gateway.jwt-secret-previous} while a rotation is under way. The same claim validation
     * either way ({@link #validator}); behind {@link CachingJwtDecoder} unless {@code graph.gateway.jwt-cache.max-bytes}
     * is 0, whose tokens of a withdrawn key are dropped at the next refresh of the set.
     */
    @Bean
    ReactiveJwtDecoder jwtDecoder(GatewayProperties properties, MeterRegistry meters) {
        NimbusReactiveJwtDecoder decoder;
        IdentityProviderKeys keys = null;
        if (properties.jwkSetUri() != null) {
            keys = new IdentityProviderKeys(properties.jwkSetUri(), properties.jwkRefresh());
            decoder = NimbusReactiveJwtDecoder.withJwkSource(keys.keys()).build();
        } else if (properties.jwtSecretPrevious() == null) {
            SecretKeySpec key = new SecretKeySpec(properties.jwtSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256");
            decoder = NimbusReactiveJwtDecoder.withSecretKey(key).macAlgorithm(MacAlgorithm.HS256).build();
        } else {
            // A rotation under way: a token signed with either secret is accepted.
            List<JWK> secrets = List.of(new OctetSequenceKey.Builder(
                            properties.jwtSecret().getBytes(StandardCharsets.UTF_8)).build(),
                    new OctetSequenceKey.Builder(properties.jwtSecretPrevious().getBytes(StandardCharsets.UTF_8)).build());
            decoder = NimbusReactiveJwtDecoder.withJwkSource(jwt -> Flux.fromIterable(secrets))
                    .jwsAlgorithm(MacAlgorithm.HS256).build();
        }
        decoder.setJwtValidator(validator(properties.jwtIssuer(), properties.jwtAudience()));
        GatewayProperties.JwtCache cache = properties.jwtCache();
        if (cache.maxBytes().toBytes() == 0) {
            return decoder;
        }
        CachingJwtDecoder cached = new CachingJwtDecoder(decoder, cache.maxBytes().toBytes(), cache.maxAge(),
                CLOCK_SKEW, Clock.systemUTC(), meters);
        if (keys != null) {
            keys.onRefresh(cached::retainKeys);
        }
        return cached;
    }

    /**
     * Spring Security's default JWT validators with {@code exp} required, {@link #subjectIsUserId}, and the issuer and
     * audience when they are configured: {@code iss} equal to {@code issuer}, {@code aud} containing
     * {@code audience} (Spring Security's {@link JwtIssuerValidator} and {@link JwtAudienceValidator}).
     *
     * @param issuer   the required {@code iss}, or {@code null} for any
     * @param audience a value {@code aud} must hold, or {@code null} for any
     */
    static OAuth2TokenValidator<Jwt> validator(String issuer, String audience) {
        JwtTimestampValidator timestamps = new JwtTimestampValidator(CLOCK_SKEW);
        timestamps.setAllowEmptyExpiryClaim(false);
        List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>(List.of(timestamps, subjectIsUserId()));
        if (issuer != null) {
            validators.add(new JwtIssuerValidator(issuer));
        }
        if (audience != null) {
            validators.add(new JwtAudienceValidator(audience));
        }
        return JwtValidators.createDefaultWithValidators(validators);
    }

    /**
     * {@code sub} must be a JSON string (RFC 7519 section 4.1.2: a StringOrURI, so a number is not one) holding a
     * positive 64-bit user id: it becomes the actor of every write. The type is read from the token's own payload:
     * Nimbus, when it parses the claims, turns a numeric {@code sub} into a string, so {@link Jwt#getClaims()} cannot
     * tell {@code "sub":42} from {@code "sub":"42"}. The extra parse happens once per token with
     * {@link CachingJwtDecoder} in front.
     */
    static OAuth2TokenValidator<Jwt> subjectIsUserId() {
        return jwt -> {
            if (jwt.getSubject() != null && rawSubject(jwt.getTokenValue()) instanceof String sub) {
                try {
                    UserIds.parse(sub, "sub");
                    return OAuth2TokenValidatorResult.success();
                } catch (InvalidUserIdException e) {
                    // refused below
                }
            }
            return OAuth2TokenValidatorResult.failure(new OAuth2Error("invalid_token",
                    "sub must be a string holding a positive 64-bit user id", null));
        };
    }

    /** The {@code sub} member of a compact JWS's payload as JSON holds it (String, Long, ...), or {@code null}. */
    static Object rawSubject(String token) {
        int payloadStart = token.indexOf('.') + 1;
        int payloadEnd = token.indexOf('.', payloadStart);
        if (payloadStart == 0 || payloadEnd < 0) {
            return null;
        }
        try {
            return JSONObjectUtils.parse(new Base64URL(token.substring(payloadStart, payloadEnd)).decodeToString())
                    .get(JwtClaimNames.SUB);
        } catch (ParseException e) {
            return null;
        }
    }
}
