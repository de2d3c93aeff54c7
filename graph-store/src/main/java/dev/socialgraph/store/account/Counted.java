package dev.socialgraph.store.account;

import dev.socialgraph.common.shard.ShardGroup;

/**
 * Which count of a user a {@code count_exclusions} row corrects, and so the shard group that keeps it: the
 * following count beside the following row, the followers count beside the follower row.
 */
public enum Counted {

    /** Code 0: the user's following count, kept in the user's FOLLOWING shard. */
    FOLLOWING(0, ShardGroup.FOLLOWING),
    /** Code 1: the user's followers count, kept in the user's FOLLOWER shard. */
    FOLLOWERS(1, ShardGroup.FOLLOWER);

    private final short code;
    private final ShardGroup group;

    Counted(int code, ShardGroup group) {
        this.code = (short) code;
        this.group = group;
    }

    /** The {@code counted} column's value. */
    public short code() {
        return code;
    }

    /** The shard group whose database holds the counted user's rows of this count. */
    public ShardGroup group() {
        return group;
    }
}
