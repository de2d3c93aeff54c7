package dev.socialgraph.gateway;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;

/**
 * Per-user rate limiting answered in process: each gateway keeps a few tokens per user (a batch reserved from the
 * user's token bucket in Redis, {@link TokenReservations}) and spends them without asking Redis. When a user's local
 * tokens fall to half a batch, the next batch is reserved in the background, so a user within budget never waits on
 * Redis. A user this gateway holds nothing for (the first request, or the first after a minute of idleness, which
 * is most requests of a user who calls now and then) is let through at once on credit, and the batch its request
 * starts reserving pays for it. A request waits on Redis only when the local tokens are gone while a reservation is
 * under way or already spent (a user spending faster than the background reservations arrive). Once Redis grants
 * nothing, the user's requests are refused locally until the bucket holds a whole token again.
 *
 * <p><b>How far over budget a user can get.</b> Every token spent was taken out of the Redis bucket exactly once,
 * except requests let through on credit while the bucket was empty: such a credit stays owed and is paid from the
 * user's next grant on that instance, or forgiven when the user stays away from it for a minute. What batching adds
 * is timing: tokens reserved before a window of time can be spent inside it, on top of a bucket that refilled
 * meanwhile. In any window of {@code t} seconds a user is let through at most
 * {@code burstCapacity + replenishRate × t + n × (batch + 1 + m)} requests of a budget, with {@code n} the number of
 * gateway instances and {@code m} the number of times in the window the user came back to an instance after a minute
 * away: an instance never holds more than {@code batch} tokens of a user (a reservation asks for {@code batch} minus
 * what is held, plus what is owed) and owes at most one. The other way, up to {@code (n - 1) × batch} of a user's
 * tokens can sit unused on other instances, so a user spreading requests over instances may be refused that much
 * early. While Redis cannot be reached the batches stop: see {@link Decision#REDIS_DOWN}.
 *
 * <p>Thread safety: a user's state is guarded by its own monitor, held only for a few field updates (never across a
 * Redis call); Redis replies arrive on Lettuce's thread.
 */
final class LocalTokenBuckets {

    /** What the limiter says about one request. */
    enum Decision {
        /** Within budget: let it through. */
        ALLOWED,
        /** Over budget: refuse it (429). */
        REJECTED,
        /**
         * No local token and Redis could not be asked (it failed within the last
         * {@link LocalTokenBuckets#REDIS_RETRY}): the caller
         * decides (reads fail open, writes fall back to an in-process limit).
         */
        REDIS_DOWN
    }

    /** How the limiter takes a batch of a user's tokens: {@link TokenReservations#reserve}, in production. */
    @FunctionalInterface
    interface Source {
        Mono<TokenReservations.Reservation> reserve(String user, int wanted);
    }

    /** After Redis failed, how long requests without local tokens skip it instead of waiting on it again. */
    static final Duration REDIS_RETRY = Duration.ofSeconds(1);

    private static final Mono<Decision> ALLOWED = Mono.just(Decision.ALLOWED);
    private static final Mono<Decision> REJECTED = Mono.just(Decision.REJECTED);
    private static final Mono<Decision> REDIS_DOWN = Mono.just(Decision.REDIS_DOWN);

    /** One user's tokens on this instance. */
    private static final class Local {
        /** Tokens reserved from Redis and not yet spent, at most {@code batch}. */
        int tokens;
        /** True when Redis last granted nothing; then {@link #refusedUntil} says until when to refuse locally. */
        boolean exhausted;
        long refusedUntil;
        /** The reservation under way, or {@code null}; completes with {@code true} when Redis answered. */
        CompletableFuture<Boolean> reserving;
        /** No request has been let through on credit since this state was created. */
        boolean creditUnused = true;
        /** Requests let through on credit and not yet paid from a grant: 0 or 1. */
        int owed;
    }

    private final Source source;
    private final int batch;
    private final int lowWater;
    private final LongSupplier nanoTime;
    private final Counter reservations;
    private final LoadingCache<String, Local> users;
    private volatile boolean redisDown;
    private volatile long redisRetryAt;

    /**
     * @param source       where batches come from
     * @param batch        tokens reserved from Redis at a time, at least 1: the bound's {@code batch}
     * @param nanoTime     the clock ({@link System#nanoTime} in production)
     * @param reservations counts the batches asked of Redis
     */
    LocalTokenBuckets(Source source, int batch, LongSupplier nanoTime, Counter reservations) {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1, was " + batch);
        }
        this.source = source;
        this.batch = batch;
        this.lowWater = batch / 2;
        this.nanoTime = nanoTime;
        this.reservations = reservations;
        // A user idle for a minute has its few local tokens dropped (spent budget, never extra budget).
        this.users = Caffeine.newBuilder().expireAfterAccess(Duration.ofMinutes(1)).maximumSize(1_000_000)
                .executor(Runnable::run).build(user -> new Local());
    }

    /** Tokens this instance reserves from Redis at a time. */
    int batch() {
        return batch;
    }

    /**
     * Spends one of {@code user}'s tokens.
     *
     * @return at once when the user has local tokens, is new to this instance (on credit), is known to be over budget
     *         or Redis is known to be down; else once Redis has answered a reservation (or failed), on the thread that
     *         completed it
     */
    Mono<Decision> acquire(String user) {
        Local local = users.get(user);
        long now = nanoTime.getAsLong();
        CompletableFuture<Boolean> pending;
        synchronized (local) {
            if (local.tokens > 0) {
                local.tokens--;
                reserveAheadIfLow(user, local, now);
                return ALLOWED;
            }
            if (local.reserving != null) {
                pending = local.reserving;
            } else if (local.exhausted && now - local.refusedUntil < 0) {
                return REJECTED;
            } else if (isRedisDown(now)) {
                return REDIS_DOWN;
            } else if (local.creditUnused) {
                local.creditUnused = false;
                local.owed = 1;
                reserve(user, local);
                return ALLOWED;
            } else {
                pending = reserve(user, local);
            }
        }
        return Mono.fromFuture(pending, true).flatMap(answered -> spendAfterReservation(user, local, answered));
    }

    /**
     * After a reservation a waiting request was waiting on: a token if one is left; else, when Redis granted some but
     * other waiters took them, it asks again (a burst of concurrent first requests is not refused while the Redis
     * bucket still holds tokens); refused only once Redis has granted nothing.
     */
    private Mono<Decision> spendAfterReservation(String user, Local local, boolean answered) {
        synchronized (local) {
            if (local.tokens > 0) {
                local.tokens--;
                reserveAheadIfLow(user, local, nanoTime.getAsLong());
                return ALLOWED;
            }
            if (!answered) {
                return REDIS_DOWN;
            }
            if (local.exhausted) {
                return REJECTED;
            }
        }
        return acquire(user);
    }

    /** Called with {@code local}'s monitor held. */
    private void reserveAheadIfLow(String user, Local local, long now) {
        if (local.tokens <= lowWater && local.reserving == null && !(local.exhausted && now - local.refusedUntil < 0)
                && !isRedisDown(now)) {
            reserve(user, local);
        }
    }

    /**
     * Starts a reservation topping {@code local} up to {@code batch} and paying what it owes; called with
     * {@code local}'s monitor held.
     */
    private CompletableFuture<Boolean> reserve(String user, Local local) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        local.reserving = done;
        reservations.increment();
        source.reserve(user, batch - local.tokens + local.owed)
                .switchIfEmpty(Mono.error(() -> new IllegalStateException("no reply to a token reservation")))
                .subscribe(reservation -> {
                    synchronized (local) {
                        int granted = (int) reservation.granted();
                        int paid = Math.min(granted, local.owed);
                        local.owed -= paid;
                        local.tokens += granted - paid;
                        local.exhausted = granted == 0;
                        if (local.exhausted) {
                            local.refusedUntil = nanoTime.getAsLong() + reservation.retryAfterMicros() * 1_000;
                        }
                        local.reserving = null;
                    }
                    redisDown = false;
                    done.complete(true);
                }, error -> {
                    synchronized (local) {
                        local.reserving = null;
                    }
                    redisRetryAt = nanoTime.getAsLong() + REDIS_RETRY.toNanos();
                    redisDown = true;
                    done.complete(false);
                });
        return done;
    }

    private boolean isRedisDown(long now) {
        return redisDown && now - redisRetryAt < 0;
    }
}
