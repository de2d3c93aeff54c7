package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * {@link LocalTokenBuckets} against a real Redis, as two gateway instances share it: each instance has its own Lettuce
 * connection, its own local buckets and the same Redis bucket per user.
 */
class LocalTokenBucketsIT {

    private final RedisServer redis = TestServers.redis();
    private final int database = redis.freshDatabase();
    private final List<LettuceConnectionFactory> connections = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @AfterEach
    void close() {
        connections.forEach(LettuceConnectionFactory::destroy);
    }

    /** One gateway instance's limiter of a budget: its own Redis connection, its own local buckets. */
    private LocalTokenBuckets instance(String budget, int rate, int capacity, int batch) {
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(redis.host(), redis.port());
        config.setDatabase(database);
        LettuceConnectionFactory connection = new LettuceConnectionFactory(config);
        connection.afterPropertiesSet();
        connection.start();
        connections.add(connection);
        TokenReservations reservations = new TokenReservations(new ReactiveStringRedisTemplate(connection), budget,
                rate, capacity);
        return new LocalTokenBuckets(reservations::reserve, batch, System::nanoTime,
                meters.counter("reservations", "budget", budget));
    }

    @Test
    void aUserHammeringTwoInstances_getsAtMostTheBudgetPlusOneBatchAndOneCreditPerInstance() {
        int rate = 1;
        int capacity = 40;
        int batch = 5;
        List<LocalTokenBuckets> gateways = List.of(instance("bound", rate, capacity, batch),
                instance("bound", rate, capacity, batch));
        Map<LocalTokenBuckets.Decision, Integer> outcomes = new EnumMap<>(LocalTokenBuckets.Decision.class);
        int requests = 400;

        long start = System.nanoTime();
        for (int i = 0; i < requests; i++) {
            LocalTokenBuckets.Decision d = gateways.get(i % 2).acquire("42").block(Duration.ofSeconds(10));
            outcomes.merge(d, 1, Integer::sum);
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        int allowed = outcomes.getOrDefault(LocalTokenBuckets.Decision.ALLOWED, 0);
        double reservations = meters.counter("reservations", "budget", "bound").count();
        System.out.printf("bound: %d of %d allowed in %.3f s, %.0f reservations%n", allowed, requests, seconds,
                reservations);
        // The bound of LocalTokenBuckets' javadoc over the whole run: budget for the window plus a batch and a credit
        // per instance (the user never stays away a minute).
        long bound = capacity + (long) Math.ceil(rate * seconds) + 2L * (batch + 1);
        assertThat(outcomes).doesNotContainKey(LocalTokenBuckets.Decision.REDIS_DOWN);
        assertThat(allowed).isLessThanOrEqualTo((int) bound)
                // every token of the full bucket went to one of the instances; at most a batch each is left unspent
                .isGreaterThanOrEqualTo(capacity - 2 * batch);
        assertThat(outcomes.get(LocalTokenBuckets.Decision.REJECTED)).isEqualTo(requests - allowed);
        // Answered in process: Redis saw one reservation per few requests, not one per request.
        assertThat(reservations).isLessThan(requests / 4.0);
    }

    @Test
    void tokensHeldByOneInstance_areSpentOnTopOfARefilledBucket_butNoMoreThanABatchEach() {
        // How the bound is reached: instance A holds tokens reserved earlier, the bucket refills meanwhile, and the
        // user spends A's tokens and then a full bucket through B. A high rate refills the bucket within 50 ms.
        int rate = 200;
        int capacity = 10;
        int batch = 8;
        LocalTokenBuckets a = instance("held", rate, capacity, batch);
        LocalTokenBuckets b = instance("held", rate, capacity, batch);
        assertThat(a.acquire("7").block(Duration.ofSeconds(10))).isEqualTo(LocalTokenBuckets.Decision.ALLOWED);
        // A let the first request through on credit and reserved a batch of 8 and the credit: it holds 8, above half
        // a batch, so it reserves nothing ahead yet.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> bucketIsFull("held", "7", capacity, rate));

        long start = System.nanoTime();
        int allowed = 0;
        for (int i = 0; i < 2; i++) { // 8 -> 6 held: still above half a batch
            assertThat(a.acquire("7").block(Duration.ofSeconds(10))).isEqualTo(LocalTokenBuckets.Decision.ALLOWED);
            allowed++;
        }
        LocalTokenBuckets.Decision last;
        do {
            last = b.acquire("7").block(Duration.ofSeconds(10));
            allowed += last == LocalTokenBuckets.Decision.ALLOWED ? 1 : 0;
        } while (last == LocalTokenBuckets.Decision.ALLOWED && allowed < 10_000);
        double seconds = (System.nanoTime() - start) / 1e9;

        System.out.printf("held: %d allowed in %.3f s (capacity %d, batch %d)%n", allowed, seconds, capacity, batch);
        assertThat(last).isEqualTo(LocalTokenBuckets.Decision.REJECTED);
        // More than a full bucket within the window (A's 2 held tokens came on top of it), never more than the bound.
        assertThat(allowed).isGreaterThanOrEqualTo(capacity + 2)
                .isLessThanOrEqualTo(capacity + (int) Math.ceil(rate * seconds) + 2 * (batch + 1));
    }

    /** Whether the user's bucket exists in Redis and is full now, by Redis's clock. */
    private boolean bucketIsFull(String budget, String user, int capacity, int rate) {
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(redis.host(), redis.port());
        config.setDatabase(database);
        LettuceConnectionFactory connection = new LettuceConnectionFactory(config);
        connection.afterPropertiesSet();
        connection.start();
        try {
            var ops = new ReactiveStringRedisTemplate(connection);
            String key = "rate_limit.{" + budget + "." + user + "}";
            List<Object> state = ops.opsForHash().multiGet(key, List.of("tokens", "ts")).block(Duration.ofSeconds(5));
            if (state == null || state.get(0) == null) {
                return false; // no reservation has landed yet (or the key expired a second after refilling)
            }
            long now = ops.execute(c -> c.serverCommands().time()).blockFirst(Duration.ofSeconds(5));
            double tokens = Double.parseDouble((String) state.get(0));
            long ts = Long.parseLong((String) state.get(1));
            return tokens + (now - ts) * rate / 1000.0 >= capacity;
        } finally {
            connection.destroy();
        }
    }
}
