package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.loadgen.Operation.Kind;
import dev.socialgraph.testsupport.PostgresServer;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

/** The peers load the same edges the fleet holds and answer from them, against real Redis and PostgreSQL. */
class PeersIT {

    // 1→2, 1→3, 2→3, 3→1; the self-loop 4→4 and the duplicate 1→2 are dropped, as the importer drops them.
    private static final EdgeList GRAPH =
            EdgeList.of(new long[] {1, 1, 2, 3, 4, 1}, new long[] {2, 3, 3, 1, 4, 2});

    @Test
    void redisPeer_loadsTheSetsOnceAndAnswersChecksAndWrites() throws Exception {
        RedisServer redis = TestServers.redis();
        String uri = redis.uri(redis.freshDatabase());
        try (RedisPeer peer = RedisPeer.open(uri, 2, GRAPH)) {
            assertThat(peer.contains(1, 2)).isTrue();
            assertThat(peer.contains(2, 1)).isFalse();
            assertThat(peer.contains(4, 4)).isFalse();
            assertThat(peer.supports(Kind.FOLLOWERS_PAGE)).isFalse();

            assertThat(peer.execute(Operation.of(Kind.FOLLOW, 2, 1)).get()).isEqualTo(Target.Outcome.OK);
            assertThat(peer.contains(2, 1)).isTrue();
            assertThat(peer.execute(new Operation(Kind.BATCH_CHECK, 1, 0, new long[] {2, 3, 4})).get())
                    .isEqualTo(Target.Outcome.OK);
            assertThat(peer.execute(Operation.of(Kind.UNFOLLOW, 2, 1)).get()).isEqualTo(Target.Outcome.OK);
            assertThat(peer.contains(2, 1)).isFalse();
        }
        // Reopening finds the marker and keeps the sets (a write made now survives the reopen).
        try (RedisPeer peer = RedisPeer.open(uri, 1, GRAPH)) {
            peer.execute(Operation.of(Kind.FOLLOW, 3, 2)).get();
        }
        try (RedisPeer peer = RedisPeer.open(uri, 1, GRAPH)) {
            assertThat(peer.contains(3, 2)).isTrue();
        }
    }

    @Test
    void postgresPeer_createsLoadsAndAnswersEveryKind() throws Exception {
        PostgresServer postgres = TestServers.postgres();
        String database = postgres.createDatabase("graph_bench_naive");
        String url = postgres.jdbcUrl(database);
        url += (url.contains("?") ? "&" : "?") + "user=" + postgres.username()
                + (postgres.password().isEmpty() ? "" : "&password=" + postgres.password());
        try (PostgresPeer peer = PostgresPeer.open(url, 2, GRAPH); Connection c = peer.connection()) {
            assertThat(PostgresPeer.run(c, Operation.of(Kind.CHECK, 1, 2))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.CHECK, 2, 1))).isFalse();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.CHECK, 4, 4))).isFalse();
            assertThat(PostgresPeer.run(c, new Operation(Kind.BATCH_CHECK, 1, 0, new long[] {3, 4}))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.FOLLOWERS_PAGE, 3, 0))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.FOLLOWING_PAGE, 4, 0))).isFalse();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.COUNTS, 3, 0))).isTrue();

            assertThat(PostgresPeer.run(c, Operation.of(Kind.FOLLOW, 2, 1))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.FOLLOW, 2, 1))).isFalse(); // ON CONFLICT DO NOTHING
            assertThat(PostgresPeer.run(c, Operation.of(Kind.CHECK, 2, 1))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.UNFOLLOW, 2, 1))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.CHECK, 2, 1))).isFalse();

            // A block removes the follows both ways; hidden authors see it from both sides.
            assertThat(PostgresPeer.run(c, Operation.of(Kind.FOLLOW, 2, 1))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.BLOCK, 1, 2))).isTrue();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.CHECK, 1, 2))).isFalse();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.CHECK, 2, 1))).isFalse();
            assertThat(PostgresPeer.run(c, new Operation(Kind.HIDDEN, 2, 0, new long[] {1, 3}))).isTrue();
            assertThat(PostgresPeer.run(c, new Operation(Kind.HIDDEN, 3, 0, new long[] {1, 2}))).isFalse();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.UNBLOCK, 1, 2))).isTrue();
            assertThat(PostgresPeer.run(c, new Operation(Kind.HIDDEN, 2, 0, new long[] {1}))).isFalse();
            assertThat(PostgresPeer.run(c, Operation.of(Kind.FOLLOW, 1, 2))).isTrue(); // restore the graph

            assertThat(peer.processes()).isNotEmpty().allSatisfy(p -> assertThat(p.pid()).isPositive());
            try (var s = c.createStatement(); var rs = s.executeQuery("SELECT count(*) FROM follows")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(4);
            }
        } finally {
            postgres.dropDatabase(database);
        }
    }
}
