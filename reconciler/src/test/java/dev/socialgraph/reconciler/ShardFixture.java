package dev.socialgraph.reconciler;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes shard rows of one relation directly (no write service, no consumer) and reads the whole follower side
 * back. Follows unless built for another relation; for blocks, "following" rows are block rows and "follower" rows
 * blocked-by rows.
 */
public final class ShardFixture {

    private final ShardDataSources sources;
    private final FollowingRepository following;
    private final FollowerRepository followers;
    private final CelebrityPageRepository pages;
    private final OutboxRepository outbox = new OutboxRepository();

    /** Follows' rows. */
    public ShardFixture(ShardDataSources sources) {
        this(sources, Relation.FOLLOW);
    }

    /** Rows of {@code relation}. */
    public ShardFixture(ShardDataSources sources, Relation relation) {
        this.sources = sources;
        this.following = new FollowingRepository(relation);
        this.followers = new FollowerRepository(relation);
        this.pages = new CelebrityPageRepository(relation);
    }

    /** A user id in logical shard {@code shard} ({@code k >= 0}). */
    public static long inShard(int shard, int k) {
        return shard + 256L * (k + 1);
    }

    /** Sets {@code follower}'s following row to {@code followeeIds} (ascending) followed at {@code times}. */
    public void following(long follower, long[] followeeIds, long[] times) throws SQLException {
        Transactions.inTransaction(sources.forUser(ShardGroup.FOLLOWING, follower), c -> {
            FollowingRow row = following.lockOrCreate(c, follower);
            return following.writeNextVersion(c, row, followeeIds, times);
        });
    }

    /** Sets {@code followee}'s follower row (not a celebrity). */
    public void followerRow(long followee, long[] ids, long[] times, long count) throws SQLException {
        Transactions.inTransaction(sources.forUser(ShardGroup.FOLLOWER, followee), c -> {
            FollowerRow row = followers.lockOrCreate(c, followee);
            return followers.writeNextVersion(c, row, ids, times, count, false);
        });
    }

    /** Makes {@code followee} a celebrity with the given pages ({@code [ids, times]} each) and count. */
    public void celebrity(long followee, long count, long[]... idsThenTimes) throws SQLException {
        Transactions.inTransaction(sources.forUser(ShardGroup.FOLLOWER, followee), c -> {
            FollowerRow row = followers.lockOrCreate(c, followee);
            followers.writeNextVersion(c, row, new long[0], new long[0], count, true);
            for (int i = 0; i < idsThenTimes.length; i += 2) {
                pages.upsert(c, new CelebrityPage(followee, i / 2, idsThenTimes[i], idsThenTimes[i + 1]));
            }
            return null;
        });
    }

    /**
     * Appends an outbox row for the pair on the follower's following database.
     *
     * @param ageSeconds how long ago it was created (and, when {@code published}, published)
     */
    public long outbox(long follower, long followee, boolean follow, long followedAt, boolean published,
                       int ageSeconds) throws SQLException {
        return outbox(follow ? FollowEvent.Type.FOLLOW : FollowEvent.Type.UNFOLLOW, follower, followee, followedAt,
                published, ageSeconds);
    }

    /** {@link #outbox(long, long, boolean, long, boolean, int)} of a change of any relation, by its type. */
    public long outbox(FollowEvent.Type type, long source, long target, long createdAt, boolean published,
                       int ageSeconds) throws SQLException {
        return Transactions.inTransaction(sources.forUser(ShardGroup.FOLLOWING, source), c -> {
            long id = outbox.append(c, type, source, target, createdAt, 1);
            try (PreparedStatement ps = c.prepareStatement("""
                    UPDATE follow_outbox SET created_at = now() - make_interval(secs => ?),
                           published_at = CASE WHEN ? THEN now() - make_interval(secs => ?) END
                     WHERE id = ?""")) {
                ps.setInt(1, ageSeconds);
                ps.setBoolean(2, published);
                ps.setInt(3, ageSeconds);
                ps.setLong(4, id);
                ps.executeUpdate();
            }
            return id;
        });
    }

    /**
     * Sets {@code userId}'s account state in its following shard, as a state change of the write service leaves it
     * (docs/account-lifecycle.md); its job is not run.
     *
     * @param state 0 active, 1 deactivated, 2 erased
     */
    public void accountState(long userId, int state) throws SQLException {
        Transactions.inTransaction(sources.forUser(ShardGroup.FOLLOWING, userId), c -> {
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO account_states (user_id, state, version, changed_at, job_id)
                    VALUES (?, ?, 1, ?, ? || '-1')
                    ON CONFLICT (user_id) DO UPDATE SET state = EXCLUDED.state,
                           version = account_states.version + 1, changed_at = EXCLUDED.changed_at,
                           job_id = ? || '-' || (account_states.version + 1), updated_at = now()""")) {
                ps.setLong(1, userId);
                ps.setShort(2, (short) state);
                ps.setLong(3, System.currentTimeMillis());
                ps.setString(4, Long.toString(userId));
                ps.setString(5, Long.toString(userId));
                return ps.executeUpdate();
            }
        });
    }

    /** The following row of {@code follower}, or {@code null}. */
    public FollowingRow followingRow(long follower) throws SQLException {
        try (Connection c = sources.forUser(ShardGroup.FOLLOWING, follower).getConnection()) {
            return following.find(c, follower).orElse(null);
        }
    }

    /** The outbox rows {@code source} changed, any relation, in id order (from its following database). */
    public List<OutboxEntry> outboxOf(long source) throws SQLException {
        try (Connection c = sources.forUser(ShardGroup.FOLLOWING, source).getConnection()) {
            List<OutboxEntry> out = new ArrayList<>();
            long after = 0;
            List<OutboxEntry> batch;
            while (!(batch = outbox.after(c, after, 1000)).isEmpty()) {
                batch.stream().filter(e -> e.followerId() == source).forEach(out::add);
                after = batch.getLast().id();
            }
            return out;
        }
    }

    /** The follower row of {@code followee}, or {@code null}. */
    public FollowerRow followerRow(long followee) throws SQLException {
        try (Connection c = sources.forUser(ShardGroup.FOLLOWER, followee).getConnection()) {
            return followers.find(c, followee).orElse(null);
        }
    }

    /** The celebrity pages of {@code followee}. */
    public List<CelebrityPage> pages(long followee) throws SQLException {
        try (Connection c = sources.forUser(ShardGroup.FOLLOWER, followee).getConnection()) {
            return pages.all(c, followee);
        }
    }

    /** Every follower row and its pages, by followee id: compare two snapshots to see what changed. */
    public Map<Long, List<Object>> followerSide() throws SQLException {
        Map<Long, List<Object>> out = new TreeMap<>();
        for (ShardRange range : sources.shardMap().ranges(ShardGroup.FOLLOWER)) {
            try (Connection c = sources.forRange(range).getConnection()) {
                long after = 0;
                List<FollowerRow> rows;
                while (!(rows = followers.scan(c, after, 1000)).isEmpty()) {
                    for (FollowerRow r : rows) {
                        List<Object> state = new ArrayList<>();
                        state.add(r);
                        state.addAll(pages.all(c, r.followeeId()));
                        out.put(r.followeeId(), state);
                    }
                    after = rows.getLast().followeeId();
                }
            }
        }
        return out;
    }

    /** {@code before} and {@code after} without {@code changed} keys: what must not have changed. */
    public static Map<Long, List<Object>> without(Map<Long, List<Object>> state, long... changed) {
        Map<Long, List<Object>> out = new TreeMap<>(state);
        Arrays.stream(changed).forEach(out::remove);
        return out;
    }
}
