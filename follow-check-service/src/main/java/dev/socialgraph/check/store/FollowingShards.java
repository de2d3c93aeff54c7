package dev.socialgraph.check.store;

import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import java.util.Map;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * {@link FollowChecker.Shards}: the following row a check reads when no cache answers (DESIGN.md 5, L2), and which of
 * many followers follow one followee, one statement per following database.
 */
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

    @Override
    public long[] whichFollow(long[] followerIds, long followeeId) {
        LongStream.Builder found = LongStream.builder();
        for (Map.Entry<DataSource, long[]> e : reads.followingDatabasesOf(followerIds).entrySet()) {
            long[] ids = e.getValue();
            for (long id : ShardReads.database(e.getKey(), ids[0], c -> following.holdersOf(c, ids, followeeId))) {
                found.add(id);
            }
        }
        return found.build().sorted().toArray();
    }
}
