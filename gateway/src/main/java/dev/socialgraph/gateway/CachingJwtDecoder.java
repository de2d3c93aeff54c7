package dev.socialgraph.gateway;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.springframework.security.oauth2.jwt.JoseHeaderNames;
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
 * {@code delegate} already verified with the same key; nothing but time and the key's withdrawal can change the
 * verdict on it. So a hit is only served while {@code now} is before {@code exp} and not before {@code nbf} (each
 * with {@code clockSkew}, as Spring Security's {@code JwtTimestampValidator} allows); otherwise the entry is dropped
 * and the token goes to {@code delegate}, which gives the same error an uncached decode would. A signing key that
 * leaves the identity provider's JWK Set ends its tokens' entries when the gateway next fetches the set
 * ({@link #retainKeys}, called by {@link IdentityProviderKeys}). Rejected tokens are never cached. Entries also
 * expire {@code maxAge} after they were written.
 *
 * <p>The bound is bytes, not entries: tokens are of the client's making, up to the 8 KB or so a proxy's header limit
 * lets through, and each is held twice (the key, and the {@link Jwt}'s own copy of its text beside the parsed
 * claims). Each entry weighs {@link #weigh}, and Caffeine (W-TinyLFU) evicts past {@code maxBytes} in total.
 *
 * <p>Metrics: Caffeine's {@code cache.gets{cache=gateway.jwt,result=hit|miss}}, {@code cache.size},
 * {@code cache.evictions}, and {@code graph.gateway.jwt.cache.bytes}, the entries' total weight.
 */
final class CachingJwtDecoder implements ReactiveJwtDecoder {

    private final ReactiveJwtDecoder delegate;
    private final Cache<String, Jwt> accepted;
    private final Duration clockSkew;
    private final Clock clock;

    /**
     * Heap an entry holds besides twice the text of its token, in bytes: Caffeine's node, the key's and the copy's
     * {@code String} headers, the {@link Jwt}, its two maps and the claims as objects ({@code Instant}s, strings, the
     * audience's list). See {@link #weigh} for the measurement it comes from.
     */
    static final int ENTRY_OVERHEAD = 1_024;

    /**
     * @param delegate  decodes and validates tokens that are not cached
     * @param maxBytes  the entries' total {@link #weigh weight} at most (≥ 1)
     * @param maxAge    longest time an entry is served after it was decoded
     * @param clockSkew tolerance on {@code exp} and {@code nbf}, the same as the delegate's timestamp validator
     * @param clock     time source (tests move it)
     * @param meters    where the cache's statistics are registered, or {@code null}
     */
    CachingJwtDecoder(ReactiveJwtDecoder delegate, long maxBytes, Duration maxAge, Duration clockSkew, Clock clock,
                      MeterRegistry meters) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be ≥ 1: " + maxBytes);
        }
        this.delegate = delegate;
        this.clockSkew = clockSkew;
        this.clock = clock;
        // Maintenance (eviction, expiry) on the calling thread: it is amortised and short, and the default
        // executor, ForkJoinPool.commonPool(), cost a thread wake-up every few hundred requests (7.8 % of a core in
        // the gateway's profile).
        this.accepted = Caffeine.newBuilder().maximumWeight(maxBytes).weigher(CachingJwtDecoder::weigh)
                .expireAfterWrite(maxAge).executor(Runnable::run).recordStats().build();
        if (meters != null) {
            CaffeineCacheMetrics.monitor(meters, accepted, "gateway.jwt");
            Gauge.builder("graph.gateway.jwt.cache.bytes", this,
                            c -> c.accepted.policy().eviction().orElseThrow().weightedSize().orElse(0))
                    .description("estimated heap of the cached bearer tokens (graph.gateway.jwt-cache.max-bytes bounds it)")
                    .baseUnit("bytes").register(meters);
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

    /**
     * An entry's weight: what it holds on the heap, in bytes, estimated from the token's length alone (so it costs
     * nothing per put): {@link #ENTRY_OVERHEAD} plus two bytes per character of the token (its text twice, the key
     * and the {@link Jwt}'s copy, as Latin-1 strings, and the decoded claims, which are shorter than their base64url
     * text). Measured on JDK 25 (serial collector, heap in use after a full collection, 10,000 entries in a Caffeine
     * cache of HS256 tokens decoded by Spring Security's Nimbus decoder, six claims plus padding): 1,192 bytes an
     * entry for tokens of 236 characters (weighed 1,496), 6,024 for 2,920 (weighed 6,864) and 15,357 for 8,253
     * (weighed 17,530); so the weight bounds the heap from above by 12 to 25 %.
     *
     * @param token the token's text, as the cache's key
     * @param jwt   what it decoded to
     * @return bytes, at least {@link #ENTRY_OVERHEAD}
     */
    static int weigh(String token, Jwt jwt) {
        return ENTRY_OVERHEAD + 2 * token.length();
    }

    /**
     * Drops the entries of tokens whose signing key the identity provider no longer publishes: those whose header's
     * {@code kid} is not in {@code keyIds} and, when some key was withdrawn, every entry without a {@code kid} (which
     * key verified it is not recorded). Their next request decodes them again against the current keys.
     *
     * @param keyIds       the {@code kid}s of the JWK Set just fetched
     * @param keyWithdrawn whether a key of the previous set is missing from it
     * @return entries dropped
     */
    int retainKeys(Set<String> keyIds, boolean keyWithdrawn) {
        int[] dropped = {0};
        accepted.asMap().values().removeIf(jwt -> {
            Object kid = jwt.getHeaders().get(JoseHeaderNames.KID);
            boolean drop = kid == null ? keyWithdrawn : !keyIds.contains(kid.toString());
            dropped[0] += drop ? 1 : 0;
            return drop;
        });
        return dropped[0];
    }

    /** The entries' total {@link #weigh weight}, in bytes, after pending evictions. */
    long weightedBytes() {
        accepted.cleanUp();
        return accepted.policy().eviction().orElseThrow().weightedSize().orElseThrow();
    }

    /** Tokens currently cached (approximate, as Caffeine counts). */
    long size() {
        return accepted.estimatedSize();
    }
}
