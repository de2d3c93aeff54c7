package dev.socialgraph.check.cache;

import dev.socialgraph.store.following.FollowingRow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalFollowingCacheTest {

    static final long BUDGET = 64L << 20;

    /** A row of {@code ids}, each followed at the time equal to its id (so patches can be checked to keep times). */
    static FollowingRow row(long follower, long[] ids, long version) {
        return new FollowingRow(follower, ids, ids.clone(), version);
    }

    @Test
    void put_thenFollowing_returnsTheArray() {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        assertThat(cache.put(row(7, new long[] {2, 5}, 3), cache.ticket(7))).isTrue();
        assertThat(cache.following(7)).containsExactly(2, 5);
        assertThat(cache.row(7).version()).isEqualTo(3);
        assertThat(cache.following(8)).isNull();
    }

    @Test
    void apply_nextVersion_patchesInPlaceOfTheOldArray() {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        long[] original = {2, 5};
        cache.put(row(7, original, 3), cache.ticket(7));
        cache.apply(7, 4, true, 4, 4);
        cache.apply(7, 2, false, 2, 5);
        assertThat(cache.following(7)).containsExactly(4, 5);
        assertThat(cache.row(7).followedAt()).containsExactly(4, 5); // each patch kept its follow time aligned
        assertThat(cache.row(7).version()).isEqualTo(5);
        assertThat(original).containsExactly(2, 5); // readers of the old array are never disturbed
        assertThat(cache.patched()).isEqualTo(2);
    }

    @Test
    void apply_redeliveredOrOlderVersion_isIgnored() {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        cache.put(row(7, new long[] {2, 5}, 3), cache.ticket(7));
        cache.apply(7, 9, true, 9, 3);
        cache.apply(7, 2, false, 2, 1);
        assertThat(cache.following(7)).containsExactly(2, 5);
        assertThat(cache.row(7).version()).isEqualTo(3);
    }

    @Test
    void apply_versionGap_dropsTheEntry() {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        cache.put(row(7, new long[] {2, 5}, 3), cache.ticket(7));
        cache.apply(7, 9, true, 9, 5); // version 4 was missed
        assertThat(cache.following(7)).isNull();
        assertThat(cache.dropped()).isEqualTo(1);
    }

    @Test
    void put_afterAnEventOfTheFollowerArrivedDuringTheRead_isRefused() {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        long ticket = cache.ticket(7);
        cache.apply(7, 9, true, 9, 4); // not cached yet: nothing to patch, but the row read below may predate it
        assertThat(cache.put(row(7, new long[] {2, 5}, 3), ticket)).isFalse();
        assertThat(cache.following(7)).isNull();
        assertThat(cache.refusedFills()).isEqualTo(1);
        assertThat(cache.put(row(7, new long[] {2, 5, 9}, 4), cache.ticket(7))).isTrue(); // a fresh read is admitted
    }

    @Test
    void put_olderVersionThanCached_keepsTheNewer() {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        cache.put(row(7, new long[] {2, 5, 9}, 4), cache.ticket(7));
        assertThat(cache.put(row(7, new long[] {2, 5}, 3), cache.ticket(7))).isFalse();
        assertThat(cache.following(7)).containsExactly(2, 5, 9);
    }

    @Test
    void invalidateAndClear_dropEntriesAndRefuseFillsInFlight() {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        cache.put(row(7, new long[] {2}, 1), cache.ticket(7));
        long ticket = cache.ticket(8);
        cache.clear();
        assertThat(cache.following(7)).isNull();
        assertThat(cache.put(row(8, new long[] {3}, 1), ticket)).isFalse();
        long ticket7 = cache.ticket(7);
        cache.invalidate(7);
        assertThat(cache.put(row(7, new long[] {2}, 1), ticket7)).isFalse();
    }

    @Test
    void weight_isSixteenBytesPerEdgePlusTheEntryOverhead() {
        assertThat(LocalFollowingCache.weight(0)).isEqualTo(144);
        assertThat(LocalFollowingCache.weight(10_000)).isEqualTo(144 + 160_000);
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        cache.put(row(1, new long[] {2, 3, 4}, 1), cache.ticket(1));
        cache.put(row(2, new long[] {3}, 1), cache.ticket(2));
        assertThat(cache.weightedBytes()).isEqualTo(2 * 144 + 4 * 16);
    }

    @Test
    void budget_mustBePositive() {
        assertThatThrownBy(() -> new LocalFollowingCache(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Random follows and unfollows of a few followers, delivered as events that are reordered (a follower's events
     * come from different partitions), redelivered and sometimes missed, interleaved with fills from the "shard"
     * (the model's row when the fill's read happens). Invariant after every step: a cached entry of version
     * {@code v} equals the model's row at version {@code v}, and no entry is older than an event already applied
     * to it would allow: it is never behind an event it was given.
     */
    @Test
    void cache_againstAModel_underReorderedMissedAndRedeliveredEvents_isAlwaysExact() {
        for (long seed = 1; seed <= 200; seed++) {
            runModel(new Random(seed));
        }
    }

    record Event(long follower, long followee, boolean follow, long version) {
    }

    /** Commits a random follow or unfollow of {@code f}; {@code null} when it was an idempotent no-op. */
    private static Event commit(Random random, long f, TreeSet<Long> row, List<long[]> history) {
        long followee = 100 + random.nextInt(8);
        boolean follow = !row.contains(followee);
        if (follow) {
            row.add(followee);
        } else {
            row.remove(followee);
        }
        history.add(row.stream().mapToLong(Long::longValue).toArray());
        return new Event(f, followee, follow, history.size() - 1);
    }

    private static void runModel(Random random) {
        LocalFollowingCache cache = new LocalFollowingCache(BUDGET);
        int followers = 1 + random.nextInt(4);
        Map<Long, List<long[]>> history = new HashMap<>(); // follower -> row at version v (index v)
        Map<Long, TreeSet<Long>> rows = new HashMap<>();
        for (long f = 1; f <= followers; f++) {
            history.computeIfAbsent(f, k -> new ArrayList<>()).add(new long[0]);
            rows.put(f, new TreeSet<>());
        }
        List<Event> inFlight = new ArrayList<>();
        Map<Long, Long> appliedMax = new HashMap<>();
        for (int step = 0; step < 300; step++) {
            int action = random.nextInt(10);
            long f = 1 + random.nextInt(followers);
            if (action < 4) { // a committed change, its event on its way
                Event e = commit(random, f, rows.get(f), history.get(f));
                if (e != null) {
                    inFlight.add(e);
                }
            } else if (action < 7 && !inFlight.isEmpty()) { // deliver one, out of order
                Event e = inFlight.remove(random.nextInt(inFlight.size()));
                if (random.nextInt(10) == 0) {
                    continue; // missed
                }
                cache.apply(e.follower(), e.followee(), e.follow(), e.followee(), e.version());
                appliedMax.merge(e.follower(), e.version(), Math::max);
                if (random.nextInt(5) == 0) {
                    inFlight.add(e); // redelivered later
                }
            } else if (action < 9) { // a fill: ticket, read the row, maybe some events land, then put
                long ticket = cache.ticket(f);
                List<long[]> h = history.get(f);
                int version = h.size() - 1;
                long[] read = h.get(version);
                if (random.nextBoolean() && !inFlight.isEmpty()) { // an older event lands during the read
                    Collections.shuffle(inFlight, random);
                    Event e = inFlight.remove(0);
                    cache.apply(e.follower(), e.followee(), e.follow(), e.followee(), e.version());
                    appliedMax.merge(e.follower(), e.version(), Math::max);
                }
                if (random.nextBoolean()) { // a change committed after the read, its event applied before the put
                    Event e = commit(random, f, rows.get(f), history.get(f));
                    if (e != null) {
                        cache.apply(e.follower(), e.followee(), e.follow(), e.followee(), e.version());
                        appliedMax.merge(e.follower(), e.version(), Math::max);
                    }
                }
                cache.put(row(f, read, version), ticket);
            } else {
                cache.invalidate(f);
            }
            for (long g = 1; g <= followers; g++) {
                FollowingRow entry = cache.row(g);
                if (entry != null) {
                    assertThat(entry.followedAt()).as("follower %d's times stay aligned with its ids", g)
                            .containsExactly(entry.followingIds());
                    assertThat(entry.followingIds()).as("follower %d at version %d", g, entry.version())
                            .containsExactly(history.get(g).get((int) entry.version()));
                    assertThat(entry.version()).as("follower %d is behind an event it was given", g)
                            .isGreaterThanOrEqualTo(appliedMax.getOrDefault(g, 0L));
                }
            }
        }
    }
}
