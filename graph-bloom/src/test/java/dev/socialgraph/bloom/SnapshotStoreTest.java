package dev.socialgraph.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotStoreTest {

    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    static BloomSnapshot snapshot(int first, int last, long createdAt, long seed, int edges) {
        EdgeFilter filter = EdgeFilter.create(1000, EdgeFilter.DEFAULT_FPP);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < edges; i++) {
            filter.put(random.nextLong(1, 1_000_000), random.nextLong(1, 1_000_000));
        }
        return new BloomSnapshot(256, first, last, edges, createdAt, "follow-events",
                Map.of(0, 17L, 1, 0L, 2, 123_456_789_012L), filter);
    }

    @Test
    void write_thenRead_returnsEveryFieldAndEveryEdge() throws IOException {
        SnapshotStore store = new SnapshotStore(dir, 3);
        Path file = store.write(snapshot(0, 127, T0, 42, 500));

        BloomSnapshot read = SnapshotStore.read(file);

        assertThat(read.logicalShards()).isEqualTo(256);
        assertThat(read.firstShard()).isZero();
        assertThat(read.lastShard()).isEqualTo(127);
        assertThat(read.edgeCount()).isEqualTo(500);
        assertThat(read.createdAt()).isEqualTo(T0);
        assertThat(read.topic()).isEqualTo("follow-events");
        assertThat(read.nextOffsets()).containsExactly(Map.entry(0, 17L), Map.entry(1, 0L),
                Map.entry(2, 123_456_789_012L));
        assertThat(read.filter().expectedEdges()).isEqualTo(1000);
        assertThat(read.filter().fpp()).isEqualTo(0.001);
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 500; i++) {
            assertThat(read.filter().mightContain(random.nextLong(1, 1_000_000), random.nextLong(1, 1_000_000)))
                    .isTrue();
        }
        assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
                .containsExactly("edges-00000-00127-001700000000000.gbf");
    }

    @Test
    void read_whenAnyByteIsChanged_rejectsTheFile() throws IOException {
        Path file = new SnapshotStore(dir, 1).write(snapshot(0, 255, T0, 1, 50));
        byte[] good = Files.readAllBytes(file);
        Path bad = dir.resolve("bad");
        for (int i = 0; i < good.length; i++) {
            byte[] copy = good.clone();
            copy[i] ^= (byte) (1 + (i % 255));
            Files.write(bad, copy);
            int at = i;
            assertThatThrownBy(() -> SnapshotStore.read(bad)).as("byte %d", at)
                    .isInstanceOf(CorruptSnapshotException.class).hasMessageContaining("rejected");
        }
    }

    @Test
    void read_whenTruncatedAnywhere_rejectsTheFile() throws IOException {
        Path file = new SnapshotStore(dir, 1).write(snapshot(0, 255, T0, 1, 50));
        byte[] good = Files.readAllBytes(file);
        Path bad = dir.resolve("bad");
        for (int length = 0; length < good.length; length++) {
            Files.write(bad, Arrays.copyOf(good, length));
            int at = length;
            assertThatThrownBy(() -> SnapshotStore.read(bad)).as("length %d", at)
                    .isInstanceOf(CorruptSnapshotException.class);
        }
        Files.write(bad, Arrays.copyOf(good, good.length + 1));
        assertThatThrownBy(() -> SnapshotStore.read(bad)).isInstanceOf(CorruptSnapshotException.class)
                .hasMessageContaining("after the checksum");
    }

    @Test
    void write_keepsTheNewestNOfEachShardRange() throws IOException {
        SnapshotStore store = new SnapshotStore(dir, 2);
        for (int i = 0; i < 4; i++) {
            store.write(snapshot(0, 127, T0 + i, i, 10));
            store.write(snapshot(128, 255, T0 + i, i, 10));
        }

        assertThat(store.files()).extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrder(
                "edges-00000-00127-001700000000003.gbf", "edges-00000-00127-001700000000002.gbf",
                "edges-00128-00255-001700000000003.gbf", "edges-00128-00255-001700000000002.gbf");
        try (var names = Files.list(dir)) {
            assertThat(names.filter(p -> p.toString().endsWith(".tmp"))).isEmpty();
        }
    }

    @Test
    void newestCovering_skipsCorruptAndNonCoveringSnapshots() throws IOException {
        SnapshotStore store = new SnapshotStore(dir, 5);
        store.write(snapshot(0, 255, T0, 1, 10));
        Path older = store.write(snapshot(0, 255, T0 + 1, 2, 10));
        Path newest = store.write(snapshot(0, 255, T0 + 3, 3, 10));
        store.write(snapshot(0, 127, T0 + 4, 4, 10)); // newer, but does not cover 0..255
        byte[] bytes = Files.readAllBytes(newest);
        Files.write(newest, Arrays.copyOf(bytes, bytes.length / 2)); // torn by hand, not by the writer

        List<Path> rejected = new ArrayList<>();
        BloomSnapshot chosen = store.newestCovering(256, 0, 255, (f, e) -> rejected.add(f)).orElseThrow();

        assertThat(chosen.createdAt()).isEqualTo(T0 + 1);
        assertThat(rejected).containsExactly(newest);
        assertThat(store.newestCovering(256, 0, 100, (f, e) -> { }).orElseThrow().createdAt()).isEqualTo(T0 + 4);
        assertThat(store.newestCovering(512, 0, 255, (f, e) -> { })).isEmpty();
        assertThat(SnapshotStore.read(older).createdAt()).isEqualTo(T0 + 1);
        assertThat(store.newestCreatedAt(0, 255)).hasValue(T0 + 3); // by name: not read, so not known to be bad
        assertThat(store.newestCreatedAt(0, 100)).hasValue(T0 + 4);
    }

    @Test
    void newestCovering_inAMissingDirectory_isEmpty() throws IOException {
        assertThat(new SnapshotStore(dir.resolve("none"), 1).newestCovering(256, 0, 255, (f, e) -> { })).isEmpty();
        assertThat(new SnapshotStore(dir.resolve("none"), 1).newestCreatedAt(0, 255)).isEmpty();
    }
}
