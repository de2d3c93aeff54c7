package dev.socialgraph.check.store;

import dev.socialgraph.check.lists.FollowLists;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.account.CountExclusionRepository;
import dev.socialgraph.store.account.Counted;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerPages;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import org.springframework.stereotype.Component;

/**
 * {@link FollowLists.Shards}: the following row (following lists, common following), the follower row or celebrity
 * pages (follower lists), and the count columns less the inactive users taken out of them
 * (docs/account-lifecycle.md).
 */
@Component
class ListShards implements FollowLists.Shards {

    private final ShardReads reads;
    private final FollowingRepository following;
    private final FollowerRepository followers;
    private final FollowerPages followerPages;
    /** The inactive users taken out of a count, where that count lives. */
    private final CountExclusionRepository exclusions = new CountExclusionRepository();

    ListShards(ShardDataSources dataSources, FollowingRepository following, FollowerRepository followers,
               CelebrityPageRepository celebrityPages) {
        this.reads = new ShardReads(dataSources);
        this.following = following;
        this.followers = followers;
        this.followerPages = new FollowerPages(followers, celebrityPages);
    }

    @Override
    public FollowingRow following(long followerId) {
        return reads.followingRow(following, followerId);
    }

    @Override
    public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit) {
        // newestFirst opens its REPEATABLE READ transaction on the connection and leaves it in auto-commit again.
        return reads.user(ShardGroup.FOLLOWER, followeeId,
                c -> followerPages.newestFirst(c, followeeId, cursorFollowedAt, cursorId, limit));
    }

    @Override
    public int followingCount(long followerId) {
        return reads.user(ShardGroup.FOLLOWING, followerId, c -> (int) Math.max(0, following.count(c, followerId)
                - exclusions.offset(c, followerId, Counted.FOLLOWING)));
    }

    @Override
    public long followerCount(long followeeId) {
        return reads.user(ShardGroup.FOLLOWER, followeeId, c -> Math.max(0, followers.count(c, followeeId)
                - exclusions.offset(c, followeeId, Counted.FOLLOWERS)));
    }
}
