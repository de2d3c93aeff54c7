package dev.socialgraph.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisEndpointTest {

    private static final Duration T = Duration.ofMillis(100);

    @Test
    void parse_readsOneServer_orClusterSeeds_ignoringBlanks() {
        RedisEndpoint one = RedisEndpoint.parse("redis://10.0.0.1:6379/0", RedisMode.STANDALONE, T, T);
        assertThat(one.seeds()).singleElement().satisfies(uri -> {
            assertThat(uri.getHost()).isEqualTo("10.0.0.1");
            assertThat(uri.getPort()).isEqualTo(6379);
        });
        RedisEndpoint cluster = RedisEndpoint.parse(" redis://a:7000 , redis://b:7001,,redis://c:7002 ",
                RedisMode.CLUSTER, T, T);
        assertThat(cluster.seeds()).extracting(uri -> uri.getHost() + ":" + uri.getPort())
                .containsExactly("a:7000", "b:7001", "c:7002");
    }

    @Test
    void parse_refusesSeveralUrisInStandaloneMode_naming_theClusterMode() {
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://a:1,redis://b:2", RedisMode.STANDALONE, T, T))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cluster");
    }

    @Test
    void parse_refusesNoUri_aBadUri_andNonPositiveTimeouts() {
        assertThatThrownBy(() -> RedisEndpoint.parse(" , ", RedisMode.CLUSTER, T, T))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no Redis URI");
        assertThatThrownBy(() -> RedisEndpoint.parse("http://x:1", RedisMode.STANDALONE, T, T))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http://x:1");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://x:1", RedisMode.STANDALONE, Duration.ZERO, T))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("command timeout");
        assertThatThrownBy(() -> RedisEndpoint.parse("redis://x:1", RedisMode.STANDALONE, T, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connect timeout");
    }
}
