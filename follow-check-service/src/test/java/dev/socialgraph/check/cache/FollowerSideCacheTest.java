package dev.socialgraph.check.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.socialgraph.common.adjacency.Page;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FollowerSideCacheTest {

    static final long B = 42;
    final AtomicLong nanos = new AtomicLong(1);
    final Ticker ticker = nanos::get;

    FollowerSideCache cache(Duration staleBound) {
        return new FollowerSideCache(1 << 20, 1000, 5, 5, staleBound, Duration.ofSeconds(60), Duration.ofSeconds(2),
                ticker);
    }

    /** Followers 10..n, newest first: 10 followed last; follow time = 1000 - id. */
    static FollowerSideCache.Window window(boolean complete, long... ids) {
        long[] times = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            times[i] = 1000 - ids[i];
        }
        return new FollowerSideCache.Window(ids, times, complete);
    }

    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    @Test
    void window_servesTheFirstPagesItHoldsWhole_andNothingPastItsEnd() {
        FollowerSideCache.Window w = window(false, 10, 11, 12, 13, 14);
        assertThat(w.page(0, Page.START, 2)).isEqualTo(new Page(new long[] {10, 11}, new long[] {990, 989}, true));
        assertThat(w.page(989, 11, 3)).as("after the cursor (989, 11)")
                .isEqualTo(new Page(new long[] {12, 13, 14}, new long[] {988, 987, 986}, true));
        assertThat(w.page(988, 12, 3)).as("the window ends before the page would").isNull();
        assertThat(w.page(0, Page.START, 6)).isNull();
    }

    @Test
    void window_continuesAfterAPositionItDoesNotHold() {
        FollowerSideCache.Window w = window(false, 10, 11, 12, 13, 14, 15);
        assertThat(w.page(989, 5, 2).ids()).as("between 11 (989) and 12 (988)").containsExactly(12, 13);
        assertThat(w.page(995, 1, 2).ids()).as("newer than the whole window").containsExactly(10, 11);
        assertThat(w.page(989, 12, 2).ids()).as("same time, larger id: 11 comes after it").containsExactly(11, 12);
        assertThat(w.page(980, 1, 1)).as("older than the whole window").isNull();
    }

    @Test
    void walkReachesEnd_onlyAtOrInsideAnIncompleteWindowShallowerThanTheDeepSize() {
        FollowerSideCache.Window w = window(false, 10, 11, 12);
        assertThat(w.walkReachesEnd(988, 12, 10)).as("at its oldest follower").isTrue();
        assertThat(w.walkReachesEnd(989, 11, 10)).as("inside it").isTrue();
        assertThat(w.walkReachesEnd(987, 13, 10)).as("past it").isFalse();
        assertThat(w.walkReachesEnd(988, 12, 3)).as("as deep as a deep window").isFalse();
        assertThat(window(true, 10, 11, 12).walkReachesEnd(988, 12, 10)).as("complete").isFalse();
        assertThat(window(false).walkReachesEnd(988, 12, 10)).as("empty").isFalse();
    }

    @Test
    void completeWindow_servesTheLastPage_withoutMore() {
        FollowerSideCache.Window w = window(true, 10, 11, 12);
        assertThat(w.page(989, 11, 5)).isEqualTo(new Page(new long[] {12}, new long[] {988}, false));
        assertThat(w.page(0, Page.START, 3).hasMore()).isFalse();
        assertThat(w.page(0, Page.START, 2).hasMore()).isTrue();
        assertThat(w.page(988, 12, 5)).isEqualTo(new Page(new long[0], new long[0], false));
    }

    @Test
    void window_ofAFirstPage_isCompleteWhenNothingFollows() {
        assertThat(FollowerSideCache.Window.of(new Page(new long[] {1}, new long[] {5}, false)).complete()).isTrue();
        assertThat(FollowerSideCache.Window.of(new Page(new long[] {1}, new long[] {5}, true)).complete()).isFalse();
    }

    @Test
    void putThenRead_servesWindowAndCount() {
        FollowerSideCache cache = cache(Duration.ofSeconds(1));
        assertThat(cache.window(B)).isNull();
        assertThat(cache.count(B)).isEqualTo(-1);
        assertThat(cache.putWindow(B, window(true, 10), cache.ticket(B))).isTrue();
        assertThat(cache.putCount(B, 7, cache.ticket(B))).isTrue();
        assertThat(cache.window(B).ids()).containsExactly(10);
        assertThat(cache.count(B)).isEqualTo(7);
    }

    /**
     * The follower side is written after the event: the old entry is served while the cdc-consumer applies it (up to
     * the stale bound), no fill is cached meanwhile, and once the group's offset passes the event the entry is dropped.
     */
    @Test
    void event_keepsTheOldEntryWithinTheStaleBound_andTheWatermarkDropsIt() {
        FollowerSideCache cache = cache(Duration.ofSeconds(1));
        cache.putCount(B, 7, cache.ticket(B));
        cache.changed(B, 3, 100);
        assertThat(cache.count(B)).as("within the stale bound").isEqualTo(7);
        assertThat(cache.ticket(B)).isEqualTo(FollowerSideCache.NO_FILL);
        assertThat(cache.putCount(B, 8, cache.ticket(B))).as("what the shard shows may miss the event").isFalse();

        cache.applied(3, 100); // the group's next record is the event itself: not applied yet
        cache.applied(4, 500); // another partition
        assertThat(cache.pending()).isEqualTo(1);
        assertThat(cache.count(B)).isEqualTo(7);

        cache.applied(3, 101);
        assertThat(cache.pending()).isZero();
        assertThat(cache.count(B)).as("dropped for a refill").isEqualTo(-1);
        assertThat(cache.putCount(B, 8, cache.ticket(B))).isTrue();
        assertThat(cache.count(B)).isEqualTo(8);
        assertThat(cache.invalidated()).isEqualTo(1);
    }

    @Test
    void recount_dropsTheCount_andRefusesACountFillInFlight_butKeepsTheWindow() {
        FollowerSideCache cache = cache(Duration.ofSeconds(1));
        cache.putWindow(B, window(false, 10, 11, 12, 13, 14), cache.ticket(B));
        cache.putCount(B, 7, cache.ticket(B));
        long inFlight = cache.ticket(B); // a fill that read the count before the job's move

        cache.recounted(B);

        assertThat(cache.count(B)).as("the count the job moved").isEqualTo(-1);
        assertThat(cache.putCount(B, 7, inFlight)).as("the count read before the move").isFalse();
        assertThat(cache.count(B)).isEqualTo(-1);
        assertThat(cache.window(B)).as("the window: inactive users leave a page when it is read").isNotNull();
        assertThat(cache.recountedCounts()).isEqualTo(1);
        assertThat(cache.putCount(B, 6, cache.ticket(B))).as("a fill after the move").isTrue();
        assertThat(cache.count(B)).isEqualTo(6);

        cache.recounted(B + 1); // nothing cached: nothing to drop
        assertThat(cache.recountedCounts()).isEqualTo(1);
        assertThat(cache.count(B)).isEqualTo(6);
    }

    @Test
    void pendingPastTheStaleBound_isNotServed() {
        FollowerSideCache cache = cache(Duration.ofSeconds(1));
        cache.putWindow(B, window(true, 10), cache.ticket(B));
        cache.changed(B, 0, 5);
        advance(Duration.ofMillis(1001));
        assertThat(cache.window(B)).isNull();
        cache.changed(B, 0, 6); // a newer event keeps the first one's time: the bound counts from the oldest
        assertThat(cache.window(B)).isNull();
        cache.applied(0, 6);
        assertThat(cache.pending()).as("the newer event is not applied yet").isEqualTo(1);
        cache.applied(0, 7);
        assertThat(cache.pending()).isZero();
    }

    @Test
    void eventDuringAFill_refusesIt() {
        FollowerSideCache cache = cache(Duration.ofSeconds(1));
        long ticket = cache.ticket(B);
        cache.changed(B, 0, 1);
        cache.applied(0, 2);
        assertThat(cache.putWindow(B, window(true, 10), ticket)).isFalse();
        assertThat(cache.window(B)).isNull();
        assertThat(cache.refusedFills()).isEqualTo(1);
    }

    @Test
    void countsExpireAfterTheirMaxAge_windowsAfterTheirs() {
        FollowerSideCache cache = cache(Duration.ofSeconds(1));
        cache.putCount(B, 7, cache.ticket(B));
        cache.putWindow(B, window(true, 10), cache.ticket(B));
        advance(Duration.ofMillis(2001));
        assertThat(cache.count(B)).isEqualTo(-1);
        assertThat(cache.window(B)).isNotNull();
        advance(Duration.ofSeconds(60));
        assertThat(cache.window(B)).isNull();
    }

    @Test
    void clear_dropsEntriesMarksAndFillsInFlight() {
        FollowerSideCache cache = cache(Duration.ofSeconds(1));
        cache.putCount(B, 7, cache.ticket(B));
        cache.changed(43, 0, 1);
        long ticket = cache.ticket(44);
        cache.clear();
        assertThat(cache.count(B)).isEqualTo(-1);
        assertThat(cache.pending()).isZero();
        assertThat(cache.putCount(44, 1, ticket)).isFalse();
    }

    @Test
    void bounds_mustBePositive() {
        assertThatThrownBy(() -> new FollowerSideCache(0, 1, 1, 1, Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofSeconds(1), ticker)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FollowerSideCache(1, 1, 0, 1, Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofSeconds(1), ticker)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FollowerSideCache(1, 1, 5, 4, Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofSeconds(1), ticker)).as("a deep window smaller than a window")
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A model of the pipeline: a partition of follow events of a few followees; the cdc-consumer applies them in order
     * and commits (lagging at random), this instance reads them (lagging the log, ahead of or behind the cdc-consumer),
     * fills read what the cdc-consumer applied, and the watermark arrives at random. With a stale bound of zero, every
     * count served must hold every event of its followee this instance has read: never behind an event it was given.
     */
    @Test
    void cache_againstAModelPipeline_neverServesACountBehindAnEventItRead() {
        for (long seed = 1; seed <= 300; seed++) {
            runModel(new Random(seed));
        }
    }

    record Event(long followee, int delta) {
    }

    private void runModel(Random random) {
        FollowerSideCache cache = cache(Duration.ZERO);
        List<Event> log = new ArrayList<>();
        long[] applied = new long[4]; // followee -> count on the follower side, as the cdc-consumer applied
        int cdcApplied = 0;           // the cdc-consumer applied log[0 .. cdcApplied)
        int committed = 0;            // and committed this offset
        int read = 0;                 // this instance read log[0 .. read)
        for (int step = 0; step < 200; step++) {
            nanos.incrementAndGet(); // time passes: with a stale bound of zero a pending entry is never served
            switch (random.nextInt(6)) {
                case 0 -> log.add(new Event(random.nextInt(4), random.nextBoolean() ? 1 : -1));
                case 1 -> {
                    if (cdcApplied < log.size()) {
                        Event e = log.get(cdcApplied++);
                        applied[(int) e.followee()] += e.delta();
                    }
                }
                case 2 -> {
                    committed = cdcApplied;
                    cache.applied(0, committed);
                }
                case 3 -> {
                    if (read < log.size()) {
                        cache.changed(log.get(read).followee(), 0, read);
                        read++;
                    }
                }
                case 4 -> {
                    long f = random.nextInt(4);
                    long ticket = cache.ticket(f);
                    long seen = applied[(int) f]; // the shard read
                    if (random.nextBoolean() && read < log.size()) {
                        cache.changed(log.get(read).followee(), 0, read); // an event during the read
                        read++;
                    }
                    cache.putCount(f, seen, ticket);
                }
                default -> {
                    long f = random.nextInt(4);
                    long served = cache.count(f);
                    if (served >= 0) {
                        assertThat(served).as("followee %d served a count behind an event read", f)
                                .isIn(possible(log, f, read, Math.max(read, cdcApplied)));
                    }
                }
            }
        }
    }

    /** The counts of {@code f} after any prefix of the log from {@code from} to {@code to} events long. */
    private static List<Long> possible(List<Event> log, long f, int from, int to) {
        List<Long> out = new ArrayList<>();
        for (int n = from; n <= to; n++) {
            long c = 0;
            for (int i = 0; i < n; i++) {
                if (log.get(i).followee() == f) {
                    c += log.get(i).delta();
                }
            }
            out.add(c);
        }
        return out;
    }
}
