package dev.socialgraph.write.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FollowingCacheTest {

    @Test
    void apply_whenRedisRefusesConnections_returnsFailedAndCountsIt_quickly() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (FollowingCache cache = new FollowingCache("redis://127.0.0.1:" + closedPort, Duration.ofMillis(250),
                Duration.ofSeconds(3600), meters)) {
            long start = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                assertThat(cache.apply(42, i + 1, true, 7)).isEqualTo(FollowingCache.Result.FAILED);
            }
            // One refused connect, then fail-fast until the retry interval passes: far below 50 connect timeouts.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(meters.get("graph.write.cache.apply").tag("result", "failed").counter().count()).isEqualTo(50);
        assertThat(meters.get("graph.write.cache.apply").tag("result", "applied").counter().count()).isZero();
    }

    @Test
    void constructor_rejectsTtlBelowOneSecond() {
        assertThatThrownBy(() -> new FollowingCache("redis://127.0.0.1:6379", Duration.ofMillis(250),
                Duration.ofMillis(500), new SimpleMeterRegistry())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TTL");
    }
}
