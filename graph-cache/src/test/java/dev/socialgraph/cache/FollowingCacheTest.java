package dev.socialgraph.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.breaker.BreakerSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The protocol's failure contract with no server at all: every call answers, none throws. */
class FollowingCacheTest {

    @Test
    void everyOperation_whenRedisRefusesConnections_answersMissOrFailed_andTellsTheListener() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        List<String> failures = new ArrayList<>();
        RedisEndpoint endpoint = RedisEndpoint.parse("redis://127.0.0.1:" + closedPort, RedisMode.STANDALONE,
                Duration.ofMillis(250), Duration.ofMillis(250));
        // Without a breaker: every command is tried (the breaker's own contract is the next test's).
        BreakerSettings noBreaker = new BreakerSettings(false, 50, 20, 5, Duration.ofSeconds(1), 2);
        try (RedisConnector redis = new RedisConnector(endpoint, noBreaker)) {
            FollowingCache cache = new FollowingCache(redis, Duration.ofSeconds(3600),
                    (command, error) -> failures.add(command));
            FollowingCache.Change change = new FollowingCache.Change(42, 1, true, 7);

            assertThat(cache.apply(change)).isEqualTo(FollowingCache.Outcome.FAILED);
            assertThat(cache.isFollowing(42, 7)).isEqualTo(FollowingCache.MISS);
            assertThat(cache.areFollowing(42, new long[] {7, 8})).isNull();
            assertThat(cache.fill(42, new long[] {7}, 1)).isFalse();
            FollowingCache.Batch batch = cache.applyAll(List.of(change, new FollowingCache.Change(43, 2, false, 7)));
            assertThat(batch.outcomes()).containsExactly(FollowingCache.Outcome.FAILED, FollowingCache.Outcome.FAILED);
            assertThat(batch.failed(List.of(change, change))).hasSize(2);
            assertThat(batch.firstFailure()).isNotNull();
            assertThat(cache.invalidateAll(List.of(change)).outcomes()).containsExactly(FollowingCache.Outcome.FAILED);
        }
        assertThat(failures).containsExactly("APPLY", "SMISMEMBER", "SMISMEMBER", "FILL", "APPLY", "INVALIDATE");
    }

    @Test
    void everyOperation_onceTheBreakerOpened_isSkipped_answersMissOrFailed_andTellsNoListener() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        List<String> failures = new ArrayList<>();
        RedisEndpoint endpoint = RedisEndpoint.parse("redis://127.0.0.1:" + closedPort, RedisMode.STANDALONE,
                Duration.ofMillis(250), Duration.ofMillis(250));
        // Opens after 2 failures of 2, and stays open for the whole test.
        BreakerSettings settings = new BreakerSettings(true, 50, 2, 2, Duration.ofHours(1), 1);
        try (RedisConnector redis = new RedisConnector(endpoint, settings)) {
            FollowingCache cache = new FollowingCache(redis, Duration.ofSeconds(3600),
                    (command, error) -> failures.add(command));
            FollowingCache.Change change = new FollowingCache.Change(42, 1, true, 7);
            assertThat(cache.isFollowing(42, 7)).isEqualTo(FollowingCache.MISS);
            assertThat(cache.isFollowing(42, 7)).isEqualTo(FollowingCache.MISS);
            assertThat(redis.breaker().isOpen()).isTrue();

            assertThat(cache.apply(change)).isEqualTo(FollowingCache.Outcome.FAILED);
            assertThat(cache.isFollowing(42, 7)).isEqualTo(FollowingCache.MISS);
            assertThat(cache.areFollowing(42, new long[] {7, 8})).isNull();
            assertThat(cache.fill(42, new long[] {7}, 1)).isFalse();
            assertThat(cache.forget(42)).isFalse();
            FollowingCache.Batch batch = cache.applyAll(List.of(change));
            assertThat(batch.outcomes()).containsExactly(FollowingCache.Outcome.FAILED);
            assertThat(RedisBreaker.skipped(batch.firstFailure())).isTrue();
            assertThat(cache.invalidateAll(List.of(change)).outcomes()).containsExactly(FollowingCache.Outcome.FAILED);
        }
        assertThat(failures).as("only the two commands sent to Redis failed there").containsExactly("SMISMEMBER",
                "SMISMEMBER");
    }

    @Test
    void applyAll_ofNothing_asksNothing() {
        RedisEndpoint endpoint = RedisEndpoint.parse("redis://127.0.0.1:1", RedisMode.STANDALONE,
                Duration.ofMillis(250), Duration.ofMillis(250));
        try (RedisConnector redis = new RedisConnector(endpoint)) {
            FollowingCache cache = new FollowingCache(redis, Duration.ofSeconds(1), (command, error) -> {
                throw new AssertionError("no command expected, got " + command);
            });
            assertThat(cache.applyAll(List.of()).outcomes()).isEmpty();
        }
    }

    @Test
    void constructor_rejectsTtlBelowOneSecond() {
        RedisEndpoint endpoint = RedisEndpoint.parse("redis://127.0.0.1:6379", RedisMode.STANDALONE,
                Duration.ofMillis(250), Duration.ofMillis(250));
        try (RedisConnector redis = new RedisConnector(endpoint)) {
            assertThatThrownBy(() -> new FollowingCache(redis, Duration.ofMillis(500), (command, error) -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TTL");
        }
    }
}
