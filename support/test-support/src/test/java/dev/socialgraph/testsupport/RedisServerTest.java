package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void fromUri_plain_givesHostPortAndDatabaseUris() {
        RedisServer server = RedisServer.fromUri(Source.ENVIRONMENT, "redis://127.0.0.1:6379", null);

        assertThat(server.host()).isEqualTo("127.0.0.1");
        assertThat(server.port()).isEqualTo(6379);
        assertThat(server.uri()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(server.uri(7)).isEqualTo("redis://127.0.0.1:6379/7");
    }

    @Test
    void fromUri_withCredentialsTlsAndDatabase_keepsCredentialsDropsDatabase() {
        RedisServer server = RedisServer.fromUri(Source.ENVIRONMENT, "rediss://:s3cret@cache.internal:6380/4", null);

        assertThat(server.uri(2)).isEqualTo("rediss://:s3cret@cache.internal:6380/2");
    }

    @Test
    void fromUri_withoutPort_defaultsTo6379() {
        assertThat(RedisServer.fromUri(Source.ENVIRONMENT, "redis://localhost", null).port()).isEqualTo(6379);
    }

    @Test
    void fromUri_notRedis_throws() {
        assertThatThrownBy(() -> RedisServer.fromUri(Source.ENVIRONMENT, "http://localhost:6379", null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void uri_databaseOutOfRange_throws() {
        RedisServer server = RedisServer.fromUri(Source.ENVIRONMENT, "redis://localhost", null);

        assertThatThrownBy(() -> server.uri(16)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> server.uri(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
