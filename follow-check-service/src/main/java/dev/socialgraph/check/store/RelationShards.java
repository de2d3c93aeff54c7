package dev.socialgraph.check.store;

import dev.socialgraph.check.relations.RelationReads;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.CelebrityPage;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.follower.FollowerRow;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import java.util.Arrays;
import org.springframework.stereotype.Component;

/**
 * {@link RelationReads.Shards}: blocks and mutes from their sources' rows on the following databases, and who blocks a
 * user from its blocked-by row and pages on its follower database.
 */
@Component
class RelationShards implements RelationReads.Shards {

    private final ShardReads reads;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final FollowingRepository mutes = new FollowingRepository(Relation.MUTE);
    private final FollowerRepository blockedBy = new FollowerRepository(Relation.BLOCK);
    private final CelebrityPageRepository blockedByPages = new CelebrityPageRepository(Relation.BLOCK);

    RelationShards(ShardDataSources dataSources) {
        this.reads = new ShardReads(dataSources);
    }

    @Override
    public FollowingRow relationRow(Relation relation, long userId) {
        return reads.followingRow(repository(relation), userId);
    }

    @Override
    public boolean holds(Relation relation, long sourceId, long targetId) {
        FollowingRepository rows = repository(relation);
        return reads.user(ShardGroup.FOLLOWING, sourceId, c -> rows.contains(c, sourceId, targetId));
    }

    @Override
    public long[] blockedByAmong(long userId, long[] ids) {
        if (ids.length == 0) {
            return ids;
        }
        return reads.user(ShardGroup.FOLLOWER, userId, c -> {
            FollowerRow row = blockedBy.find(c, userId).orElse(null);
            if (row == null || row.followerCount() == 0) {
                return new long[0];
            }
            if (!row.celebrity()) {
                long[] sorted = row.followerIds().clone();
                Arrays.sort(sorted);
                return AdjacencyArray.intersect(sorted, ids, ids.length);
            }
            long[] found = new long[0];
            for (CelebrityPage page : blockedByPages.byNumberOrFollower(c, userId, new int[0], ids).values()) {
                long[] sorted = page.followerIds().clone();
                Arrays.sort(sorted);
                long[] more = AdjacencyArray.intersect(sorted, ids, ids.length);
                long[] merged = Arrays.copyOf(found, found.length + more.length);
                System.arraycopy(more, 0, merged, found.length, more.length);
                found = merged;
            }
            Arrays.sort(found);
            return found;
        });
    }

    private FollowingRepository repository(Relation relation) {
        return switch (relation) {
            case BLOCK -> blocks;
            case MUTE -> mutes;
            case FOLLOW -> throw new IllegalArgumentException("follows are not a relation row of blocks or mutes");
        };
    }
}
