package dev.socialgraph.reconciler.repair;

import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.account.AccountStateRepository;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerDiff;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardFence;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repairs one followee's follower side (row, celebrity pages, count) so that it agrees with the following side,
 * for a given scope of follower ids, in one {@link Relation}: follows (followers), or blocks (the blocked user's
 * blocked-by row and pages; "followee" is the blocked user, "followers" its blockers). An instance works on the
 * rows of the relation it was built with; the outbox rows that count as in flight are that relation's two types.
 * Callers (full scan, sampler) only detect; this class decides under the lock:
 *
 * <ol>
 *   <li>lock the followee's follower row (it guards the celebrity pages as well), so the cdc-consumer cannot apply
 *       an event for this followee while we compare;</li>
 *   <li>leave alone every pair with a deactivated or erased user ({@link AccountStateRepository#inactiveAmong}): the whole row when the
 *       followee is inactive, else the inactive followers of the scope. The account jobs own such edges
 *       (docs/account-lifecycle.md): a repair must neither put a hidden edge back into a follower row nor bring an
 *       erased one back;</li>
 *   <li>re-read, for every scope id, its following row: what the scan saw may be out of date;</li>
 *   <li>drop from the scope every follower whose edge may still be in flight (DESIGN.md 7): an edge younger than
 *       the repair threshold, or a pair with an unpublished or recent outbox row (a recent unfollow in
 *       particular). Such entries are neither added nor removed;</li>
 *   <li>plan with {@link FollowerDiff} and write the row ({@code version + 1}) and changed pages in the same
 *       transaction.</li>
 * </ol>
 *
 * <p>Race with the cdc-consumer: an event the consumer is applying holds the row lock, so step 1 waits and step 2
 * sees its result. A follow or unfollow committed on the following side after step 2 is not seen here; its event
 * is applied after our commit (the consumer needs our lock), on top of the repaired state, and since a follow is
 * idempotent by id and an unfollow removes only the exact {@code (id, followedAt)} entry (docs/decisions/0003-events.md), the
 * row converges either way. Edge age is judged by this JVM's clock against {@code followedAt}; outbox age by the
 * database's {@code now()} against {@code created_at}.
 *
 * <p>Shard moves (docs/shard-moves.md): the transaction enters the fence of the followee's follower shard
 * ({@link ShardDataSources#inUserTransaction}), so it waits while a mover copies that shard and runs on the new owner
 * after it moved. The following rows of step 2 are read by the map of now, database by database; a database that
 * gave one of their shards away (this instance's map is older than the move) makes it fetch the newer map and read
 * again, as {@link ShardDataSources#readUser} does for one user. So what a scan saw on an old owner, perhaps a false
 * divergence, is judged again here against the current owner, and at worst nothing is written.
 *
 * <p>Thread-safe.
 */
public final class FollowerRepairs {

    private static final Logger log = LoggerFactory.getLogger(FollowerRepairs.class);

    private final ShardDataSources dataSources;
    private final FollowingRepository following;
    private final FollowerRepository followers;
    private final CelebrityPageRepository pages;
    private final OutboxRepository outbox = new OutboxRepository();
    private final AccountStateRepository accountStates = new AccountStateRepository();
    private final Relation relation;
    private final ReconcilerMetrics metrics;
    private final Duration threshold;
    private final Clock clock;

    /**
     * @param relation  follows or blocks: a relation whose reverse side the consumer keeps
     *                  ({@link Relation#keepsReverse()})
     * @param following the relation's rows on the following side (the source of truth)
     * @param followers the relation's rows on the follower side
     * @param pages     the relation's celebrity pages
     * @param threshold edges younger than this are in flight and left alone (DESIGN.md 7: 30 s)
     * @throws IllegalArgumentException when {@code relation} keeps no reverse side, or a repository belongs to
     *                                  another relation
     */
    public FollowerRepairs(ShardDataSources dataSources, Relation relation, FollowingRepository following,
                           FollowerRepository followers, CelebrityPageRepository pages, ReconcilerMetrics metrics,
                           Duration threshold, Clock clock) {
        if (!relation.keepsReverse()) {
            throw new IllegalArgumentException(relation.wireName() + " has no follower side to repair");
        }
        if (following.relation() != relation || followers.relation() != relation || pages.relation() != relation) {
            throw new IllegalArgumentException("repositories of " + following.relation().wireName() + ", "
                    + followers.relation().wireName() + ", " + pages.relation().wireName() + " given to repairs of "
                    + relation.wireName());
        }
        this.relation = relation;
        this.dataSources = dataSources;
        this.following = following;
        this.followers = followers;
        this.pages = pages;
        this.metrics = metrics;
        this.threshold = threshold;
        this.clock = clock;
    }

    /**
     * The same repairs (databases, meters, threshold, clock) of another relation's follower side, on graph-store's
     * repositories of that relation.
     *
     * @param other a relation that keeps a follower side ({@link Relation#keepsReverse()})
     * @return the repairs of {@code other}
     * @throws IllegalArgumentException when {@code other} keeps no follower side (mutes)
     */
    public FollowerRepairs of(Relation other) {
        return new FollowerRepairs(dataSources, other, new FollowingRepository(other), new FollowerRepository(other),
                new CelebrityPageRepository(other), metrics, threshold, clock);
    }

    /** The relation whose follower side this instance repairs. */
    public Relation relation() {
        return relation;
    }

    /** The relation's rows on the following side, which this instance reads as the truth. */
    public FollowingRepository following() {
        return following;
    }

    /** The relation's rows on the follower side, which this instance repairs. */
    public FollowerRepository followers() {
        return followers;
    }

    /** The relation's celebrity pages, which this instance repairs with their row. */
    public CelebrityPageRepository pages() {
        return pages;
    }

    /** The repair threshold: edges younger than this are in flight. */
    public Duration threshold() {
        return threshold;
    }

    /** Whether an edge followed at {@code followedAtMillis} is older than the threshold, so settled. */
    public boolean isSettled(long followedAtMillis) {
        return clock.millis() - followedAtMillis >= threshold.toMillis();
    }

    /**
     * Makes followee {@code followeeId}'s follower side agree with the following side for the followers in
     * {@code scope}, and its count agree with its entries, in one transaction under the follower row lock.
     * Nothing else changes; in-flight edges are skipped. Does not create a row unless an entry must be added.
     *
     * @param followeeId positive user id
     * @param scope      follower ids to judge; may be empty (then only the count and nothing else is checked)
     * @return what was found and whether it was written
     * @throws SQLException when a database fails; nothing was written then
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when the followee's shard moved and the map that
     *                      says where is not known yet; nothing was written
     */
    public RepairResult repair(long followeeId, long[] scope) throws SQLException {
        RepairResult result = dataSources.inUserTransaction(ShardGroup.FOLLOWER, followeeId,
                connection -> repairLocked(connection, followeeId, scope));
        metrics.recordRepair(result);
        if (result.repaired()) {
            log.debug("Repaired {} followee {}: {}", relation.wireName(), followeeId, result);
        }
        return result;
    }

    private RepairResult repairLocked(Connection connection, long followeeId, long[] scope) throws SQLException {
        Optional<FollowerRow> maybeRow = followers.lock(connection, followeeId);
        // Read under the row lock: a state change commits its state row before its job touches an edge, and a job's
        // change of this row waits for the lock held here, so an erase job's removal that this repair could undo
        // always comes with a state row this read sees.
        long[] users = Arrays.copyOf(scope, scope.length + 1);
        users[scope.length] = followeeId;
        Set<Long> inactive = inactive(users);
        Set<Long> settled = new HashSet<>();
        for (long id : scope) {
            settled.add(id);
        }
        if (inactive.contains(followeeId)) {
            // Every pair of this row has the inactive followee: not even its count is judged.
            return RepairResult.skippedInactive(settled.size());
        }
        int judged = settled.size();
        settled.removeAll(inactive);
        int skippedInactive = judged - settled.size();
        long[] active = settled.stream().mapToLong(Long::longValue).toArray();
        Map<Long, Long> expected = followingEdges(followeeId, active);
        Set<Long> skipped = inFlight(followeeId, active, expected);
        settled.removeAll(skipped);

        FollowerRow row = maybeRow.orElse(FollowerRow.empty(followeeId));
        FollowerDiff.Plan plan = plan(connection, row, settled, expected);
        if (!plan.changed()) {
            return result(plan, false, skipped.size(), skippedInactive);
        }
        if (maybeRow.isEmpty()) {
            row = followers.lockOrCreate(connection, followeeId); // the consumer may have created it meanwhile
            plan = plan(connection, row, settled, expected);
            if (!plan.changed()) {
                return result(plan, false, skipped.size(), skippedInactive);
            }
        }
        followers.writeNextVersion(connection, row, plan.rowIds(), plan.rowTimes(), plan.count(), row.celebrity());
        for (CelebrityPage page : plan.changedPages()) {
            pages.upsert(connection, page);
        }
        return result(plan, true, skipped.size(), skippedInactive);
    }

    private static RepairResult result(FollowerDiff.Plan plan, boolean repaired, int skippedInFlight,
                                       int skippedInactive) {
        return new RepairResult(RepairResult.counts(plan.missing(), plan.stale(), plan.wrongCount(), plan.duplicate()),
                repaired, skippedInFlight, skippedInactive);
    }

    /**
     * The users among {@code userIds} that are deactivated or erased, read now from {@code account_states} in each
     * one's following shard ({@link AccountStateRepository#inactiveAmong}), following shard moves as the following rows
     * are read.
     *
     * <p>Why the reconciler asks: while a user is inactive, the account jobs own that user's edges. A deactivated
     * user's edges stay where they are, hidden at read time, with count exclusions that assume exactly those edges; an
     * erased user's edges are being deleted, follower side first. A repair of such a pair from the following side
     * would put a hidden edge back into a follower row (and off its exclusion) or bring an erased edge back, so every
     * pair with an inactive user is left alone.
     *
     * @param userIds positive user ids, any shards
     * @return the inactive ones; empty when all are active
     * @throws SQLException when a database fails
     */
    public Set<Long> inactive(long[] userIds) throws SQLException {
        Set<Long> out = new HashSet<>();
        for (Set<Long> ids : perFollowingDatabase(userIds, accountStates::inactiveAmong)) {
            out.addAll(ids);
        }
        return out;
    }

    private FollowerDiff.Plan plan(Connection connection, FollowerRow row, Set<Long> scope, Map<Long, Long> expected)
            throws SQLException {
        List<CelebrityPage> celebrityPages = row.celebrity() || row.version() > 0
                ? pages.all(connection, row.followeeId()) : List.of();
        return FollowerDiff.plan(row.followeeId(), row.followerIds(), row.followedAt(), celebrityPages,
                row.celebrity(), row.followerCount(), scope, expected);
    }

    /** For each of {@code followerIds} that follows {@code followeeId}: the follow time, read now. */
    private Map<Long, Long> followingEdges(long followeeId, long[] followerIds) throws SQLException {
        Map<Long, Long> expected = new HashMap<>();
        for (List<FollowingRow> rows : perFollowingDatabase(followerIds, following::findAll)) {
            for (FollowingRow f : rows) {
                int at = Arrays.binarySearch(f.followingIds(), followeeId);
                if (at >= 0) {
                    expected.put(f.followerId(), f.followedAt()[at]);
                }
            }
        }
        return expected;
    }

    /** Follower ids whose edge with {@code followeeId} may still be on its way to the follower side. */
    private Set<Long> inFlight(long followeeId, long[] followerIds, Map<Long, Long> expected) throws SQLException {
        Set<Long> out = new HashSet<>();
        for (long id : followerIds) {
            Long t = expected.get(id);
            if (t != null && !isSettled(t)) {
                out.add(id);
            }
        }
        for (Set<Long> ids : perFollowingDatabase(followerIds,
                (c, ids) -> outbox.inFlight(c, relation, followeeId, ids, threshold))) {
            out.addAll(ids);
        }
        return out;
    }

    /** Reads of the following rows (or outbox rows) of some users, on one database. */
    @FunctionalInterface
    private interface FollowingRead<T> {
        T run(Connection connection, long[] followerIds) throws SQLException;
    }

    /**
     * Runs {@code read} once per following database with the ids of {@code followerIds} it holds by the map of now.
     * When a database says it gave one of those shards away, the map is fetched ({@link ShardDataSources#refresh})
     * and all is read again by the newer one; when no newer map is known (or after
     * {@link ShardDataSources#MOVE_ATTEMPTS}), the rows are read where the map says, as
     * {@link ShardDataSources#readUser} does: an old owner's rows are frozen since the move.
     */
    private <T> List<T> perFollowingDatabase(long[] followerIds, FollowingRead<T> read) throws SQLException {
        boolean check = true;
        for (int attempt = 1; ; attempt++) {
            List<T> out = new ArrayList<>();
            boolean moved = false;
            for (Map.Entry<ShardRange, long[]> group : byFollowingRange(followerIds).entrySet()) {
                try (Connection c = dataSources.forRange(group.getKey()).getConnection()) {
                    if (check && gaveAway(c, group.getValue())) {
                        moved = true;
                        break;
                    }
                    out.add(read.run(c, group.getValue()));
                }
            }
            if (!moved) {
                return out;
            }
            long known = dataSources.version();
            dataSources.refresh();
            // Nothing newer known (or out of attempts): read where the map says.
            check = dataSources.version() > known && attempt + 1 < ShardDataSources.MOVE_ATTEMPTS;
        }
    }

    /** Whether the database of {@code connection} gave away the following shard of one of {@code followerIds}. */
    private boolean gaveAway(Connection connection, long[] followerIds) throws SQLException {
        List<Integer> moved = ShardFence.moved(connection, ShardGroup.FOLLOWING);
        if (moved.isEmpty()) {
            return false;
        }
        ShardMap map = dataSources.shardMap();
        for (long id : followerIds) {
            if (moved.contains(map.logicalShard(id))) {
                return true;
            }
        }
        return false;
    }

    private Map<ShardRange, long[]> byFollowingRange(long[] followerIds) {
        ShardMap map = dataSources.shardMap();
        Map<ShardRange, List<Long>> grouped = new LinkedHashMap<>();
        for (long id : followerIds) {
            grouped.computeIfAbsent(map.route(ShardGroup.FOLLOWING, id), r -> new ArrayList<>()).add(id);
        }
        Map<ShardRange, long[]> out = new LinkedHashMap<>();
        grouped.forEach((r, ids) -> out.put(r, ids.stream().mapToLong(Long::longValue).toArray()));
        return out;
    }
}
