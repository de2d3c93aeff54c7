package dev.socialgraph.check.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.socialgraph.check.CheckProperties;
import org.springframework.stereotype.Component;

/**
 * The in-process cache of hot users' following arrays (DESIGN.md 5 step 3): a hit answers with a binary
 * search and no network call. Bounded by a memory budget (a weigher of 8 bytes per id plus overhead), and by
 * a short time to live: until this instance consumes {@code follow-events} to patch or invalidate entries,
 * the time to live is what bounds how stale an answer can be.
 */
@Component
public class LocalFollowingCache {

    /** Object header, array header and the version: what an entry costs besides its ids, in bytes. */
    private static final int ENTRY_OVERHEAD_BYTES = 64;

    /**
     * A cached following array.
     *
     * @param ids     followee ids, sorted ascending; not to be modified
     * @param version the row version the array was read at
     */
    public record Entry(long[] ids, long version) {
    }

    private final Cache<Long, Entry> cache;

    LocalFollowingCache(CheckProperties properties) {
        this.cache = Caffeine.newBuilder()
                .maximumWeight(properties.localCacheBudget().toBytes())
                .weigher((Long id, Entry e) -> ENTRY_OVERHEAD_BYTES + 8 * e.ids().length)
                .expireAfterWrite(properties.localCacheTtl())
                .build();
    }

    /**
     * The cached array of {@code followerId}.
     *
     * @param followerId positive
     * @return the entry, or {@code null}
     */
    public Entry get(long followerId) {
        return cache.getIfPresent(followerId);
    }

    /**
     * Caches a row read from the shard, unless a newer version is already cached.
     *
     * @param followerId positive
     * @param ids        sorted ascending
     * @param version    the row's version
     */
    public void put(long followerId, long[] ids, long version) {
        Entry fresh = new Entry(ids, version);
        cache.asMap().merge(followerId, fresh, (old, neu) -> old.version() > neu.version() ? old : neu);
    }

    /**
     * Drops the entry of {@code followerId}: its row changed (a follow event).
     *
     * @param followerId positive
     */
    public void invalidate(long followerId) {
        cache.invalidate(followerId);
    }

    /** Drops every entry (tests and operators). */
    public void clear() {
        cache.invalidateAll();
    }
}
