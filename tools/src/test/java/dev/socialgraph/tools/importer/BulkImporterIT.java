package dev.socialgraph.tools.importer;

import static dev.socialgraph.common.shard.ShardGroup.FOLLOWER;
import static dev.socialgraph.common.shard.ShardGroup.FOLLOWING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.SnapshotStore;
import dev.socialgraph.common.edges.EdgeListFormatException;
import dev.socialgraph.common.edges.EdgeListParser;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.follower.FollowerSideWriter;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.tools.edges.EdgeListReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bulk importer against real PostgreSQL with two databases per group, and real Kafka for its snapshots. */
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
    void importFile_writesTheCelebrityPagesTheLivePathWritesForTheSameEdges_byteForByte() throws Exception {
        // The importer and the cdc-consumer must leave a celebrity's pages in one layout: the check service's walk and
        // every later event read them alike. Both relations that keep pages, at threshold 5 in pages of 6.
        long celebrity = 1000;
        long blocked = 2000;
        StringBuilder sb = new StringBuilder();
        for (long follower = 20; follower >= 1; follower--) { // edge index 0..19: arrival order is descending ids
            sb.append(follower).append('\t').append(celebrity).append('\n');
        }
        for (long blocker = 101; blocker <= 114; blocker++) { // edge index 20..33
            sb.append(blocker).append('\t').append(blocked).append("\tblock\n");
        }
        importer(5, 6).importFile(file(sb.toString()));

        // The live path: the same edges, at the times the importer gave them, as events through graph-store's
        // FollowerSideWriter (the cdc-consumer's write), one event per batch and all in one batch, for followees the
        // file does not name.
        long[] followers = new long[20];
        long[] followTimes = new long[20];
        for (int i = 0; i < 20; i++) {
            followers[i] = 20 - i;
            followTimes[i] = T0 + i;
        }
        long[] blockers = new long[14];
        long[] blockTimes = new long[14];
        for (int i = 0; i < 14; i++) {
            blockers[i] = 101 + i;
            blockTimes[i] = T0 + 20 + i;
        }
        applyLive(Relation.FOLLOW, 1001, followers, followTimes, 1);
        applyLive(Relation.FOLLOW, 1002, followers, followTimes, followers.length);
        applyLive(Relation.BLOCK, 2001, blockers, blockTimes, 1);
        applyLive(Relation.BLOCK, 2002, blockers, blockTimes, blockers.length);

        List<String> imported = storedFollowerSide(Relation.FOLLOW, celebrity);
        assertThat(imported).hasSize(5).first().isEqualTo("20|true|{}|{}"); // the row, then 4 pages
        assertThat(imported.get(1)).isEqualTo("0|{20,19,18,17,16,15}|{" + (T0) + "," + (T0 + 1) + "," + (T0 + 2)
                + "," + (T0 + 3) + "," + (T0 + 4) + "," + (T0 + 5) + "}|" + T0 + "|" + (T0 + 5));
        assertThat(storedFollowerSide(Relation.FOLLOW, 1001)).isEqualTo(imported);
        assertThat(storedFollowerSide(Relation.FOLLOW, 1002)).isEqualTo(imported);
        List<String> importedBlocks = storedFollowerSide(Relation.BLOCK, blocked);
        assertThat(importedBlocks).hasSize(4).first().isEqualTo("14|true|{}|{}"); // pages of 6, 6 and 2
        assertThat(storedFollowerSide(Relation.BLOCK, 2001)).isEqualTo(importedBlocks);
        assertThat(storedFollowerSide(Relation.BLOCK, 2002)).isEqualTo(importedBlocks);
    }

    /** Applies follows of {@code followee} as the cdc-consumer does, {@code batch} events per transaction. */
    private void applyLive(Relation relation, long followee, long[] ids, long[] times, int batch) throws SQLException {
        FollowerSideWriter writer = new FollowerSideWriter(relation);
        for (int from = 0; from < ids.length; from += batch) {
            int to = Math.min(ids.length, from + batch);
            boolean[] adds = new boolean[to - from];
            java.util.Arrays.fill(adds, true);
            long[] batchIds = java.util.Arrays.copyOfRange(ids, from, to);
            long[] batchTimes = java.util.Arrays.copyOfRange(times, from, to);
            Transactions.inTransaction(dataSources.forUser(FOLLOWER, followee),
                    c -> writer.apply(c, followee, batchIds, batchTimes, adds, 5, 6));
        }
    }

    /**
     * A followee's follower side as PostgreSQL prints it, without its id: the row ({@code count|celebrity|ids|times}),
     * then each page ({@code page_num|ids|times|min|max}) in page order.
     */
    private List<String> storedFollowerSide(Relation relation, long followee) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(FOLLOWER, followee), c -> {
            List<String> lines = new ArrayList<>();
            try (var row = c.prepareStatement("""
                    SELECT follower_count || '|' || celebrity || '|' || follower_ids::text || '|' || followed_at::text
                      FROM follower_adjacency WHERE followee_id = ? AND relation = ?
                    """);
                 var pageRows = c.prepareStatement("""
                    SELECT page_num || '|' || follower_ids::text || '|' || followed_at::text || '|'
                           || min_followed_at || '|' || max_followed_at
                      FROM celebrity_followers_page WHERE followee_id = ? AND relation = ? ORDER BY page_num
                    """)) {
                for (var ps : List.of(row, pageRows)) {
                    ps.setLong(1, followee);
                    ps.setShort(2, relation.code());
                    try (var rs = ps.executeQuery()) {
                        while (rs.next()) {
                            lines.add(rs.getString(1));
                        }
                    }
                }
            }
            return lines;
        });
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

    // ---- blocks and mutes ------------------------------------------------------------------------------

    /** A user whose rows sit in the second database of each group (logical shard >= 128). */
    private long highUser() {
        for (long id = 1_000; ; id++) {
            if (shards.shardMap().route(FOLLOWING, id).equals(shards.shardMap().ranges(FOLLOWING).get(1))
                    && shards.shardMap().route(FOLLOWER, id).equals(shards.shardMap().ranges(FOLLOWER).get(1))) {
                return id;
            }
        }
    }

    /**
     * Follows, blocks and mutes among 1, 2, 300 (first databases) and {@code h} (second databases). Line i (0-based,
     * comments aside) is at T0 + i. Blocks H→1, H→2 and 300→1 forbid the follows 1→H, 2→H and 300→1.
     */
    private static String mixedGraph(long h) {
        return "# source target relation\n"
                + "1\t2\n"                    // T0      follow
                + h + "\t1\tblock\n"        // T0 + 1  block
                + "1\t" + h + "\tmute\n"    // T0 + 2  mute
                + "2\t" + h + "\n"           // T0 + 3  follow, forbidden: H blocks 2
                + h + "\t2\tblock\n"        // T0 + 4  block
                + "1 " + h + " follow\n"      // T0 + 5  follow, forbidden: H blocks 1 (the other direction)
                + "300\t1\tblock\n"         // T0 + 6  block
                + "300\t1\n"                 // T0 + 7  follow, forbidden: 300 blocks 1 (the same direction)
                + "2\t2\tblock\n"           // T0 + 8  self-loop
                + h + "\t1\tblock\n"        // T0 + 9  duplicate
                + "300\t2\tmute\n"          // T0 + 10 mute
                + "2\t300\n";                // T0 + 11 follow
    }

    @Test
    void importFile_withFollowsBlocksAndMutes_writesEachRelationsRowsInTheDatabasesTheShardMapNames() throws Exception {
        long h = highUser();
        ImportSummary summary = importer(1_000_000, 100_000).importFile(file(mixedGraph(h)));

        assertThat(summary.edgesRead()).isEqualTo(5);
        assertThat(summary.followsForbiddenByBlock()).isEqualTo(3);
        assertThat(summary.edgesImported()).isEqualTo(2);
        assertThat(summary.users()).isEqualTo(4);
        assertThat(summary.counts(Relation.BLOCK)).isEqualTo(
                new ImportSummary.RelationCounts(5, 1, 1, true, 3, 2, 2, 2, 2, 0, 0));
        assertThat(summary.counts(Relation.MUTE)).isEqualTo(
                new ImportSummary.RelationCounts(2, 0, 0, true, 2, 2, 2, 0, 0, 0, 0));
        assertThat(summary.report()).contains("forbidden by block").contains("block").contains("mute");

        // Follows: only those no block forbids.
        assertThat(followingRow(Relation.FOLLOW, 1).orElseThrow().followingIds()).containsExactly(2);
        assertThat(followingRow(Relation.FOLLOW, 2).orElseThrow().followingIds()).containsExactly(300);
        assertThat(followingRow(Relation.FOLLOW, 300)).isEmpty();
        assertThat(followingRow(Relation.FOLLOW, h)).isEmpty();
        assertThat(followerRow(Relation.FOLLOW, h)).isEmpty();
        assertThat(followerRow(Relation.FOLLOW, 1)).isEmpty();

        // Blocks: the blocker's row, ids ascending, with each line's time.
        FollowingRow blocksOfH = followingRow(Relation.BLOCK, h).orElseThrow();
        assertThat(blocksOfH.followingIds()).containsExactly(1, 2);
        assertThat(blocksOfH.followedAt()).containsExactly(T0 + 1, T0 + 4); // the first of the duplicates
        assertThat(blocksOfH.version()).isEqualTo(1);
        assertThat(followingRow(Relation.BLOCK, 300).orElseThrow().followingIds()).containsExactly(1);
        assertThat(followingRow(Relation.BLOCK, 2)).isEmpty(); // its only line was a self-loop
        // The blocked-by side, in arrival order like followers.
        FollowerRow blockersOf1 = followerRow(Relation.BLOCK, 1).orElseThrow();
        assertThat(blockersOf1.followerIds()).containsExactly(h, 300);
        assertThat(blockersOf1.followedAt()).containsExactly(T0 + 1, T0 + 6);
        assertThat(blockersOf1.followerCount()).isEqualTo(2);
        assertThat(blockersOf1.celebrity()).isFalse();
        assertThat(followerRow(Relation.BLOCK, 2).orElseThrow().followerIds()).containsExactly(h);

        // Mutes: the muter's row only; no reverse side anywhere.
        FollowingRow mutesOf1 = followingRow(Relation.MUTE, 1).orElseThrow();
        assertThat(mutesOf1.followingIds()).containsExactly(h);
        assertThat(mutesOf1.followedAt()).containsExactly(T0 + 2);
        assertThat(followingRow(Relation.MUTE, 300).orElseThrow().followedAt()).containsExactly(T0 + 10);
        for (var range : shards.shardMap().ranges(FOLLOWER)) {
            assertThat(count(range, "SELECT count(*) FROM follower_adjacency WHERE relation = 2")).isZero();
            assertThat(count(range, "SELECT count(*) FROM celebrity_followers_page")).isZero();
        }

        // Routing: H's rows sit in the second databases, 1's and 300's in the first.
        var lowFollowing = shards.shardMap().ranges(FOLLOWING).get(0);
        var highFollowing = shards.shardMap().ranges(FOLLOWING).get(1);
        assertThat(count(highFollowing, "SELECT count(*) FROM following_adjacency WHERE relation = 1 AND follower_id = "
                + h)).isEqualTo(1);
        assertThat(count(lowFollowing, "SELECT count(*) FROM following_adjacency WHERE relation = 1")).isEqualTo(1);
        assertThat(count(lowFollowing, "SELECT count(*) FROM following_adjacency WHERE relation = 2")).isEqualTo(2);
        assertThat(count(highFollowing, "SELECT count(*) FROM following_adjacency WHERE relation = 2")).isZero();
        var lowFollower = shards.shardMap().ranges(FOLLOWER).get(0);
        assertThat(count(lowFollower, "SELECT count(*) FROM follower_adjacency WHERE relation = 1")).isEqualTo(2);
    }

    @Test
    void importFile_withEveryRelation_twice_changesNothing() throws Exception {
        long h = highUser();
        Path f = file(mixedGraph(h));
        importer(2, 1).importFile(f); // threshold 2: user 1's blocked-by side goes to pages as well
        ImportSummary again = importer(2, 1).importFile(f);

        for (Relation relation : EdgeListParser.relations()) {
            ImportSummary.RelationCounts counts = again.counts(relation);
            assertThat(counts.replaced()).as(relation.wireName()).isTrue();
            assertThat(counts.followingChanged()).as(relation.wireName()).isZero();
            assertThat(counts.followerChanged()).as(relation.wireName()).isZero();
        }
        assertThat(again.counts(Relation.BLOCK).celebrities()).isEqualTo(1);
        assertThat(again.counts(Relation.BLOCK).celebrityPages()).isEqualTo(2);
        assertThat(followingRow(Relation.FOLLOW, 1).orElseThrow().version()).isEqualTo(1);
        assertThat(followingRow(Relation.BLOCK, h).orElseThrow().version()).isEqualTo(1);
        assertThat(followingRow(Relation.MUTE, 1).orElseThrow().version()).isEqualTo(1);
        assertThat(followerRow(Relation.BLOCK, 1).orElseThrow().version()).isEqualTo(1);
        assertThat(followerRow(Relation.BLOCK, 2).orElseThrow().version()).isEqualTo(1);
        assertThat(blockPages(1)).extracting(CelebrityPage::followerIds)
                .containsExactly(new long[] {h}, new long[] {300});
    }

    @Test
    void importFile_ofABlockedUserAboveTheCelebrityThreshold_putsItsBlockersIntoPagesInArrivalOrder() throws Exception {
        long blocked = 1000;
        StringBuilder sb = new StringBuilder();
        for (long blocker = 20; blocker >= 1; blocker--) {  // arrival order is descending ids
            sb.append(blocker).append('\t').append(blocked).append("\tblock\n");
        }
        sb.append("30\t").append(blocked).append('\n');    // a follower, below the threshold
        sb.append("31\t").append(blocked).append("\tmute\n");
        ImportSummary summary = importer(5, 6).importFile(file(sb.toString()));
        assertThat(summary.counts(Relation.BLOCK).celebrities()).isEqualTo(1);
        assertThat(summary.counts(Relation.BLOCK).celebrityPages()).isEqualTo(4); // 20 blockers in pages of 6
        assertThat(summary.celebrities()).isZero();

        FollowerRow row = followerRow(Relation.BLOCK, blocked).orElseThrow();
        assertThat(row.celebrity()).isTrue();
        assertThat(row.followerIds()).isEmpty();
        assertThat(row.followerCount()).isEqualTo(20);
        List<CelebrityPage> all = blockPages(blocked);
        assertThat(all).extracting(CelebrityPage::pageNum).containsExactly(0, 1, 2, 3);
        List<Long> ids = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        for (CelebrityPage p : all) {
            for (int i = 0; i < p.followerIds().length; i++) {
                ids.add(p.followerIds()[i]);
                times.add(p.followedAt()[i]);
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long blocker = 20; blocker >= 1; blocker--) {
            expected.add(blocker);
        }
        assertThat(ids).containsExactlyElementsOf(expected);
        assertThat(times).first().isEqualTo(T0);
        assertThat(times).last().isEqualTo(T0 + 19);
        // The follows of the same user are a plain row and have no pages.
        FollowerRow followers1000 = followerRow(Relation.FOLLOW, blocked).orElseThrow();
        assertThat(followers1000.celebrity()).isFalse();
        assertThat(followers1000.followerIds()).containsExactly(30);
        List<CelebrityPage> followPages = Transactions.inTransaction(dataSources.forUser(FOLLOWER, blocked),
                c -> pages.all(c, blocked));
        assertThat(followPages).isEmpty();

        // A changed block set below the threshold: the pages go, the row holds the blockers again.
        importer(5, 6).importFile(file("3\t" + blocked + "\tblock\n1\t" + blocked + "\tblock\n40\t41\n"));
        FollowerRow after = followerRow(Relation.BLOCK, blocked).orElseThrow();
        assertThat(after.celebrity()).isFalse();
        assertThat(after.followerIds()).containsExactly(3, 1);
        assertThat(after.version()).isEqualTo(2);
        assertThat(blockPages(blocked)).isEmpty();
        // Follows were replaced by the file's (one, elsewhere); the mutes, absent from it, stay.
        assertThat(followerRow(Relation.FOLLOW, blocked).orElseThrow().followerIds()).isEmpty();
        assertThat(followingRow(Relation.FOLLOW, 40).orElseThrow().followingIds()).containsExactly(41);
        assertThat(followingRow(Relation.MUTE, 31).orElseThrow().followingIds()).containsExactly(blocked);
    }

    @Test
    void importFile_ofFollowsOnly_leavesTheStoredBlocksAndMutesAlone_andDropsTheFollowsTheyForbid() throws Exception {
        long h = highUser();
        importer(1_000_000, 100_000).importFile(file(mixedGraph(h)));

        // 1 -> H and 300 -> 1 are forbidden by the stored blocks H -> 1 and 300 -> 1; 1 -> 2 is unchanged.
        ImportSummary summary = importer(1_000_000, 100_000)
                .importFile(file("1\t2\n1\t" + h + "\n300\t1\n5\t6\n"));
        assertThat(summary.counts(Relation.BLOCK)).isEqualTo(ImportSummary.RelationCounts.keptAsStored());
        assertThat(summary.counts(Relation.MUTE).replaced()).isFalse();
        assertThat(summary.followsForbiddenByBlock()).isEqualTo(2);
        assertThat(summary.edgesImported()).isEqualTo(2);
        assertThat(summary.report()).contains("kept");

        FollowingRow blocksOfH = followingRow(Relation.BLOCK, h).orElseThrow();
        assertThat(blocksOfH.followingIds()).containsExactly(1, 2);
        assertThat(blocksOfH.version()).isEqualTo(1);
        assertThat(followingRow(Relation.BLOCK, 300).orElseThrow().version()).isEqualTo(1);
        FollowerRow blockersOf1 = followerRow(Relation.BLOCK, 1).orElseThrow();
        assertThat(blockersOf1.followerIds()).containsExactly(h, 300);
        assertThat(blockersOf1.version()).isEqualTo(1);
        FollowingRow mutesOf1 = followingRow(Relation.MUTE, 1).orElseThrow();
        assertThat(mutesOf1.followingIds()).containsExactly(h);
        assertThat(mutesOf1.version()).isEqualTo(1);

        // The follows are the new file's: 2 -> 300 emptied (version 2), 1 -> 2 untouched, 5 -> 6 new.
        FollowingRow follows1 = followingRow(Relation.FOLLOW, 1).orElseThrow();
        assertThat(follows1.followingIds()).containsExactly(2);
        assertThat(follows1.version()).isEqualTo(1);
        FollowingRow follows2 = followingRow(Relation.FOLLOW, 2).orElseThrow();
        assertThat(follows2.followingIds()).isEmpty();
        assertThat(follows2.version()).isEqualTo(2);
        assertThat(followingRow(Relation.FOLLOW, 300)).isEmpty();
        assertThat(followingRow(Relation.FOLLOW, 5).orElseThrow().followingIds()).containsExactly(6);
        assertThat(followerRow(Relation.FOLLOW, 1)).isEmpty();
    }

    @Test
    void importFile_withAChangedBlockSet_replacesTheBlocksAndKeepsTheMutes() throws Exception {
        long h = highUser();
        importer(1_000_000, 100_000).importFile(file(mixedGraph(h)));

        // Now only 300 blocks 2, and 1 -> H may be followed again.
        ImportSummary summary = importer(1_000_000, 100_000)
                .importFile(file("1\t" + h + "\n300\t2\tblock\n2\t300\n"));
        assertThat(summary.followsForbiddenByBlock()).isEqualTo(1); // 2 -> 300
        ImportSummary.RelationCounts blocks = summary.counts(Relation.BLOCK);
        assertThat(blocks.replaced()).isTrue();
        assertThat(blocks.edgesImported()).isEqualTo(1);
        assertThat(blocks.followingChanged()).isEqualTo(2); // H emptied, 300 changed
        assertThat(blocks.followerChanged()).isEqualTo(2);  // 1 emptied, 2 changed

        FollowingRow blocksOfH = followingRow(Relation.BLOCK, h).orElseThrow();
        assertThat(blocksOfH.followingIds()).isEmpty();
        assertThat(blocksOfH.version()).isEqualTo(2); // emptied, never deleted: versions only grow
        FollowingRow blocksOf300 = followingRow(Relation.BLOCK, 300).orElseThrow();
        assertThat(blocksOf300.followingIds()).containsExactly(2);
        assertThat(blocksOf300.followedAt()).containsExactly(T0 + 1);
        assertThat(blocksOf300.version()).isEqualTo(2);
        FollowerRow blockersOf1 = followerRow(Relation.BLOCK, 1).orElseThrow();
        assertThat(blockersOf1.followerIds()).isEmpty();
        assertThat(blockersOf1.followerCount()).isZero();
        assertThat(blockersOf1.version()).isEqualTo(2);
        FollowerRow blockersOf2 = followerRow(Relation.BLOCK, 2).orElseThrow();
        assertThat(blockersOf2.followerIds()).containsExactly(300);
        assertThat(blockersOf2.version()).isEqualTo(2);

        assertThat(followingRow(Relation.FOLLOW, 1).orElseThrow().followingIds()).containsExactly(h);
        assertThat(followerRow(Relation.FOLLOW, h).orElseThrow().followerIds()).containsExactly(1);
        assertThat(followingRow(Relation.FOLLOW, 2).orElseThrow().followingIds()).isEmpty();
        assertThat(followingRow(Relation.MUTE, 1).orElseThrow().followingIds()).containsExactly(h);
        assertThat(followingRow(Relation.MUTE, 1).orElseThrow().version()).isEqualTo(1);
        assertThat(followingRow(Relation.MUTE, 300).orElseThrow().version()).isEqualTo(1);
    }

    @Test
    void importFile_withBlocksButNoFollows_isRefused_andWritesNothing() throws Exception {
        importer(1_000_000, 100_000).importFile(file("1\t2\n"));
        Path f = file("3\t4\tblock\n5\t6\tmute\n");
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(f))
                .isInstanceOf(ImportException.class)
                .hasMessageContaining("no follow line");
        assertThat(followingRow(Relation.FOLLOW, 1).orElseThrow().followingIds()).containsExactly(2);
        assertThat(followingRow(Relation.BLOCK, 3)).isEmpty();
    }

    @Test
    void importFile_aboveTheBlockCap_writesNothing() throws Exception {
        StringBuilder sb = new StringBuilder("1\t2\n");
        for (int i = 10; i <= Relation.BLOCK.cap() + 10; i++) { // 50,001 targets, none the blocker itself
            sb.append(7).append('\t').append(i).append("\tblock\n");
        }
        Path f = file(sb.toString());
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(f))
                .isInstanceOf(ImportException.class)
                .hasMessageContaining("user 7 blocks 50001 users, above the block cap of 50000");
        assertThat(followingRow(Relation.FOLLOW, 1)).isEmpty();
        assertThat(followingRow(Relation.BLOCK, 7)).isEmpty();
    }

    @Test
    void importFile_whenALaterRelationFailsInADatabase_keepsThatDatabasesEarlierRelationsOld() throws Exception {
        importer(1_000_000, 100_000).importFile(file("1\t2\n"));
        var lowFollowing = shards.shardMap().ranges(FOLLOWING).get(0);
        // Mutes are merged after follows in the same transaction: make their merge fail in the first database.
        Transactions.inTransaction(dataSources.forRange(lowFollowing), c -> {
            try (var st = c.createStatement()) {
                st.execute("""
                        CREATE FUNCTION refuse_mutes() RETURNS trigger LANGUAGE plpgsql AS
                        $$ BEGIN RAISE EXCEPTION 'mutes refused by the test'; END $$""");
                st.execute("""
                        CREATE TRIGGER refuse_mutes BEFORE INSERT ON following_adjacency
                        FOR EACH ROW WHEN (NEW.relation = 2) EXECUTE FUNCTION refuse_mutes()""");
            }
            return null;
        });
        Path f = file("1\t300\n300\t2\tmute\n");
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(f))
                .isInstanceOf(SQLException.class).hasMessageContaining("mutes refused by the test");
        FollowingRow follows1 = followingRow(Relation.FOLLOW, 1).orElseThrow();
        assertThat(follows1.followingIds()).containsExactly(2);
        assertThat(follows1.version()).isEqualTo(1);
        assertThat(followingRow(Relation.MUTE, 300)).isEmpty();
        assertThat(followerRow(Relation.FOLLOW, 300)).isEmpty(); // the follower group comes after: not reached
    }

    private Optional<FollowingRow> followingRow(Relation relation, long user) throws SQLException {
        FollowingRepository repository = new FollowingRepository(relation);
        return Transactions.inTransaction(dataSources.forUser(FOLLOWING, user), c -> repository.find(c, user));
    }

    private Optional<FollowerRow> followerRow(Relation relation, long user) throws SQLException {
        FollowerRepository repository = new FollowerRepository(relation);
        return Transactions.inTransaction(dataSources.forUser(FOLLOWER, user), c -> repository.find(c, user));
    }

    private List<CelebrityPage> blockPages(long user) throws SQLException {
        CelebrityPageRepository repository = new CelebrityPageRepository(Relation.BLOCK);
        return Transactions.inTransaction(dataSources.forUser(FOLLOWER, user), c -> repository.all(c, user));
    }

    private long count(dev.socialgraph.common.shard.ShardRange range, String sql) throws SQLException {
        return Transactions.inTransaction(dataSources.forRange(range), c -> {
            try (var st = c.createStatement(); var rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    // ---- bloom snapshot --------------------------------------------------------------------------------

    /** Settings as the command line builds them, but sized for exactly this graph so the fpp bound is meaningful. */
    private SnapshotSettings snapshotSettings(Path snapshots, double fpp, String bootstrap, String topic) {
        // Minimum 1 instead of the services' 1,000,000: 20,000 edges in a filter sized for a million would show
        // no false positives at all, and the bound below could not fail.
        return new SnapshotSettings(new SnapshotStore(snapshots, 3), fpp, SnapshotSettings.DEFAULT_GROWTH, 1,
                new TopicOffsets(bootstrap, topic, 12, Duration.ofSeconds(30)));
    }

    @Test
    void importFile_withASnapshot_writesAFilterOfEveryEdgeAtTheTopicsEndOffsetsBeforeTheImport() throws Exception {
        KafkaServer kafka = TestServers.kafka();
        String topic = kafka.createTopic("follow-events", 3);
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "before-" + i)).get();
            }
            for (int i = 0; i < 2; i++) {
                producer.send(new ProducerRecord<>(topic, 2, "k", "before-" + i)).get();
            }
        }
        assertThat(endOffsets(kafka, topic)).containsExactly(entry(0, 3L), entry(1, 0L), entry(2, 2L));

        var graph = dev.socialgraph.tools.generate.RmatGenerator.generate(2_000, 20_000, 10_000, 7, T0);
        StringBuilder sb = new StringBuilder();
        Set<Long> present = new HashSet<>();
        for (int i = 0; i < graph.size(); i++) {
            sb.append(graph.follower(i)).append('\t').append(graph.followee(i)).append('\n');
            present.add(graph.follower(i) * 1_000_000L + graph.followee(i));
        }
        sb.append("9\t9\n"); // a self-loop: not an edge, not in the filter's count
        Path snapshots = dir.resolve("snapshots");
        double fpp = 0.01;
        ImportSummary summary = importer(1_000_000, 100_000).importFile(file(sb.toString()),
                snapshotSettings(snapshots, fpp, kafka.bootstrapServers(), topic));

        ImportSummary.Snapshot written = summary.snapshot().orElseThrow();
        assertThat(written.file()).exists().hasParent(snapshots);
        assertThat(written.bytes()).isEqualTo(Files.size(written.file()));
        assertThat(written.edges()).isEqualTo(20_000);
        assertThat(written.expectedEdges()).isEqualTo(30_000); // 20,000 x growth 1.5
        assertThat(written.nextOffsets()).containsExactly(entry(0, 3L), entry(1, 0L), entry(2, 2L));
        assertThat(written.eventsBefore()).isEqualTo(5);
        // The offsets are read after validating the file and before the first database commits.
        // The file has no block line, so the stored blocks stand and are read to drop the follows they forbid.
        assertThat(List.copyOf(summary.phases().keySet())).containsExactly("read", "stored blocks", "sort",
                "event offsets", "following shards", "follower shards", "bloom snapshot");
        assertThat(summary.report()).contains("bloom snapshot       " + written.file())
                .contains(String.format("%,d bytes", written.bytes()));

        // Read back as the check service does: the newest valid snapshot covering every shard.
        BloomSnapshot read = new SnapshotStore(snapshots, 3)
                .newestCovering(256, 0, 255, (f, e) -> { throw new AssertionError(f + ": " + e); }).orElseThrow();
        assertThat(SnapshotStore.read(written.file()).createdAt()).isEqualTo(read.createdAt());
        assertThat(read.logicalShards()).isEqualTo(256);
        assertThat(read.firstShard()).isZero();
        assertThat(read.lastShard()).isEqualTo(255);
        assertThat(read.edgeCount()).isEqualTo(20_000);
        assertThat(read.topic()).isEqualTo(topic);
        assertThat(read.nextOffsets()).containsExactly(entry(0, 3L), entry(1, 0L), entry(2, 2L));
        assertThat(read.filter().fpp()).isEqualTo(fpp);
        for (int i = 0; i < graph.size(); i++) {
            if (!read.filter().mightContain(graph.follower(i), graph.followee(i))) {
                throw new AssertionError("edge " + graph.follower(i) + " -> " + graph.followee(i) + " missing");
            }
        }
        // False positives on absent pairs among the same users: at 2/3 of its size the filter's theoretical rate
        // is ~0.0013 (k = 7 hashes, 14.4 bits per edge), so the target fpp is a loose upper bound.
        SplittableRandom random = new SplittableRandom(11);
        int samples = 0;
        int falsePositives = 0;
        while (samples < 100_000) {
            long a = 1 + random.nextLong(2_000);
            long b = 1 + random.nextLong(2_000);
            if (a == b || present.contains(a * 1_000_000L + b)) {
                continue;
            }
            samples++;
            if (read.filter().mightContain(a, b)) {
                falsePositives++;
            }
        }
        assertThat((double) falsePositives / samples).isLessThan(fpp);
    }

    @Test
    void importFile_withASnapshotOfAMissingTopic_createsItWithThePartitionsAsked() throws Exception {
        KafkaServer kafka = TestServers.kafka();
        String topic = "follow-events-absent-" + System.nanoTime();
        SnapshotSettings settings = new SnapshotSettings(new SnapshotStore(dir.resolve("s"), 3), 0.001, 1.5,
                1_000_000, new TopicOffsets(kafka.bootstrapServers(), topic, 4, Duration.ofSeconds(30)));
        ImportSummary summary = importer(1_000_000, 100_000).importFile(file("1\t2\n2\t1\n"), settings);

        ImportSummary.Snapshot written = summary.snapshot().orElseThrow();
        assertThat(written.nextOffsets()).containsExactly(entry(0, 0L), entry(1, 0L), entry(2, 0L), entry(3, 0L));
        assertThat(written.expectedEdges()).isEqualTo(1_000_000); // the services' minimum
        assertThat(endOffsets(kafka, topic)).hasSize(4);
        BloomSnapshot read = SnapshotStore.read(written.file());
        assertThat(read.filter().mightContain(1, 2)).isTrue();
        assertThat(read.filter().mightContain(2, 1)).isTrue();
    }

    @Test
    void importFile_withASnapshotAndKafkaUnreachable_writesNothing() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + closedPort;
        Path snapshots = dir.resolve("none");
        SnapshotSettings settings = new SnapshotSettings(new SnapshotStore(snapshots, 3), 0.001, 1.5, 1_000_000,
                new TopicOffsets(bootstrap, "follow-events", 12, Duration.ofSeconds(2)));
        Path f = file("1\t2\n");
        assertThatThrownBy(() -> importer(1_000_000, 100_000).importFile(f, settings))
                .isInstanceOf(ImportException.class)
                .hasMessageContaining("'follow-events'").hasMessageContaining(bootstrap);
        assertThat(followingRow(1)).isEmpty();
        assertThat(snapshots).doesNotExist();
    }

    private static KafkaProducer<String, String> producer(KafkaServer kafka) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(config);
    }

    /** The topic's end offsets as a consumer sees them, partition → next offset. */
    private static Map<Integer, Long> endOffsets(KafkaServer kafka, String topic) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            Map<Integer, Long> out = new TreeMap<>();
            consumer.endOffsets(partitions, Duration.ofSeconds(30)).forEach((tp, o) -> out.put(tp.partition(), o));
            return out;
        }
    }

    private Optional<FollowingRow> followingRow(long user) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(FOLLOWING, user), c -> following.find(c, user));
    }

    private Optional<FollowerRow> followerRow(long user) throws SQLException {
        return Transactions.inTransaction(dataSources.forUser(FOLLOWER, user), c -> followers.find(c, user));
    }
}
