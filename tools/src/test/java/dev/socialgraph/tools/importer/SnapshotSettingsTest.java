package dev.socialgraph.tools.importer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.bloom.SnapshotStore;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Validation of the snapshot settings and the topic they read, without servers. */
class SnapshotSettingsTest {

    private final SnapshotStore store = new SnapshotStore(Path.of("/tmp/unused"), 3);
    private final TopicOffsets offsets = new TopicOffsets("127.0.0.1:9092", "follow-events", 12, Duration.ofSeconds(1));

    @Test
    void withDefaultSizing_usesTheServicesGrowthAndMinimum() {
        SnapshotSettings s = SnapshotSettings.withDefaultSizing(store, 0.001, offsets);
        assertThat(s.growth()).isEqualTo(1.5);
        assertThat(s.minimumExpectedEdges()).isEqualTo(1_000_000);
    }

    @Test
    void new_withAnFppOutsideTheServicesRange_namesIt() {
        assertThatThrownBy(() -> SnapshotSettings.withDefaultSizing(store, 0.6, offsets))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("bloom fpp must be in [1e-7, 0.5], was 0.6");
        assertThatThrownBy(() -> SnapshotSettings.withDefaultSizing(store, Double.NaN, offsets))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was NaN");
    }

    @Test
    void new_withGrowthBelowOneOrNoMinimum_namesIt() {
        assertThatThrownBy(() -> new SnapshotSettings(store, 0.001, 0.9, 1, offsets))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("bloom growth must be >= 1, was 0.9");
        assertThatThrownBy(() -> new SnapshotSettings(store, 0.001, 1.5, 0, offsets))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minimum expected edges must be >= 1, was 0");
    }

    @Test
    void topicOffsets_withBadArguments_nameThem() {
        assertThatThrownBy(() -> new TopicOffsets(" ", "t", 1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bootstrap");
        assertThatThrownBy(() -> new TopicOffsets("h:1", "", 1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("topic must be 1..249 characters, was ''");
        assertThatThrownBy(() -> new TopicOffsets("h:1", "t", 0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("partitions must be >= 1, was 0");
        assertThatThrownBy(() -> new TopicOffsets("h:1", "t", 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("timeout must be positive, was PT0S");
    }
}
