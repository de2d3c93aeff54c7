package dev.socialgraph.common.shard;

import java.util.Objects;

/**
 * One entry of a shard map: the contiguous logical shards {@code firstShard..lastShard} (inclusive)
 * of {@code group} live in the physical PostgreSQL database at {@code jdbcUrl}.
 *
 * @param group      the shard group the range belongs to
 * @param firstShard first logical shard of the range, {@code >= 0}
 * @param lastShard  last logical shard of the range, inclusive, {@code >= firstShard}
 * @param database   a short name of the physical database, used in logs, metric tags and advisory-lock
 *                   names (e.g. {@code graph_following_0}); not a user id, so it is safe as a tag
 * @param jdbcUrl    JDBC URL of the physical database
 */
public record ShardRange(ShardGroup group, int firstShard, int lastShard, String database, String jdbcUrl) {

    /**
     * Validates the range.
     *
     * @throws IllegalArgumentException when a shard number is negative, the range is empty or a name is blank
     */
    public ShardRange {
        Objects.requireNonNull(group, "group");
        if (firstShard < 0) {
            throw new IllegalArgumentException("firstShard must be >= 0, was " + firstShard);
        }
        if (lastShard < firstShard) {
            throw new IllegalArgumentException(
                    "lastShard (" + lastShard + ") must be >= firstShard (" + firstShard + ") for " + database);
        }
        if (database == null || database.isBlank()) {
            throw new IllegalArgumentException("database name must not be blank (shards " + firstShard + ".." + lastShard + ")");
        }
        if (jdbcUrl == null || jdbcUrl.isBlank()) {
            throw new IllegalArgumentException("jdbcUrl must not be blank for " + database);
        }
    }

    /** Whether logical shard {@code shard} falls in this range. */
    public boolean contains(int shard) {
        return shard >= firstShard && shard <= lastShard;
    }

    @Override
    public String toString() {
        return group + "[" + firstShard + ".." + lastShard + "]->" + database;
    }
}
