package dev.socialgraph.common.keys;

import dev.socialgraph.common.id.UserIds;

/**
 * Redis key names (DESIGN.md 2.3). Every key of one user carries the user id as a Redis Cluster hash
 * tag, {@code {42}}, so that a user's companion keys ({@code following:{42}} and
 * {@code following:{42}:v}) hash to the same slot and one Lua script may touch both (Redis Cluster
 * specification, "Hash tags"). Keys of different users may be in different slots: never combine them
 * in one multi-key command.
 */
public final class RedisKeys {

    /**
     * The member every cached {@code following:{id}} set contains, so that "cached and empty" differs
     * from "not cached": {@code SISMEMBER} answers 0 both for a missing key and for a non-member
     * (DESIGN.md 9). Never a user id, which is positive.
     */
    public static final long SENTINEL = -1L;

    /** {@link #SENTINEL} as the string Redis stores, for SADD and SMISMEMBER arguments. */
    public static final String SENTINEL_MEMBER = "-1";

    private RedisKeys() {
    }

    /**
     * The L1 cache of whom {@code userId} follows: a SET of followee ids (decimal strings) plus
     * {@link #SENTINEL_MEMBER}, TTL 3600 s.
     *
     * @param userId the follower, positive
     * @return e.g. {@code following:{42}}
     * @throws IllegalArgumentException if {@code userId <= 0}
     */
    public static String following(long userId) {
        return "following:" + tag(userId);
    }

    /**
     * The row version of the cached {@link #following} set (a decimal string), compared by the
     * version-guarded update script; same hash slot as the set.
     *
     * @param userId the follower, positive
     * @return e.g. {@code following:{42}:v}
     * @throws IllegalArgumentException if {@code userId <= 0}
     */
    public static String followingVersion(long userId) {
        return "following:" + tag(userId) + ":v";
    }

    /**
     * Cached follower and following counts of {@code userId}.
     *
     * @param userId the user, positive
     * @return e.g. {@code counts:{42}}
     * @throws IllegalArgumentException if {@code userId <= 0}
     */
    public static String counts(long userId) {
        return "counts:" + tag(userId);
    }

    /**
     * Cached suggestions for {@code userId}, TTL 15 min.
     *
     * @param userId the user, positive
     * @return e.g. {@code suggest:{42}}
     * @throws IllegalArgumentException if {@code userId <= 0}
     */
    public static String suggestions(long userId) {
        return "suggest:" + tag(userId);
    }

    private static String tag(long userId) {
        return "{" + UserIds.requirePositive(userId, "userId") + "}";
    }
}
