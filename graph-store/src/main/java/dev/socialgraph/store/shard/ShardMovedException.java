package dev.socialgraph.store.shard;

import dev.socialgraph.common.shard.ShardGroup;

/**
 * The database a caller routed to no longer owns the user's logical shard: a shard move switched the shard map
 * (docs/shard-moves.md), and the caller's map is older than the one that moved it. Nothing was written; the caller
 * re-reads the map ({@link ShardDataSources#refresh()}) and retries on the new owner, which
 * {@link ShardDataSources#inUserTransaction} does by itself.
 */
public final class ShardMovedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ShardGroup group;
    private final int shard;
    private final long mapVersion;

    /**
     * @param group      the shard's group
     * @param shard      the logical shard
     * @param mapVersion the first shard map version that routes the shard elsewhere
     * @param movedTo    the database that owns it since, for the message
     */
    public ShardMovedException(ShardGroup group, int shard, long mapVersion, String movedTo) {
        super(group.name().toLowerCase() + " shard " + shard + " moved to " + movedTo + " in shard map version "
                + mapVersion);
        this.group = group;
        this.shard = shard;
        this.mapVersion = mapVersion;
    }

    /** @return the shard's group */
    public ShardGroup group() {
        return group;
    }

    /** @return the logical shard */
    public int shard() {
        return shard;
    }

    /** @return the first shard map version that routes the shard elsewhere */
    public long mapVersion() {
        return mapVersion;
    }
}
