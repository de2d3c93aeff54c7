package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PipelineTest {

    @Test
    void settings_byDefault_useTestSupportsRedis() {
        assertThat(Pipeline.Settings.defaults("p").redis()).isNull();
    }

    @Test
    void withRedis_keepsTheOtherSettings_andNamesTheModeTheServicesRead() {
        Pipeline.Settings settings = Pipeline.Settings.defaults("p").withRelayPollInterval(Duration.ofMillis(50))
                .withCelebrityPages(100, 40)
                .withRedis(Pipeline.Redis.cluster("redis://127.0.0.1:20001,redis://127.0.0.1:20002"));

        assertThat(settings.redis().mode()).isEqualTo("cluster");
        assertThat(settings.redis().uri()).isEqualTo("redis://127.0.0.1:20001,redis://127.0.0.1:20002");
        assertThat(settings.relayPollInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(settings.celebrityThreshold()).isEqualTo(100);
        assertThat(settings.pageSize()).isEqualTo(40);
        assertThat(Pipeline.Redis.standalone("redis://127.0.0.1:6379/3").mode()).isEqualTo("standalone");
    }

    @Test
    void redis_whenModeUnknownOrUriBlank_isRefused() {
        assertThatThrownBy(() -> new Pipeline.Redis("redis://127.0.0.1:6379", "sentinel"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sentinel");
        assertThatThrownBy(() -> Pipeline.Redis.cluster(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
