package dev.socialgraph.gateway;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.net.URI;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.util.unit.DataSize;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.validation.annotation.Validated;

/**
 * Gateway settings, {@code graph.gateway.*}.
 *
 * @param jwtSecret HS256 secret of the bearer tokens (env {@code GRAPH_JWT_SECRET}), at least 32 bytes (RFC 7518
 *                  section 3.2: the key must be at least as long as the hash); required unless {@code jwkSetUri} is
 *                  set, and without a default outside the {@code local} profile
 * @param jwtSecretPrevious the HS256 secret being replaced, also accepted while a rotation is under way (env
 *                  {@code GRAPH_JWT_SECRET_PREVIOUS}; unset otherwise), at least 32 bytes: the gateway accepts both,
 *                  then the token issuer signs with the new one, then this is removed once the last token signed with
 *                  it has expired (docs/security.md). Only with {@code jwtSecret}
 * @param jwkSetUri JWK Set URI of the identity provider (production): when set, tokens are validated against its
 *                  keys (RS256) instead of {@code jwtSecret}; unset (local and test runs): HS256 with the secret
 * @param jwtIssuer the {@code iss} every bearer token must carry, exactly (env {@code GRAPH_JWT_ISSUER}); required
 *                  with {@code jwkSetUri}, since an identity provider signs tokens for many applications with the same
 *                  keys (RFC 8725 section 3.8); optional with {@code jwtSecret}, which only this system holds
 * @param jwtAudience a value the token's {@code aud} must contain (env {@code GRAPH_JWT_AUDIENCE}): this API's
 *                  identifier at the identity provider, so that ID tokens and tokens for other APIs are refused
 *                  (RFC 8725 section 3.9); required with {@code jwkSetUri}, optional with {@code jwtSecret}
 * @param jwkRefresh how long a fetched JWK Set is used before it is fetched again (default 5 min, at least 1 s): a
 *                  key withdrawn from the set stops verifying tokens, cached ones included, within this time
 * @param writeUri  base URI of the single follow-write-service instance of the default static instance list
 *                  (application.yml); a list in {@code spring.cloud.discovery.client.simple.instances} replaces it
 * @param checkUri  base URI of the single follow-check-service instance of the default static instance list
 * @param reads     per-user budget of reads
 * @param writes    per-user budget of writes
 * @param jwtCache  the cache of accepted bearer tokens ({@link CachingJwtDecoder})
 * @param responseTimeout longest silence of a service while its response is awaited or read; then 504
 *                        ({@link HttpClientTuning})
 * @param maxBodySize largest request body accepted (default 1 MB), larger ones get 413 ({@link RequestLimits});
 *                    from 1 byte to 2 GB - 1. The largest legal body is a batch check of the check service's
 *                    {@code graph.check.batch-max} ids (1,000 by default, at most 10,000): about 20 bytes per id,
 *                    so 20 KB, or 200 KB at the most the check service can be configured to take
 * @param servicePool bounds of the connection pool to each service instance ({@link HttpClientTuning})
 * @param changes     the change stream's connections ({@link StreamRoutingFilter})
 */
@Validated
@ConfigurationProperties("graph.gateway")
public record GatewayProperties(
        @Size(min = 32, message = "must be at least 32 bytes (HS256, GRAPH_JWT_SECRET)") String jwtSecret,
        @Size(min = 32, message = "must be at least 32 bytes (HS256, GRAPH_JWT_SECRET_PREVIOUS)") String jwtSecretPrevious,
        URI jwkSetUri,
        String jwtIssuer,
        String jwtAudience,
        @DefaultValue("5m") @NotNull @DurationMin(seconds = 1) Duration jwkRefresh,
        @NotNull URI writeUri,
        @NotNull URI checkUri,
        @NotNull @Valid Budget reads,
        @NotNull @Valid Budget writes,
        @DefaultValue @NotNull @Valid JwtCache jwtCache,
        @DefaultValue("5s") @NotNull @DurationMin(millis = 1) Duration responseTimeout,
        @DefaultValue("1MB") @NotNull DataSize maxBodySize,
        @DefaultValue @NotNull @Valid ServicePool servicePool,
        @DefaultValue @NotNull @Valid Changes changes) {

    /**
     * The change stream's connections to the check instances, apart from the reads' pool: a watcher holds its
     * connection for as long as it watches, and must never take one a read needs.
     *
     * @param maxStreams most change-stream requests in flight per check instance, long-polls and server-sent streams
     *                   together (default 2,048); past it a request waits up to 1 s for one to end, then gets 503
     *                   with {@code Retry-After}
     * @param silence    longest silence of a change-stream response (default 40 s): over the longest long-poll
     *                   ({@code wait} of 30 s) and the check service's checkpoint interval (5 s); then 504
     */
    public record Changes(@DefaultValue("2048") @Min(1) int maxStreams,
                          @DefaultValue("40s") @NotNull @DurationMin(seconds = 31) Duration silence) {
    }

    /**
     * Validates what the annotations cannot.
     *
     * @throws IllegalArgumentException when neither a JWT secret nor a JWK Set URI is set (the message names
     *     {@code GRAPH_JWT_SECRET}), when a JWK Set URI is set without an issuer and an audience, or for a body limit
     *     out of range
     */
    public GatewayProperties {
        if (jwtSecret != null && jwtSecret.isBlank()) {
            jwtSecret = null; // ${GRAPH_JWT_SECRET:} unset: no secret, not a short one
        }
        jwtSecretPrevious = jwtSecretPrevious == null || jwtSecretPrevious.isBlank() ? null : jwtSecretPrevious;
        jwtIssuer = jwtIssuer == null || jwtIssuer.isBlank() ? null : jwtIssuer;
        jwtAudience = jwtAudience == null || jwtAudience.isBlank() ? null : jwtAudience;
        if (jwkSetUri != null && (jwtIssuer == null || jwtAudience == null)) {
            throw new IllegalArgumentException("graph.gateway.jwk-set-uri is set, so graph.gateway.jwt-issuer and "
                    + "graph.gateway.jwt-audience are required (GRAPH_JWT_ISSUER, GRAPH_JWT_AUDIENCE): without them any "
                    + "token the identity provider signs for any application would be accepted");
        }
        if (jwkSetUri == null && jwtSecret == null) {
            throw new IllegalArgumentException("graph.gateway.jwt-secret is not set: set the environment variable "
                    + "GRAPH_JWT_SECRET (at least 32 bytes) or graph.gateway.jwk-set-uri; no token could be validated");
        }
        if (maxBodySize != null && (maxBodySize.toBytes() < 1 || maxBodySize.toBytes() > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "graph.gateway.max-body-size must be from 1 byte to 2147483647 bytes: " + maxBodySize);
        }
    }

    /** {@link #maxBodySize} in bytes. */
    public int maxBodyBytes() {
        return (int) maxBodySize.toBytes();
    }

    /**
     * Bounds of the gateway's HTTP/1.1 connection pool to the services, one pool per service instance (remote
     * address). Each proxied request holds a connection until its response is read, so {@code maxConnections} is
     * also the most requests in flight to one instance; further requests wait for a connection, at most
     * {@code pendingAcquireMax} of them and each at most {@code pendingAcquireTimeout}, and are otherwise answered
     * 503 with {@code Retry-After} ({@link GatewayErrors}).
     *
     * @param maxConnections        connections per service instance (default 256)
     * @param pendingAcquireMax     requests waiting for a connection per instance (default 1024)
     * @param pendingAcquireTimeout longest wait for a connection (default 1 s)
     */
    public record ServicePool(@DefaultValue("256") @Min(1) int maxConnections,
                              @DefaultValue("1024") @Min(1) int pendingAcquireMax,
                              @DefaultValue("1s") @NotNull @DurationMin(millis = 1) Duration pendingAcquireTimeout) {
    }

    /**
     * A token bucket per user, kept in Redis and spent in batches by each gateway ({@link LocalTokenBuckets}).
     *
     * @param replenishRate  tokens added per second
     * @param burstCapacity  bucket size: requests a user may make at once
     * @param batch          tokens a gateway reserves from a user's bucket at a time, and so the most a user can get
     *                       over budget per gateway instance in any window (see {@link LocalTokenBuckets}); unset:
     *                       a tenth of a second's worth, {@code ceil(replenishRate / 10)}, at least 1 and at most
     *                       {@code burstCapacity}
     */
    public record Budget(@Min(1) int replenishRate, @Min(1) int burstCapacity, @Min(1) Integer batch) {

        /** The constructor configuration binds to (the record has a second one). */
        @ConstructorBinding
        public Budget {
        }

        /** A budget whose batch is a tenth of a second's worth of tokens. */
        public Budget(int replenishRate, int burstCapacity) {
            this(replenishRate, burstCapacity, null);
        }

        /** Tokens reserved at a time: {@code batch} when set (at most {@code burstCapacity}), else the default. */
        public int batchSize() {
            int size = batch != null ? batch : (int) Math.ceil(replenishRate / 10.0);
            return Math.max(1, Math.min(size, burstCapacity));
        }
    }

    /**
     * Accepted bearer tokens kept decoded, keyed by their exact text.
     *
     * @param maxBytes the cache's bound in bytes of heap, each entry weighed by {@link CachingJwtDecoder#weigh} (a
     *                 token of a few claims, 240 characters, about 1.5 KB; one of the largest a proxy lets through,
     *                 8 KB of text, about 17.5 KB); default 32 MB, sized against the pod's heap in docs/capacity.md; 0
     *                 turns the cache off (every request decodes and verifies its token)
     * @param maxAge   longest time a decoded token is reused before it is verified again (a token is never reused
     *                 past its {@code exp})
     */
    public record JwtCache(@DefaultValue("32MB") @NotNull DataSize maxBytes,
                           @DefaultValue("5m") @NotNull @DurationMin(millis = 1) Duration maxAge) {

        /**
         * @throws IllegalArgumentException for a negative {@code maxBytes}
         */
        public JwtCache {
            if (maxBytes != null && maxBytes.isNegative()) {
                throw new IllegalArgumentException("graph.gateway.jwt-cache.max-bytes must be 0 or more: " + maxBytes);
            }
        }
    }
}
