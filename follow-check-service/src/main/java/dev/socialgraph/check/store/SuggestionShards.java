package dev.socialgraph.check.store;

import dev.socialgraph.check.suggest.Suggestions;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * {@link Suggestions.Shards}: the user's following row, and the rows of its intermediates grouped many users per
 * database by the map of now (so for up to one poll interval a moved user's frozen row on its old owner).
 */
@Component
class SuggestionShards implements Suggestions.Shards {

    private final ShardReads reads;
    private final FollowingRepository following;

    SuggestionShards(ShardDataSources dataSources, FollowingRepository following) {
        this.reads = new ShardReads(dataSources);
        this.following = following;
    }

    @Override
    public FollowingRow following(long followerId) {
        return reads.followingRow(following, followerId);
    }

    @Override
    public List<FollowingRow> followingRows(long[] followerIds) {
        List<FollowingRow> rows = new ArrayList<>(followerIds.length);
        for (Map.Entry<DataSource, long[]> e : reads.followingDatabasesOf(followerIds).entrySet()) {
            long[] ids = e.getValue();
            rows.addAll(ShardReads.database(e.getKey(), ids[0], c -> following.findAll(c, ids)));
        }
        return rows;
    }
}
