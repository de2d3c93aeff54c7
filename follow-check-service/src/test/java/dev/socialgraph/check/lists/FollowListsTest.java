package dev.socialgraph.check.lists;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.socialgraph.check.cache.FollowerSideCache;
import dev.socialgraph.check.follow.FollowingRows;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.store.following.FollowingRow;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which reads memory answers and which go to a shard, over plain fakes. */
class FollowListsTest {

    static final long B = 50;

    /** B's followers 1..250, follower {@code i} followed at time {@code i} (so 250 is the newest). */
    final long[] followerIds = new long[250];
    final long[] followerTimes = new long[250];
    int followerPageReads;
    int followerCountReads;
    final Map<Long, FollowingRow> inMemory = new HashMap<>();
    final Map<Long, FollowingRow> onShard = new HashMap<>();
    int rowShardReads;
    /** The size of each "which of these follow?" question asked of the rows. */
    final java.util.List<Integer> whichFollowCalls = new java.util.ArrayList<>();

    final FollowLists.Shards shards = new FollowLists.Shards() {
        @Override
        public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit) {
            followerPageReads++;
            return AdjacencyArray.newestFirst(followerIds, followerTimes, cursorFollowedAt, cursorId, limit);
        }

        @Override
        public long followerCount(long followeeId) {
            followerCountReads++;
            return followerIds.length;
        }

        @Override
        public FollowLists.CountWithFollower followerCountWith(long followeeId, long followerId) {
            return new FollowLists.CountWithFollower(followerIds.length, followerId <= followerIds.length);
        }
    };

    final FollowingRows rows = new FollowingRows() {
        @Override
        public FollowingRow cachedRow(long followerId, long writer) {
            return writer == followerId ? null : inMemory.get(followerId);
        }

        @Override
        public FollowingRow followingRow(long followerId, long writer) {
            FollowingRow row = cachedRow(followerId, writer);
            if (row != null) {
                return row;
            }
            rowShardReads++;
            return onShard.getOrDefault(followerId, FollowingRow.empty(followerId));
        }

        @Override
        public long[] whichFollow(long[] followerIds, long followeeId, long writer, boolean mayBlock) {
            whichFollowCalls.add(followerIds.length);
            if (!mayBlock && Arrays.stream(followerIds).anyMatch(id -> cachedRow(id, writer) == null)) {
                return null;
            }
            return Arrays.stream(followerIds).filter(id -> followingRow(id, writer).followingIds().length > 0
                    && Arrays.binarySearch(followingRow(id, writer).followingIds(), followeeId) >= 0).toArray();
        }
    };

    final FollowerSideCache cache = cache(100);

    /** A follower-side cache of windows of 100 whose walks deepen them to {@code deepWindowSize}. */
    static FollowerSideCache cache(int deepWindowSize) {
        return new FollowerSideCache(1 << 20, 100, 100, deepWindowSize, Duration.ofSeconds(1),
                Duration.ofSeconds(60), Duration.ofSeconds(2), Ticker.systemTicker());
    }
    final FollowLists lists = new FollowLists(shards, rows, cache, ids -> ids.length > 0 && ids[0] == 7 ? 1 : 0);

    FollowListsTest() {
        for (int i = 0; i < followerIds.length; i++) {
            followerIds[i] = i + 1;
            followerTimes[i] = i + 1;
        }
    }

    @Test
    void knownFollowers_walkTheViewersRowNewestFirst_inGrowingChunks_untilThePageIsFull() {
        long viewer = 900;
        long user = 901;
        long[] followees = new long[300];
        for (int i = 0; i < followees.length; i++) {
            followees[i] = i + 1; // followed at time i + 1: 300 is the newest
            if (followees[i] % 2 == 0) {
                onShard.put(followees[i], new FollowingRow(followees[i], new long[] {user}, new long[] {1}, 1));
            }
        }
        onShard.put(viewer, new FollowingRow(viewer, followees, followees.clone(), 1));

        Page first = lists.knownFollowers(viewer, user, 0, Page.START, 20, 0, true);
        assertThat(first.ids()).startsWith(300, 298).endsWith(262).hasSize(20);
        assertThat(first.hasMore()).isTrue();
        assertThat(whichFollowCalls).as("the first 64 candidates held 32 followers").containsExactly(64);

        Page second = lists.knownFollowers(viewer, user, first.lastFollowedAt(), first.lastId(), 20, 0, true);
        assertThat(second.ids()).startsWith(260).endsWith(222).hasSize(20);

        whichFollowCalls.clear();
        Page last = lists.knownFollowers(viewer, user, 42, 42, 20, 0, true);
        assertThat(last.ids()).startsWith(40).endsWith(2).hasSize(20);
        assertThat(last.hasMore()).as("exactly a page was left").isFalse();

        whichFollowCalls.clear();
        Page none = lists.knownFollowers(viewer, 902, 0, Page.START, 20, 0, true);
        assertThat(none.ids()).isEmpty();
        assertThat(none.hasMore()).isFalse();
        assertThat(whichFollowCalls).as("64, then the 236 left").containsExactly(64, 236);
    }

    @Test
    void knownFollowers_withoutBlocking_comeFromMemory_orNotAtAll() {
        long viewer = 900;
        long user = 901;
        long[] followees = {1, 2, 3};
        onShard.put(viewer, new FollowingRow(viewer, followees, new long[] {1, 2, 3}, 1));
        onShard.put(2L, new FollowingRow(2, new long[] {user}, new long[] {1}, 1));
        assertThat(lists.knownFollowers(viewer, user, 0, Page.START, 20, 0, false)).as("no row in memory").isNull();

        inMemory.put(viewer, onShard.get(viewer));
        inMemory.put(2L, onShard.get(2L));
        assertThat(lists.knownFollowers(viewer, user, 0, Page.START, 20, 0, false))
                .as("1 and 3 are not in memory").isNull();
        inMemory.put(1L, FollowingRow.empty(1));
        inMemory.put(3L, FollowingRow.empty(3));
        assertThat(lists.knownFollowers(viewer, user, 0, Page.START, 20, 0, false).ids()).containsExactly(2L);
        assertThat(rowShardReads).isZero();
    }

    @Test
    void followersFirstPages_comeFromTheWindowAfterOneRead_andPagesPastItFromTheShard() {
        Page first = lists.followers(B, 0, Page.START, 20, true, true);
        assertThat(first.ids()).startsWith(250, 249).hasSize(20);
        assertThat(followerPageReads).isOne();
        Page again = lists.followers(B, 0, Page.START, 100, true, true);
        assertThat(again.ids()).startsWith(250).endsWith(151);
        Page second = lists.followers(B, first.lastFollowedAt(), first.lastId(), 20, true, true);
        assertThat(second.ids()).startsWith(230).hasSize(20);
        assertThat(followerPageReads).as("both from the window").isOne();

        Page past = lists.followers(B, 151, 151, 20, true, true);
        assertThat(past.ids()).startsWith(150).hasSize(20);
        assertThat(followerPageReads).as("past the window").isEqualTo(2);
        lists.followers(B, 0, Page.START, 101, true, true);
        assertThat(followerPageReads).as("larger than the window").isEqualTo(3);
        lists.followers(B, 0, Page.START, 20, false, true);
        assertThat(followerPageReads).as("a stale feed").isEqualTo(4);
    }

    @Test
    void aWalkThatReachesTheWindowsEnd_deepensItOnce_andItsNextPagesComeFromMemory() {
        FollowerSideCache deepening = cache(200);
        FollowLists walked = new FollowLists(shards, rows, deepening, ids -> 0);
        Page page = walked.followers(B, 0, Page.START, 50, true, true);
        java.util.List<Long> seen = new java.util.ArrayList<>();
        int pages = 1;
        Arrays.stream(page.ids()).forEach(seen::add);
        while (page.hasMore()) {
            page = walked.followers(B, page.lastFollowedAt(), page.lastId(), 50, true, true);
            Arrays.stream(page.ids()).forEach(seen::add);
            pages++;
        }
        assertThat(seen).as("every follower once, newest first").hasSize(250).startsWith(250L, 249L).endsWith(1L)
                .doesNotHaveDuplicates();
        assertThat(pages).isEqualTo(5);
        assertThat(deepening.window(B).ids()).as("deepened to 200").hasSize(200);
        // the first fill, one deepening at item 100, then the page past the deep window (items 50..1)
        assertThat(followerPageReads).isEqualTo(3);

        walked.followers(B, 101, 101, 50, true, true);
        assertThat(followerPageReads).as("a second walk reads the deep window").isEqualTo(3);
        walked.followers(B, 51, 51, 50, true, true);
        assertThat(followerPageReads).as("past the deep window: the shard, no deeper read").isEqualTo(4);
        assertThat(deepening.window(B).ids()).hasSize(200);
        assertThat(deepening.deepened()).isOne();
    }

    @Test
    void aDeepWindow_servesPagesLargerThanAFirstPagesWindow() {
        FollowerSideCache deepening = cache(300);
        FollowLists walked = new FollowLists(shards, rows, deepening, ids -> 0);
        assertThat(walked.followers(B, 0, Page.START, 150, true, true).ids()).hasSize(150).startsWith(250);
        assertThat(deepening.window(B)).as("a first page larger than a window fills none").isNull();
        walked.followers(B, 0, Page.START, 100, true, true);
        Page deep = walked.followers(B, 151, 151, 150, true, true);
        assertThat(deep.ids()).hasSize(150).startsWith(150).endsWith(1);
        assertThat(deep.hasMore()).isFalse();
        assertThat(deepening.window(B).complete()).as("all 250 followers").isTrue();
        assertThat(followerPageReads).as("the shard's first page, the window, its deepening").isEqualTo(3);
        walked.followers(B, 0, Page.START, 150, false, true);
        assertThat(followerPageReads).as("a stale feed reads the shard").isEqualTo(4);
        deep = walked.followers(B, 201, 201, 150, true, false);
        assertThat(deep.ids()).as("from the deep window, even on an I/O thread").hasSize(150).startsWith(200);
        assertThat(followerPageReads).isEqualTo(4);
    }

    @Test
    void aWalkPastTheWindowsEnd_orWithoutAWindow_readsTheShardAndDeepensNothing() {
        FollowerSideCache deepening = cache(200);
        FollowLists walked = new FollowLists(shards, rows, deepening, ids -> 0);
        assertThat(walked.followers(B, 120, 120, 20, true, true).ids()).startsWith(119).hasSize(20);
        assertThat(deepening.window(B)).as("no window: the page alone is read").isNull();
        walked.followers(B, 0, Page.START, 20, true, true);
        assertThat(walked.followers(B, 120, 120, 20, true, true).ids()).startsWith(119).hasSize(20);
        assertThat(deepening.window(B).ids()).as("a walk already past the window").hasSize(100);
        assertThat(followerPageReads).isEqualTo(3);
        assertThat(deepening.deepened()).isZero();
    }

    @Test
    void counts_followerCountOnceFromTheShard_followingFromTheRowInMemoryLessInactiveUsers() {
        inMemory.put(B, new FollowingRow(B, new long[] {7, 8, 9}, new long[] {1, 2, 3}, 3));
        assertThat(lists.counts(B, 0, true, true)).isEqualTo(new FollowLists.Counts(250, 2));
        assertThat(lists.counts(B, 0, true, true)).isEqualTo(new FollowLists.Counts(250, 2));
        assertThat(followerCountReads).isOne();
        assertThat(rowShardReads).isZero();

        onShard.put(B, new FollowingRow(B, new long[] {7, 8, 9, 10}, new long[] {1, 2, 3, 4}, 4));
        assertThat(lists.counts(B, B, true, true).following()).as("the user's own token: its shard's row, less 7")
                .isEqualTo(3);
        assertThat(rowShardReads).isOne();
        lists.counts(B, 0, false, true);
        assertThat(followerCountReads).as("a stale feed").isEqualTo(2);
    }

    @Test
    void counts_ofAUserWhoseRowMemoryDoesNotHold_readTheWholeRow_lessInactiveUsers() {
        onShard.put(300L, new FollowingRow(300, new long[] {7, 8}, new long[] {1, 2}, 2));
        assertThat(lists.counts(300, 0, true, false)).as("on an I/O thread: not from memory").isNull();
        assertThat(lists.counts(300, 0, true, true).following()).as("7 is inactive").isEqualTo(1);
        assertThat(rowShardReads).as("the row, through the layers that then hold it").isOne();
    }

    @Test
    void followerCountAfterWrite_correctsByTheFollowersOwnRow() {
        onShard.put(300L, new FollowingRow(300, new long[] {B}, new long[] {9}, 1));
        assertThat(lists.followerCountAfterWrite(B, 300)).as("followed, not on the follower side yet")
                .isEqualTo(251);
        assertThat(lists.followerCountAfterWrite(B, 5)).as("unfollowed, still on the follower side").isEqualTo(249);
        onShard.put(5L, new FollowingRow(5, new long[] {B}, new long[] {5}, 1));
        assertThat(lists.followerCountAfterWrite(B, 5)).as("both agree").isEqualTo(250);
        assertThat(lists.followedAt(300, B)).isEqualTo(9);
        assertThat(lists.followedAt(300, 51)).isEqualTo(FollowLists.NOT_FOLLOWING);
    }

    @Test
    void followingAndCommonFollowing_readNoShardForUsersInMemory() {
        inMemory.put(1L, new FollowingRow(1, new long[] {5, 6, 7}, new long[] {3, 1, 2}, 3));
        inMemory.put(2L, new FollowingRow(2, new long[] {6, 7, 8}, new long[] {1, 1, 1}, 3));
        assertThat(lists.following(1, 0, Page.START, 2, 0, true).ids()).containsExactly(5, 7);
        assertThat(lists.commonFollowing(1, 2, 0, 10, 0, true).ids()).containsExactly(6, 7);
        assertThat(rowShardReads).isZero();
        lists.commonFollowing(1, 2, 0, 10, 2, true);
        assertThat(rowShardReads).as("the writer's own row").isOne();
    }

    @Test
    void withoutTheFollowerSideCache_everyFollowerReadGoesToTheShard() {
        FollowLists off = new FollowLists(shards, rows, null, ids -> 0);
        off.followers(B, 0, Page.START, 20, true, true);
        off.followers(B, 0, Page.START, 20, true, true);
        off.counts(B, 0, true, true);
        off.counts(B, 0, true, true);
        assertThat(followerPageReads).isEqualTo(2);
        assertThat(followerCountReads).isEqualTo(2);
    }

    /** On an I/O thread a read answers only from memory, and reads nothing when memory does not hold it. */
    @Test
    void withoutBlocking_readsAnswerFromMemoryOrNotAtAll() {
        assertThat(lists.followers(B, 0, Page.START, 20, true, false)).isNull();
        assertThat(lists.counts(B, 0, true, false)).isNull();
        assertThat(lists.following(1, 0, Page.START, 2, 0, false)).isNull();
        assertThat(lists.commonFollowing(1, 2, 0, 10, 0, false)).isNull();
        assertThat(followerPageReads + followerCountReads + rowShardReads).isZero();

        lists.followers(B, 0, Page.START, 20, true, true);
        inMemory.put(B, new FollowingRow(B, new long[] {8}, new long[] {1}, 1));
        lists.counts(B, 0, true, true);
        inMemory.put(1L, new FollowingRow(1, new long[] {5, 6}, new long[] {1, 2}, 2));
        inMemory.put(2L, new FollowingRow(2, new long[] {6}, new long[] {1}, 1));
        assertThat(lists.followers(B, 0, Page.START, 20, true, false).ids()).hasSize(20);
        assertThat(lists.counts(B, 0, true, false)).isEqualTo(new FollowLists.Counts(250, 1));
        assertThat(lists.following(1, 0, Page.START, 2, 0, false).ids()).containsExactly(6, 5);
        assertThat(lists.commonFollowing(1, 2, 0, 10, 0, false).ids()).containsExactly(6);
        assertThat(lists.followers(B, 0, Page.START, 20, false, false)).as("a stale feed").isNull();
    }

    /**
     * A followee whose window holds all its followers is counted from the window, less the inactive users: one read
     * of the window, no count statement, and no life of its own (it lives as long as the window).
     */
    @Test
    void followerCount_ofAFolloweeTheWindowHoldsWhole_comesFromTheWindow() {
        int[] reads = new int[2];
        FollowLists.Shards small = new FollowLists.Shards() {
            @Override
            public Page followers(long followeeId, long cursorFollowedAt, long cursorId, int limit) {
                reads[0]++;
                return AdjacencyArray.newestFirst(new long[] {7, 8, 9}, new long[] {1, 2, 3}, cursorFollowedAt,
                        cursorId, limit);
            }

            @Override
            public long followerCount(long followeeId) {
                reads[1]++;
                return 3;
            }

            @Override
            public FollowLists.CountWithFollower followerCountWith(long followeeId, long followerId) {
                return new FollowLists.CountWithFollower(3, false);
            }
        };
        FollowLists counted = new FollowLists(small, rows, cache, ids -> (int) java.util.Arrays.stream(ids)
                .filter(id -> id == 8).count());
        inMemory.put(B, new FollowingRow(B, new long[] {1}, new long[] {1}, 1));
        assertThat(counted.counts(B, 0, true, false)).as("nothing of the follower side in memory yet").isNull();
        assertThat(counted.counts(B, 0, true, true).followers()).as("8 is inactive").isEqualTo(2);
        assertThat(counted.counts(B, 0, true, false).followers()).isEqualTo(2);
        assertThat(reads).as("one window read, no count statement").containsExactly(1, 0);
    }
}
