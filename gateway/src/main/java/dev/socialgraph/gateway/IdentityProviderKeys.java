package dev.socialgraph.gateway;

import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.CachingJWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RefreshAheadCachingJWKSetSource;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.events.Event;
import com.nimbusds.jose.util.events.EventListener;
import com.nimbusds.jwt.SignedJWT;
import java.io.Closeable;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.oauth2.jwt.JwtException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The identity provider's signing keys, its JWK Set fetched from {@code jwkSetUri} by Nimbus's {@link JWKSourceBuilder}
 * and kept for {@code refresh}, fetched again in the background before that runs out (refresh ahead), and at once
 * for a token whose {@code kid} is not in the set (at most every 30 s, or a quarter of {@code refresh} when that is
 * shorter: Nimbus's rate limit), so a key the provider publishes ahead of its use, as rotation should, works from
 * the start. Every completed fetch is reported to {@link #onRefresh} with the set's key ids and whether a key of the set
 * before it is gone: the gateway's token cache drops the tokens of a withdrawn key then
 * ({@link CachingJwtDecoder#retainKeys}), so a key's removal ends every token it signed within one {@code refresh}.
 *
 * <p>Spring Security's own JWK Set client ({@code NimbusReactiveJwtDecoder.withJwkSetUri}) keeps the first set it
 * fetched until a token names an unknown key: a withdrawn key went on verifying tokens for as long as the gateway
 * ran. Nimbus's source blocks while it fetches, so {@link #keys} asks it on a bounded-elastic thread, never on the
 * event loop; a fetch is at most Nimbus's default timeouts (500 ms to connect, 500 ms to read, 50 KB).
 */
final class IdentityProviderKeys implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(IdentityProviderKeys.class);

    /** Nimbus's refresh-ahead time (30 s) and refresh timeout (15 s), shortened for a short {@code refresh}. */
    private static final Duration REFRESH_AHEAD = Duration.ofSeconds(30);
    private static final Duration REFRESH_TIMEOUT = Duration.ofSeconds(15);

    private final JWKSource<SecurityContext> source;
    private final ExecutorService fetches;
    private final ScheduledExecutorService schedule;
    private volatile BiConsumer<Set<String>, Boolean> onRefresh = (ids, withdrawn) -> { };
    /** The key ids of the last set fetched, {@code null} before the first. */
    private Set<String> lastKeyIds;

    /**
     * @param jwkSetUri the identity provider's JWK Set, an {@code http} or {@code https} URI
     * @param refresh   how long a fetched set is used (at least 1 s)
     * @throws IllegalArgumentException for a URI that is not a URL
     */
    IdentityProviderKeys(URI jwkSetUri, Duration refresh) {
        long ttl = refresh.toMillis();
        long ahead = Math.min(REFRESH_AHEAD.toMillis(), ttl / 4);
        long timeout = Math.min(REFRESH_TIMEOUT.toMillis(), ttl / 4);
        this.fetches = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("jwk-set-fetch").factory());
        this.schedule = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("jwk-set-refresh").factory());
        EventListener<CachingJWKSetSource<SecurityContext>, SecurityContext> listener = this::fetched;
        try {
            this.source = JWKSourceBuilder.<SecurityContext>create(jwkSetUri.toURL())
                    .cache(ttl, timeout, listener)
                    .refreshAheadCache(ahead, listener, fetches, true, schedule, true)
                    .rateLimited(Math.min(JWKSourceBuilder.DEFAULT_RATE_LIMIT_MIN_INTERVAL, ttl / 4))
                    .build();
        } catch (MalformedURLException | IllegalArgumentException e) {
            close();
            throw new IllegalArgumentException("graph.gateway.jwk-set-uri is not a URL: " + jwkSetUri, e);
        }
    }

    /**
     * Sets who hears of each fetched set: with its key ids ({@code kid}s; keys without one are left out) and
     * whether a key id of the set before it is missing. Called on Nimbus's fetching thread.
     */
    void onRefresh(BiConsumer<Set<String>, Boolean> listener) {
        this.onRefresh = Objects.requireNonNull(listener);
    }

    /**
     * The key source of Spring Security's {@code NimbusReactiveJwtDecoder.withJwkSource}: the keys of the current
     * set that match the token's header ({@code kid}, {@code alg}, key type and use).
     *
     * @return for a signed token, its candidate keys (none: the token is refused); a failed fetch errors with a
     *         {@link JwtException}
     */
    Function<SignedJWT, Flux<JWK>> keys() {
        return jwt -> Mono.fromCallable(() -> source.get(new JWKSelector(JWKMatcher.forJWSHeader(jwt.getHeader())), null))
                .subscribeOn(Schedulers.boundedElastic())
                .onErrorMap(KeySourceException.class,
                        e -> new JwtException("the identity provider's JWK Set could not be fetched: " + e.getMessage(), e))
                .flatMapIterable(list -> list);
    }

    private void fetched(Event<CachingJWKSetSource<SecurityContext>, SecurityContext> event) {
        JWKSet set = switch (event) {
            case CachingJWKSetSource.RefreshCompletedEvent<SecurityContext> done -> done.getJWKSet();
            case RefreshAheadCachingJWKSetSource.ScheduledRefreshCompletedEvent<SecurityContext> done -> done.getJWKSet();
            default -> null;
        };
        if (set == null) {
            return;
        }
        Set<String> ids = new HashSet<>();
        for (JWK key : set.getKeys()) {
            if (key.getKeyID() != null) {
                ids.add(key.getKeyID());
            }
        }
        boolean withdrawn;
        synchronized (this) {
            withdrawn = lastKeyIds != null && !ids.containsAll(lastKeyIds);
            lastKeyIds = Set.copyOf(ids);
        }
        if (withdrawn) {
            log.info("The identity provider's JWK Set no longer has some of its keys; now: {}", ids);
        }
        onRefresh.accept(Set.copyOf(ids), withdrawn);
    }

    @Override
    public void close() {
        if (source instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (IOException e) {
                log.debug("Closing the JWK Set source", e);
            }
        }
        if (fetches != null) {
            fetches.shutdownNow();
        }
        if (schedule != null) {
            schedule.shutdownNow();
        }
    }
}
