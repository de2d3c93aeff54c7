package dev.socialgraph.check.store;

import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import org.springframework.stereotype.Component;

/** {@link FollowChecker.Shards}: the following row a check reads when no cache answers (DESIGN.md 5, L2). */
@Component
class FollowingShards implements FollowChecker.Shards {

    private final ShardReads reads;
    private final FollowingRepository following;

    FollowingShards(ShardDataSources dataSources, FollowingRepository following) {
        this.reads = new ShardReads(dataSources);
        this.following = following;
    }

    @Override
    public FollowingRow following(long followerId) {
        return reads.followingRow(following, followerId);
    }
}
