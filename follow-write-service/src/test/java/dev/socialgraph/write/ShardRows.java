package dev.socialgraph.write;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** Reads of the shard databases for assertions, through the repositories where they have a method. */
final class ShardRows {

    private final ShardDataSources dataSources;
    private final FollowingRepository following = new FollowingRepository();
    private final OutboxRepository outbox = new OutboxRepository();

    ShardRows(ShardDataSources dataSources) {
        this.dataSources = dataSources;
    }

    /** The row of {@code relation} of {@code userId}, from the database the shard map names. */
    Optional<FollowingRow> row(Relation relation, long userId) {
        return query(dataSources.forUser(ShardGroup.FOLLOWING, userId),
                c -> new FollowingRepository(relation).find(c, userId));
    }

    Optional<FollowingRow> followingRow(long followerId) {
        return query(dataSources.forUser(ShardGroup.FOLLOWING, followerId), c -> following.find(c, followerId));
    }

    /** Whether any database other than the one the map names holds a following row of {@code followerId}. */
    boolean followingRowElsewhere(long followerId) {
        DataSource home = dataSources.forUser(ShardGroup.FOLLOWING, followerId);
        for (DataSource ds : dataSources.all().values()) {
            if (ds != home && query(ds, c -> following.find(c, followerId)).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** The outbox rows of {@code followerId}, in id order, from the follower's database. */
    List<OutboxEntry> outboxOf(long followerId) {
        List<OutboxEntry> rows = new ArrayList<>();
        for (OutboxEntry e : allOutbox(dataSources.forUser(ShardGroup.FOLLOWING, followerId))) {
            if (e.followerId() == followerId) {
                rows.add(e);
            }
        }
        return rows;
    }

    List<OutboxEntry> allOutbox(DataSource ds) {
        return query(ds, c -> outbox.after(c, 0, Integer.MAX_VALUE));
    }

    /** Total rows of following_adjacency plus follow_outbox over every database: a "nothing written" check. */
    long totalRows() {
        long total = 0;
        for (DataSource ds : dataSources.all().values()) {
            total += query(ds, c -> count(c, "SELECT (SELECT count(*) FROM following_adjacency)"
                    + " + (SELECT count(*) FROM follow_outbox) + (SELECT coalesce(sum(version), 0)"
                    + " FROM following_adjacency)"));
        }
        return total;
    }

    long count(DataSource ds, String sql) {
        return query(ds, c -> count(c, sql));
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    interface Query<T> {
        T run(Connection c) throws SQLException;
    }

    static <T> T query(DataSource ds, Query<T> query) {
        try (Connection c = ds.getConnection()) {
            return query.run(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
