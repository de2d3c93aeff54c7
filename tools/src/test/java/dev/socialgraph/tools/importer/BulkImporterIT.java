package dev.socialgraph.tools.importer;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.store.CelebrityPage;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.FollowerRow;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.ShardMigrations;
import dev.socialgraph.store.Transactions;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.tools.edges.EdgeListFormatException;
import dev.socialgraph.tools.edges.EdgeListReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bulk importer against real PostgreSQL with two databases per group. */
class BulkImporterIT {

    private static final long T0 = EdgeListReader.BASE_FOLLOWED_AT;

    @TempDir
    Path dir;

    private TestShards shards;
    private ShardDataSources dataSources;
    private final FollowingRepository following = new FollowingRepository();
    private final FollowerRepository followers = new FollowerRepository();
    private final CelebrityPageRepository pages = new CelebrityPageRepository();

    @BeforeEach
    void setUp() {
        shards = TestShards.create("import");
        dataSources = new ShardDataSources(shards.shardMap(), new ShardDataSources.PoolSettings(
                shards.username(), shards.password(), 2, Duration.ofSeconds(5), "import-it"));
        ShardMigrations.migrateAll(dataSources);
    }

    @AfterEach
    void tearDown() {
        dataSources.close();
        shards.close();
    }

    private BulkImporter importer(long celebrityThreshold, int pageSize) {
        return new BulkImporter(dataSources, new BulkImporter.Settings(10_000, celebrityThreshold, pageSize),
                new BulkImporter.Listener() { });
    }

    private Path file(String content) throws IOException {
        Path f = dir.resolve("edges-" + System.nanoTime() + ".txt");
        Files.writeString(f, content);
        return f;
    }

    @Test
    void importFile_buildsBothSidesInTheDatabasesTheShardMapNames() throws Exception {
        // 1 -> 2, 1 -> 300 (shard 44), 300 -> 2, 2 -> 1, a self-loop and a duplicate.
        Path f = file("# test\n1\t300\n300\t2\n1\t2\n2\t1\n5\t5\n1\t300\n");
        ImportSummary summary = importer(1_000_000, 100_000).importFile(f);

        assertThat(summary.edgesRead()).isEqualTo(6);
        assertThat(summary.selfLoopsSkipped()).isEqualTo(1);
        assertThat(summary.duplicatesSkipped()).isEqualTo(1);
        assertThat(summary.edgesImported()).isEqualTo(4);
        assertThat(summary.users()).isEqualTo(3); // 1, 2, 300: user 5 had only a self-loop
        assertThat(summary.followingRows()).isEqualTo(3);
        assertThat(summary.followerRows()).isEqualTo(3);

        FollowingRow row1 = followingRow(1).orElseThrow();
        assertThat(row1.followingIds()).containsExactly(2, 300);
        assertThat(row1.followedAt()).containsExactly(T0 + 2, T0); // line order is arrival order
        assertThat(row1.version()).isEqualTo(1);
        assertThat(followingRow(5)).isEmpty();

        FollowerRow row2 = followerRow(2).orElseThrow();
        assertThat(row2.followerIds()).containsExactly(300, 1); // arrival order
        assertThat(row2.followedAt()).containsExactly(T0 + 1, T0 + 2);
        assertThat(row2.followerCount()).isEqualTo(2);
        assertThat(followerRow(300).orElseThrow().followerIds()).containsExactly(1);

        // Routing: user 300 is logical shard 44, so its rows sit in the first database of each group.
        var low = shards.shardMap().ranges(FOLLOWING).get(0);
        assertThat(shards.shardMap().route(FOLLOWING, 300)).isEqualTo(low);
        List<FollowingRow> inLow = Transactions.inTransaction(dataSources.forRange(low),
                c -> following.findAll(c, new long[] {1, 2, 300}));
        assertThat(inLow).extracting(FollowingRow::followerId).containsExactlyInAnyOrder(1L, 2L, 300L);
        var high = shards.shardMap().ranges(FOLLOWING).get(1);
        List<FollowingRow> inHigh = Transactions.inTransaction(dataSources.forRange(high),
                c -> following.findAll(c, new long[] {1, 2, 300}));
        assertThat(inHigh).isEmpty();
    }

    @Test
    void importFile_twice_changesNothing() throws Exception {
        Path f = file("1\t2\n2\t3\n3\t1\n1\t3\n");
        importer(1_000_000, 100_000).importFile(f);
        ImportSummary again = importer(1_000_000, 100_000).importFile(f);
        assertThat(again.followingChanged()).isZero();
        assertThat(again.followerChanged()).isZero();
        assertThat(followingRow(1).orElseThrow().version()).isEqualTo(1);
        assertThat(followerRow(3).orElseThrow().version()).isEqualTo(1);
    }

    @Test
    void importFile_ofAnotherGraph_replacesItAndOnlyRaisesVersions() throws Exception {
        importer(1_000_000, 100_000).importFile(file("1\t2\n3\t2\n"));
        ImportSummary second = importer(1_000_000, 100_000).importFile(file("1\t4\n"));
        assertThat(second.followingChanged()).isEqualTo(2); // 1 changed, 3 emptied
        FollowingRow row3 = followingRow(3).orElseThrow();
        assertThat(row3.followingIds()).isEmpty();
        assertThat(row3.version()).isEqualTo(2); // emptied, never deleted: versions only grow
        assertThat(followingRow(1).orElseThrow().followingIds()).containsExactly(4);
        FollowerRow row2 = followerRow(2).orElseThrow();
        assertThat(row2.followerIds()).isEmpty();
        assertThat(row2.followerCount()).isZero();
        assertThat(followerRow(4).orElseThrow().followerIds()).containsExactly(1);
    }

    @Test
    void importFile_withAMalformedLine_writesNothing() throws Exception {
        importer(1_000_000, 100_000).importFile(file("1\t2\n"));
        Path bad = file("7\t8\n9\tx\n");
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(bad))
                .isInstanceOf(EdgeListFormatException.class).hasMessageContaining(":2:");
        assertThat(followingRow(7)).isEmpty();
        assertThat(followingRow(1).orElseThrow().followingIds()).containsExactly(2);
    }

    @Test
    void importFile_aboveTheFollowingCap_writesNothing() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 2; i <= 10_002; i++) {
            sb.append(1).append('\t').append(i).append('\n');
        }
        Path f = file(sb.toString());
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(f))
                .isInstanceOf(ImportException.class).hasMessageContaining("user 1 follows 10001");
        assertThat(followingRow(1)).isEmpty();
    }

    @Test
    void importFile_putsTheFollowersOfACelebrityIntoPagesInArrivalOrder() throws Exception {
        long celebrity = 1000;
        StringBuilder sb = new StringBuilder();
        for (long follower = 20; follower >= 1; follower--) {  // arrival order is descending ids
            sb.append(follower).append('\t').append(celebrity).append('\n');
        }
        sb.append("1\t2\n");
        ImportSummary summary = importer(5, 6).importFile(file(sb.toString()));
        assertThat(summary.celebrities()).isEqualTo(1);
        assertThat(summary.celebrityPages()).isEqualTo(4); // 20 followers in pages of 6

        FollowerRow row = followerRow(celebrity).orElseThrow();
        assertThat(row.celebrity()).isTrue();
        assertThat(row.followerIds()).isEmpty();
        assertThat(row.followerCount()).isEqualTo(20);
        List<CelebrityPage> all = Transactions.inTransaction(dataSources.forUser(FOLLOWER, celebrity),
                c -> pages.all(c, celebrity));
        List<Long> ids = new ArrayList<>();
        for (CelebrityPage p : all) {
            for (long id : p.followerIds()) {
                ids.add(id);
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long follower = 20; follower >= 1; follower--) {
            expected.add(follower);
        }
        assertThat(ids).containsExactlyElementsOf(expected);
        assertThat(all.get(3).followerIds()).hasSize(2);
        // A small user stays a plain row.
        assertThat(followerRow(2).orElseThrow().celebrity()).isFalse();

        // Re-import below the threshold: pages go away, the row holds everyone again.
        importer(1_000, 6).importFile(file(sb.toString()));
        assertThat(followerRow(celebrity).orElseThrow().followerIds()).hasSize(20);
        List<CelebrityPage> after = Transactions.inTransaction(dataSources.forUser(FOLLOWER, celebrity),
                c -> pages.all(c, celebrity));
        assertThat(after).isEmpty();
    }

    @Test
    void importFile_ofAGeneratedGraph_storesExactlyItsEdges() throws Exception {
        var graph = dev.socialgraph.tools.generate.RmatGenerator.generate(2_000, 20_000, 10_000, 5, T0);
        StringBuilder sb = new StringBuilder();
        TreeMap<Long, TreeSet<Long>> model = new TreeMap<>();
        for (int i = 0; i < graph.size(); i++) {
            sb.append(graph.follower(i)).append('\t').append(graph.followee(i)).append('\n');
            model.computeIfAbsent(graph.follower(i), k -> new TreeSet<>()).add(graph.followee(i));
        }
        ImportSummary summary = importer(1_000_000, 100_000).importFile(file(sb.toString()));
        assertThat(summary.edgesImported()).isEqualTo(20_000);
        long stored = 0;
        for (var e : model.entrySet()) {
            FollowingRow row = followingRow(e.getKey()).orElseThrow();
            assertThat(row.followingIds()).containsExactly(e.getValue().stream().mapToLong(Long::longValue).toArray());
            stored += row.followingCount();
        }
        assertThat(stored).isEqualTo(20_000);
    }

    private Optional<FollowingRow> followingRow(long user) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(FOLLOWING, user), c -> following.find(c, user));
    }

    private Optional<FollowerRow> followerRow(long user) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(FOLLOWER, user), c -> followers.find(c, user));
    }
}
