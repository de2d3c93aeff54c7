-- Logical shards this database no longer owns (docs/shard-moves.md): a row per (group, shard) moved away, written
-- by the mover while the shard is fenced, before it publishes the shard map that routes the shard elsewhere. Every
-- write transaction on a user's row checks it under a shared fence lock (graph-store's ShardFence), so a service
-- that still routes by an older map is refused here and re-reads the map instead of writing to the old owner. A
-- shard moved back deletes its row again. group: 0 following, 1 follower (dev.socialgraph.common.shard.ShardGroup).
CREATE TABLE shard_moves (
    shard_group  SMALLINT NOT NULL CHECK (shard_group IN (0, 1)),
    shard        INT      NOT NULL CHECK (shard >= 0),
    map_version  BIGINT   NOT NULL CHECK (map_version >= 1),
    moved_to     TEXT     NOT NULL,
    moved_at     BIGINT   NOT NULL,
    PRIMARY KEY (shard_group, shard)
);
