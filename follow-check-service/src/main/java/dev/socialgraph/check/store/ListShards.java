package dev.socialgraph.check.store;

import dev.socialgraph.check.lists.FollowLists;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.account.CountExclusionRepository;
import dev.socialgraph.store.account.Counted;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerPages;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import org.springframework.stereotype.Component;

/**
 * {@link FollowLists.Shards}: the follower row or celebrity pages (follower lists), and the count columns less the
 * inactive users taken out of them (docs/account-lifecycle.md), each count in one statement.
 */
@Component
class ListShards implements FollowLists.Shards {

    private final ShardReads reads;
    private final FollowerPages followerPages;
    /** The inactive users taken out of a count, where that count lives. */
    private final CountExclusionRepository exclusions = new CountExclusionRepository();

    ListShards(ShardDataSources dataSources, FollowerRepository followers, CelebrityPageRepository celebrityPages) {
        this.reads = new ShardReads(dataSources);
        this.followerPages = new FollowerPages(followers, celebrityPages);
    }

    @Override
    public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit) {
        // newestFirst opens its REPEATABLE READ transaction on the connection and leaves it in auto-commit again.
        return reads.user(ShardGroup.FOLLOWER, followeeId,
                c -> followerPages.newestFirst(c, followeeId, cursorFollowedAt, cursorId, limit));
    }

    @Override
    public long followerCount(long followeeId) {
        return reads.user(ShardGroup.FOLLOWER, followeeId,
                c -> exclusions.visibleCount(c, followeeId, Counted.FOLLOWERS));
    }

    @Override
    public FollowLists.CountWithFollower followerCountWith(long followeeId, long followerId) {
        // The count and the follow from one snapshot: a count with the follow applied and a membership without it
        // would correct the count twice.
        return reads.user(ShardGroup.FOLLOWER, followeeId, c -> Transactions.inSnapshot(c, snapshot ->
                new FollowLists.CountWithFollower(exclusions.visibleCount(snapshot, followeeId, Counted.FOLLOWERS),
                        followerPages.among(snapshot, followeeId, new long[] {followerId}).length == 1)));
    }
}
