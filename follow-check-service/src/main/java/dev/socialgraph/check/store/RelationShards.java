package dev.socialgraph.check.store;

import dev.socialgraph.check.relations.RelationReads;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerPages;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import org.springframework.stereotype.Component;

/**
 * {@link RelationReads.Shards}: blocks, mutes and pending follow requests from their sources' rows on the following
 * databases, and who blocks a user from its blocked-by row and pages on its follower database.
 */
@Component
class RelationShards implements RelationReads.Shards {

    private final ShardReads reads;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final FollowingRepository mutes = new FollowingRepository(Relation.MUTE);
    private final FollowingRepository requests = new FollowingRepository(Relation.REQUEST);
    private final FollowerPages blockedBy = new FollowerPages(new FollowerRepository(Relation.BLOCK),
            new CelebrityPageRepository(Relation.BLOCK));
    private final FollowerPages requestedBy = new FollowerPages(new FollowerRepository(Relation.REQUEST),
            new CelebrityPageRepository(Relation.REQUEST));

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
        return reads.user(ShardGroup.FOLLOWER, userId, c -> blockedBy.among(c, userId, ids));
    }

    @Override
    public Page incomingRequests(long userId, long cursorCreatedAt, long cursorId, int limit) {
        return reads.user(ShardGroup.FOLLOWER, userId,
                c -> requestedBy.newestFirst(c, userId, cursorCreatedAt, cursorId, limit));
    }

    private FollowingRepository repository(Relation relation) {
        return switch (relation) {
            case BLOCK -> blocks;
            case MUTE -> mutes;
            case REQUEST -> requests;
            case FOLLOW -> throw new IllegalArgumentException("follows are not a relation row of blocks or mutes");
        };
    }
}
