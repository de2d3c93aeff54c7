package dev.socialgraph.cache;

/**
 * The version-guarded protocol of the L1 cache {@code following:{id}} (DESIGN.md 2.3), as Redis Lua scripts that
 * every writer of the cache runs: the check service when it fills from the shard, the write service after a
 * commit, the cdc-consumer when it applies an event (and {@link #INVALIDATE} when it cannot apply one: the consumer
 * is the writer that guarantees the cache, so it never acknowledges an event whose set may still miss it). Plain
 * strings: {@link FollowingCache} evaluates them for every service ({@code EVALSHA}, falling back to {@code EVAL}).
 *
 * <p>Keys (same hash slot, cluster-safe): {@code KEYS[1]} = {@code following:{id}}, a SET of followee ids that
 * always holds the sentinel {@code -1} while cached; {@code KEYS[2]} = {@code following:{id}:v}, the row version
 * the set reflects, or a <em>version floor</em> when the set is absent.
 *
 * <p>Why the floor: a write that finds the set absent records its version anyway. A fill that read the row
 * before that write and lands after it then sees a newer version and does nothing, so the classic
 * fill/invalidate race cannot leave a set without the write; the next read fills again from the shard.
 * A fill of the same version proceeds when the set itself is gone (evicted), so the floor never blocks caching.
 *
 * <p>Times: {@code ttlSeconds} is the entry's time to live (3600 s by default).
 */
public final class FollowingCacheScripts {

    /**
     * Fill from the shard. {@code ARGV[1]} = row version read, {@code ARGV[2]} = ttl seconds,
     * {@code ARGV[3..]} = followee ids (may be none). Returns {@link #FILLED} or {@link #FILL_SKIPPED_NEWER}.
     */
    public static final String FILL = """
            local cur = tonumber(redis.call('GET', KEYS[2]))
            local v = tonumber(ARGV[1])
            local ttl = tonumber(ARGV[2])
            local exists = redis.call('EXISTS', KEYS[1]) == 1
            if cur and (cur > v or (cur == v and exists)) then
              return 0
            end
            redis.call('DEL', KEYS[1])
            redis.call('SADD', KEYS[1], '-1')
            local n = #ARGV
            local i = 3
            while i <= n do
              local j = math.min(i + 4999, n)
              redis.call('SADD', KEYS[1], unpack(ARGV, i, j))
              i = j + 1
            end
            redis.call('SET', KEYS[2], ARGV[1], 'EX', ttl)
            redis.call('EXPIRE', KEYS[1], ttl)
            return 1
            """;

    /**
     * Apply one committed change. {@code ARGV[1]} = the row version after the change, {@code ARGV[2]} =
     * {@code add} or {@code rem}, {@code ARGV[3]} = the followee id, {@code ARGV[4]} = ttl seconds for a floor.
     * Returns {@link #APPLIED}, {@link #ALREADY_APPLIED}, {@link #NOT_CACHED} (floor recorded) or
     * {@link #INVALIDATED} (the cache missed an intermediate version; it was dropped, floor recorded).
     */
    public static final String APPLY = """
            local cur = tonumber(redis.call('GET', KEYS[2]))
            local v = tonumber(ARGV[1])
            local ttl = tonumber(ARGV[4])
            if redis.call('EXISTS', KEYS[1]) == 0 then
              if (not cur) or cur < v then
                redis.call('SET', KEYS[2], ARGV[1], 'EX', ttl)
              end
              return 2
            end
            if cur and cur >= v then
              return 1
            end
            if cur and cur == v - 1 then
              if ARGV[2] == 'add' then
                redis.call('SADD', KEYS[1], ARGV[3])
              else
                redis.call('SREM', KEYS[1], ARGV[3])
              end
              redis.call('SET', KEYS[2], ARGV[1], 'KEEPTTL')
              return 0
            end
            redis.call('DEL', KEYS[1])
            redis.call('SET', KEYS[2], ARGV[1], 'EX', ttl)
            return 3
            """;

    /**
     * Drop the cached set after a change could not be applied to it (the writer must not leave a set that may miss
     * a committed version). {@code ARGV[1]} = the row version after the change, {@code ARGV[2]} = ttl seconds for
     * the floor. Deletes {@code KEYS[1]} and raises the floor to the version, so a fill that read the row before
     * the change cannot bring the old set back. Returns {@link #DROPPED}.
     */
    public static final String INVALIDATE = """
            local cur = tonumber(redis.call('GET', KEYS[2]))
            redis.call('DEL', KEYS[1])
            if (not cur) or cur < tonumber(ARGV[1]) then
              redis.call('SET', KEYS[2], ARGV[1], 'EX', tonumber(ARGV[2]))
            end
            return 1
            """;

    /** {@link #FILL} result: the set now reflects the given version. */
    public static final long FILLED = 1;
    /** {@link #FILL} result: a newer version is cached or recorded; nothing changed. */
    public static final long FILL_SKIPPED_NEWER = 0;
    /** {@link #APPLY} result: the change was applied to the cached set. */
    public static final long APPLIED = 0;
    /** {@link #APPLY} result: the cached set already reflects this version or a later one (redelivery). */
    public static final long ALREADY_APPLIED = 1;
    /** {@link #APPLY} result: the set is not cached; the version floor was recorded. */
    public static final long NOT_CACHED = 2;
    /** {@link #APPLY} result: the cached set missed a version and was dropped; the next read fills it. */
    public static final long INVALIDATED = 3;

    /** {@link #INVALIDATE} result: the set is gone and the floor is at least the given version. */
    public static final long DROPPED = 1;

    /** Argument of {@link #APPLY} for a follow. */
    public static final String ADD = "add";
    /** Argument of {@link #APPLY} for an unfollow. */
    public static final String REMOVE = "rem";

    /** {@code EVALSHA} digest of {@link #FILL}. */
    public static final String FILL_SHA1 = sha1(FILL);
    /** {@code EVALSHA} digest of {@link #APPLY}. */
    public static final String APPLY_SHA1 = sha1(APPLY);
    /** {@code EVALSHA} digest of {@link #INVALIDATE}. */
    public static final String INVALIDATE_SHA1 = sha1(INVALIDATE);

    private FollowingCacheScripts() {
    }

    /**
     * The digest Redis names a script by for {@code EVALSHA}: lower-case hex SHA-1 of its UTF-8 text (Redis
     * documentation, "Scripting with Lua", script cache).
     */
    public static String sha1(String script) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1")
                    .digest(script.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java SE implementation", e);
        }
    }
}
