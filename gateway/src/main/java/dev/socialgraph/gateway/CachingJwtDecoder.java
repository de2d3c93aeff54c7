package dev.socialgraph.gateway;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import reactor.core.publisher.Mono;

/**
 * Remembers the {@link Jwt} each accepted bearer token decoded to, keyed by the token's exact text, so a client that
 * sends the same token again skips parsing, the HMAC and claim conversion (about 4 % of the gateway's
 * event-loop CPU, and allocation, per request).
 *
 * <p>Why this is as strict as decoding every time: a cache hit needs the identical string, signature included, that
 * {@code delegate} already verified with the same key; nothing but time can change the verdict on it. So a hit is
 * only served while {@code now} is before {@code exp} and not before {@code nbf} (each with {@code clockSkew}, as
 * Spring Security's {@code JwtTimestampValidator} allows); otherwise the entry is dropped and the token goes to
 * {@code delegate}, which gives the same error an uncached decode would. Rejected tokens are never cached. Entries
 * also expire {@code maxAge} after they were written, and at most {@code maximumSize} are kept (Caffeine's
 * W-TinyLFU picks which); a decoded HS256 token with a few claims is about 2 KB on the heap, so the default 20,000
 * entries is of the order of 40 MB at most.
 *
 * <p>Metrics: Caffeine's {@code cache.gets{cache=gateway.jwt,result=hit|miss}}, {@code cache.size},
 * {@code cache.evictions}.
 */
final class CachingJwtDecoder implements ReactiveJwtDecoder {

    private final ReactiveJwtDecoder delegate;
    private final Cache<String, Jwt> accepted;
    private final Duration clockSkew;
    private final Clock clock;

    /**
     * @param delegate    decodes and validates tokens that are not cached
     * @param maximumSize tokens kept at most (≥ 1)
     * @param maxAge      longest time an entry is served after it was decoded
     * @param clockSkew   tolerance on {@code exp} and {@code nbf}, the same as the delegate's timestamp validator
     * @param clock       time source (tests move it)
     * @param meters      where the cache's statistics are registered, or {@code null}
     */
    CachingJwtDecoder(ReactiveJwtDecoder delegate, long maximumSize, Duration maxAge, Duration clockSkew, Clock clock,
                      MeterRegistry meters) {
        if (maximumSize < 1) {
            throw new IllegalArgumentException("maximumSize must be ≥ 1: " + maximumSize);
        }
        this.delegate = delegate;
        this.clockSkew = clockSkew;
        this.clock = clock;
        // Maintenance (eviction, expiry) on the calling thread: it is amortised and short, and the default
        // executor, ForkJoinPool.commonPool(), cost a thread wake-up every few hundred requests (7.8 % of a core in
        // the gateway's profile).
        this.accepted = Caffeine.newBuilder().maximumSize(maximumSize).expireAfterWrite(maxAge)
                .executor(Runnable::run).recordStats().build();
        if (meters != null) {
            CaffeineCacheMetrics.monitor(meters, accepted, "gateway.jwt");
        }
    }

    @Override
    public Mono<Jwt> decode(String token) throws JwtException {
        Jwt cached = cached(token);
        return cached != null ? Mono.just(cached) : delegate.decode(token).doOnNext(jwt -> accepted.put(token, jwt));
    }

    /**
     * The token's {@link Jwt} when it is cached and may still be served, without decoding anything: what
     * {@link #decode} answers at once; an entry past its {@code exp} or before its {@code nbf} (with the skew) is
     * dropped.
     *
     * @param token a bearer token's exact text
     * @return the accepted token's {@link Jwt}, or {@code null} when {@link #decode} would have to ask the delegate
     */
    Jwt cached(String token) {
        Jwt cached = accepted.getIfPresent(token);
        if (cached != null) {
            if (stillValid(cached, clock.instant())) {
                return cached;
            }
            accepted.invalidate(token);
        }
        return null;
    }

    private boolean stillValid(Jwt jwt, Instant now) {
        Instant expiresAt = jwt.getExpiresAt();
        if (expiresAt != null && now.minus(clockSkew).isAfter(expiresAt)) {
            return false;
        }
        Instant notBefore = jwt.getNotBefore();
        return notBefore == null || !now.plus(clockSkew).isBefore(notBefore);
    }

    /** Tokens currently cached (approximate, as Caffeine counts). */
    long size() {
        return accepted.estimatedSize();
    }
}
