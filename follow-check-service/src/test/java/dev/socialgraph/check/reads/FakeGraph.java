package dev.socialgraph.check.reads;

import dev.socialgraph.check.accounts.AccountVisibility;
import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.lists.FollowLists;
import dev.socialgraph.check.relations.RelationReads;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.InactiveUsers;
import dev.socialgraph.store.following.FollowingRow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The check service's read path over plain fakes, in the style of {@code FollowCheckerTest}: a real
 * {@link FollowChecker}, {@link RelationReads}, {@link AccountVisibility} and {@link GraphReads} whose layers are maps
 * and sets the test writes, with counters of what was read. Every follower is covered by the bloom filter, owned
 * nowhere (nothing is filled in process), and Redis misses unless {@link #redis} holds the follower.
 */
public final class FakeGraph {

    /** Follow tokens of this graph; {@code tokens.issue(user)} is a token of a write of {@code user}, valid 5 s. */
    public final FollowTokens tokens = new FollowTokens(
            "fake-graph-follow-token-secret-0123456789".getBytes(StandardCharsets.UTF_8), Clock.systemUTC());

    /** The bloom filter's edges as {@code [follower, followee]}: an edge not here is a definite "no". */
    public final Set<List<Long>> bloom = new HashSet<>();
    /** The in-process following cache: follower → sorted followees. */
    public final Map<Long, long[]> local = new HashMap<>();
    /** Redis: follower → sorted followees; a follower not here is a miss. */
    public final Map<Long, long[]> redis = new HashMap<>();
    /** The following shards: follower → sorted followees; absent, an empty row. */
    public final Map<Long, long[]> shard = new HashMap<>();
    /** Users whose following database is down: every read of their rows throws {@link ShardUnavailableException}. */
    public final Set<Long> down = new HashSet<>();
    /** Whether the feed is fresh: while it is not, neither in-process layer answers. */
    public boolean fresh = true;

    /** Blocks and mutes as {@code relation -> source -> sorted targets}. */
    public final Map<Relation, Map<Long, long[]>> relationRows = new EnumMap<>(Relation.class);
    /** The filter of hidden pairs: the {@code [viewer, author]} pairs it has seen. */
    public final Set<List<Long>> hiddenPairs = new HashSet<>();
    /** Whether the filter of hidden pairs is trusted. */
    public boolean filterTrusted = true;

    /** The view of inactive users. */
    public final InactiveUsers inactive = new InactiveUsers();
    /** The state rows, read with a follow token of their user; no row: active. */
    public final Map<Long, AccountState> states = new HashMap<>();

    /** Following rows read from the shards. */
    public final AtomicInteger shardReads = new AtomicInteger();
    /** Block, mute and blocked-by rows read. */
    public final AtomicInteger relationReads = new AtomicInteger();
    /** Pairs asked of the filter of hidden pairs. */
    public final AtomicInteger pairProbes = new AtomicInteger();
    /** State rows read. */
    public final AtomicInteger stateReads = new AtomicInteger();

    public final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    public final FollowChecker checker = new FollowChecker(
            new FollowChecker.Bloom() {
                @Override
                public boolean covers(long followerId) {
                    return true;
                }

                @Override
                public boolean mightFollow(long followerId, long followeeId) {
                    return bloom.contains(List.of(followerId, followeeId));
                }
            },
            new FollowChecker.Local() {
                @Override
                public long[] following(long followerId) {
                    return local.get(followerId);
                }

                @Override
                public long ticket(long followerId) {
                    return 0;
                }

                @Override
                public FollowingRow row(long followerId) {
                    long[] ids = local.get(followerId);
                    return ids == null ? null : new FollowingRow(followerId, ids, new long[ids.length], ids.length);
                }

                @Override
                public boolean put(FollowingRow row, long ticket) {
                    return false;
                }
            },
            new FollowChecker.Cache() {
                @Override
                public int isFollowing(long followerId, long followeeId) {
                    long[] set = redis.get(followerId);
                    return set == null ? Answer.NEXT : Answer.of(Arrays.binarySearch(set, followeeId) >= 0);
                }

                @Override
                public boolean[] areFollowing(long followerId, long[] followeeIds) {
                    long[] set = redis.get(followerId);
                    if (set == null) {
                        return null;
                    }
                    boolean[] out = new boolean[followeeIds.length];
                    for (int i = 0; i < out.length; i++) {
                        out[i] = Arrays.binarySearch(set, followeeIds[i]) >= 0;
                    }
                    return out;
                }

                @Override
                public void fill(long followerId, long[] followingIds, long version) {
                }
            },
            followerId -> {
                available(followerId);
                shardReads.incrementAndGet();
                long[] ids = shard.getOrDefault(followerId, new long[0]);
                return new FollowingRow(followerId, ids, new long[ids.length], ids.length);
            },
            () -> fresh, id -> false, tokens, Duration.ofSeconds(5), Runnable::run, registry);

    public final RelationReads relations = new RelationReads(new RelationReads.Shards() {
        @Override
        public FollowingRow relationRow(Relation relation, long userId) {
            available(userId);
            relationReads.incrementAndGet();
            long[] ids = relationRows.getOrDefault(relation, Map.of()).getOrDefault(userId, new long[0]);
            return new FollowingRow(userId, ids, new long[ids.length], ids.length);
        }

        @Override
        public boolean holds(Relation relation, long sourceId, long targetId) {
            available(sourceId);
            relationReads.incrementAndGet();
            long[] ids = relationRows.getOrDefault(relation, Map.of()).getOrDefault(sourceId, new long[0]);
            return Arrays.binarySearch(ids, targetId) >= 0;
        }

        @Override
        public long[] blockedByAmong(long userId, long[] ids) {
            available(userId);
            relationReads.incrementAndGet();
            return Arrays.stream(ids).filter(id -> Arrays.binarySearch(relationRows.getOrDefault(Relation.BLOCK,
                    Map.of()).getOrDefault(id, new long[0]), userId) >= 0).toArray();
        }

        @Override
        public Page incomingRequests(long userId, long cursorCreatedAt, long cursorId, int limit) {
            available(userId);
            relationReads.incrementAndGet();
            long[] requesters = relationRows.getOrDefault(Relation.REQUEST, Map.of()).entrySet().stream()
                    .filter(e -> Arrays.binarySearch(e.getValue(), userId) >= 0).mapToLong(Map.Entry::getKey)
                    .sorted().toArray();
            return AdjacencyArray.newestFirst(requesters, new long[requesters.length], cursorCreatedAt, cursorId,
                    limit);
        }
    }, new RelationReads.Filter() {
        @Override
        public boolean trusted() {
            return filterTrusted;
        }

        @Override
        public boolean mayHide(long viewerId, long authorId) {
            pairProbes.incrementAndGet();
            return hiddenPairs.contains(List.of(viewerId, authorId));
        }

        @Override
        public boolean mayHideAny(long viewerId) {
            return hiddenPairs.stream().anyMatch(pair -> pair.get(0) == viewerId);
        }
    }, registry);

    public final AccountVisibility accounts = new AccountVisibility(inactive, id -> {
        available(id);
        stateReads.incrementAndGet();
        return states.getOrDefault(id, AccountState.ACTIVE);
    }, true);

    /** The lists over the same rows: the followers of X are the users whose row holds X, all followed at time 0. */
    public final FollowLists lists = new FollowLists(new FollowLists.Shards() {
        @Override
        public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit) {
            available(followeeId);
            shardReads.incrementAndGet();
            long[] ids = followersOf(followeeId);
            return AdjacencyArray.newestFirst(ids, new long[ids.length], cursorFollowedAt, cursorId, limit);
        }

        @Override
        public long followerCount(long followeeId) {
            return followersOf(followeeId).length;
        }

        @Override
        public FollowLists.CountWithFollower followerCountWith(long followeeId, long followerId) {
            long[] followers = followersOf(followeeId);
            return new FollowLists.CountWithFollower(followers.length,
                    Arrays.binarySearch(followers, followerId) >= 0);
        }
    }, checker, null, accounts::inactiveAmong);

    /** The facade; without suggestions, whose cache is a Redis client. */
    public final GraphReads reads = new GraphReads(checker, relations, accounts, lists, null);

    /**
     * The follower side behind the following rows: {@code [follower, followee]} pairs whose change the cdc-consumer
     * has not applied yet (a follow not there yet, or an unfollow still there).
     */
    public final Set<List<Long>> followerSideBehind = new HashSet<>();

    /** The users the follower side says follow {@code followeeId}, ascending. */
    public long[] followersOf(long followeeId) {
        return shard.entrySet().stream().filter(e -> Arrays.binarySearch(e.getValue(), followeeId) >= 0
                        != followerSideBehind.contains(List.of(e.getKey(), followeeId)))
                .mapToLong(Map.Entry::getKey).sorted().toArray();
    }

    /** {@code follower} follows each of {@code followees}, in the shard only. */
    public void follows(long follower, long... followees) {
        long[] ids = followees.clone();
        Arrays.sort(ids);
        shard.put(follower, ids);
    }

    /** {@code source}'s row of {@code relation} holds each of {@code targets}. */
    public void relates(Relation relation, long source, long... targets) {
        long[] ids = targets.clone();
        Arrays.sort(ids);
        relationRows.computeIfAbsent(relation, r -> new HashMap<>()).put(source, ids);
    }

    /** A block as the filter of hidden pairs records it: both orders. */
    public void filterSawBlock(long blocker, long blocked) {
        hiddenPairs.add(List.of(blocker, blocked));
        hiddenPairs.add(List.of(blocked, blocker));
    }

    private void available(long userId) {
        if (down.contains(userId)) {
            throw new ShardUnavailableException("following database of user " + userId + " is unavailable", null);
        }
    }
}
