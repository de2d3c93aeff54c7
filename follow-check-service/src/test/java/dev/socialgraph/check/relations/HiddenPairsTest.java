package dev.socialgraph.check.relations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.feed.FeedLag;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The filter of hidden pairs on its own: which pairs a block and a mute put, trust, and the slice of an instance that
 * owns some logical shards (pairs of other viewers are kept out, and answered "maybe").
 */
class HiddenPairsTest {

    static final int SHARDS = 16;

    private final long now = 1_700_000_000_000L;
    private final FeedLag feed = new FeedLag(() -> now, 2_000);

    private HiddenPairs pairs(ShardOwnership ownership) {
        HiddenPairs pairs = new HiddenPairs(feed, ownership, new SimpleMeterRegistry());
        pairs.begin(0);
        return pairs;
    }

    private static ShardOwnership all() {
        return new ShardOwnership(new CheckProperties.Affinity("local", List.of()), SHARDS);
    }

    @Test
    void aBlockHidesBothWays_aMuteOneWay_andNothingIsTrustedBeforeTheScanAndAFreshFeed() {
        HiddenPairs pairs = pairs(all());
        pairs.apply(FollowEvent.of(FollowEvent.Type.BLOCK, 1, 2, now, 1, now));
        pairs.record(Relation.MUTE, 3, 4);
        pairs.apply(FollowEvent.of(FollowEvent.Type.FOLLOW, 5, 6, now, 1, now));
        pairs.apply(FollowEvent.of(FollowEvent.Type.UNBLOCK, 7, 8, now, 1, now));
        pairs.apply(FollowEvent.of(FollowEvent.Type.REQUEST, 9, 10, now, 1, now));

        assertThat(pairs.mayHide(1, 2)).isTrue();
        assertThat(pairs.mayHide(2, 1)).isTrue();
        assertThat(pairs.mayHide(3, 4)).isTrue();
        assertThat(pairs.mayHide(4, 3)).isFalse();
        assertThat(pairs.mayHide(5, 6)).as("follows are not hidden pairs").isFalse();
        assertThat(pairs.mayHide(9, 10)).as("nor follow requests").isFalse();
        assertThat(pairs.mayHide(10, 9)).isFalse();
        assertThat(pairs.mayHide(7, 8)).as("a removal adds nothing").isFalse();
        assertThat(pairs.mayHideAny(1)).isTrue();
        assertThat(pairs.mayHideAny(2)).as("the blocked user's own pair").isTrue();
        assertThat(pairs.mayHideAny(3)).isTrue();
        assertThat(pairs.mayHideAny(4)).as("a muted user hides nobody").isFalse();
        assertThat(pairs.mayHideAny(5)).as("follows put no viewer").isFalse();
        assertThat(pairs.mayHideAny(9)).isFalse();
        assertThat(pairs.mayHideAny(7)).isFalse();

        assertThat(pairs.trusted()).isFalse();
        pairs.markReady();
        assertThat(pairs.trusted()).as("the feed has not caught up yet").isFalse();
        feed.caughtUp(new FeedLag.OutboxMark(now, now));
        assertThat(pairs.trusted()).isTrue();
        pairs.markStale();
        assertThat(pairs.trusted()).isFalse();
    }

    @Test
    void aSliceKeepsOnlyItsViewersPairs_andAnswersMaybeForOthers() {
        ShardOwnership slice = new ShardOwnership(
                new CheckProperties.Affinity("check-0", List.of("check-0", "check-1")), SHARDS);
        long mine = -1;
        long theirs = -1;
        for (long user = 1; mine < 0 || theirs < 0; user++) {
            if (slice.owns(user) && mine < 0) {
                mine = user;
            } else if (!slice.owns(user) && theirs < 0) {
                theirs = user;
            }
        }
        HiddenPairs pairs = pairs(slice);

        pairs.record(Relation.BLOCK, theirs, mine); // puts (mine, theirs) only
        long other = theirs + SHARDS; // the same shard as theirs: not owned
        pairs.record(Relation.MUTE, theirs, other);

        assertThat(pairs.mayHide(mine, theirs)).isTrue();
        assertThat(pairs.mayHide(mine, theirs + 1_000 * SHARDS)).as("a pair of an owned viewer never put").isFalse();
        assertThat(pairs.mayHide(theirs, other)).as("another instance's viewer: maybe").isTrue();
        assertThat(pairs.mayHide(theirs, 12_345)).as("another instance's viewer: maybe").isTrue();
        assertThat(pairs.mayHideAny(mine)).isTrue();
        assertThat(pairs.mayHideAny(theirs)).as("another instance's viewer: maybe").isTrue();
        assertThat(pairs.mayHideAny(mine + SHARDS * 7L)).as("an owned viewer with no pair").isFalse();
    }
}
