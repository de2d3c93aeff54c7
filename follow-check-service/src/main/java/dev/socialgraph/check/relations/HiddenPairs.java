package dev.socialgraph.check.relations;

import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.relation.Relation;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

/**
 * The in-process filter of the hidden-authors check: a bloom filter of ordered pairs {@code (viewer, author)} for
 * which a block (either way) or a mute (the viewer's) may stand. A block of B by A puts {@code (A, B)} and
 * {@code (B, A)}; a mute of B by A puts {@code (A, B)}. A pair the filter has never seen has none of the three
 * relations, so the common answer, "hide nobody", needs no network hop; a pair it may have seen is read from the
 * shards. Removals are not applied (a bloom filter cannot forget): an unblocked pair costs a shard read until the
 * next start.
 *
 * <p>Filled like the follow bloom filter: the events listener, positioned at the end of {@code follow-events}
 * before the start-up scan, adds every new block and mute, and the scan adds those committed before. It is trusted
 * only once that scan is done and while the feed is fresh ({@link FollowChecker.Feed}): a block the stream has not delivered
 * yet must not be answered "not hidden". Sized for the stored relations × 2 × growth, at least
 * {@value #MINIMUM_EXPECTED_PAIRS} pairs, false-positive rate {@link EdgeFilter#DEFAULT_FPP} (about 1.8 MB at the
 * minimum).
 *
 * <p><b>Viewers with any pair</b> are kept beside, in a second filter (the pair {@code (viewer, 0)}: no user id is
 * 0) sized for a quarter as many entries as the pairs at fpp {@value #VIEWERS_FPP} (a false positive only costs the
 * per-pair probes), put before each of the viewer's pairs: {@link #mayHideAny} rules a viewer out with one probe, so
 * a page of followers, most of whose owners hide nobody, costs one probe instead of one per follower (those probes
 * were about 7 % of the check service's CPU on the read mix, benchmark-results/2026-11-30-read-profile).
 *
 * <p><b>Sliced by viewer</b>, as the follow bloom filter is sliced by follower: an instance that owns some logical
 * shards ({@link ShardOwnership}) keeps only the pairs whose viewer it owns, since the gateway and the client send a
 * viewer's requests to its owner, and for any other viewer {@link #mayHide} answers "maybe" (a shard read, never a
 * wrong "not hidden"). Thread-safe.
 */
@Component
public class HiddenPairs implements RelationReads.Filter {

    /** Room for a million pairs before the false-positive rate rises above its target: about 1.8 MB. */
    static final long MINIMUM_EXPECTED_PAIRS = 1_000_000;
    private static final double GROWTH = 2.0;
    /**
     * False-positive rate of the viewers' filter: 1 % of the viewers with no pair probe their pairs anyway. Sized for
     * a quarter of the pairs: viewers are fewer than pairs (docs/capacity.md: 1.5B pairs between about 300M users).
     */
    static final double VIEWERS_FPP = 0.01;

    private final FollowChecker.Feed feed;
    private final ShardOwnership ownership;
    /** The pairs and the viewers with any, swapped together by {@link #begin}. */
    private volatile Filters filters = Filters.of(MINIMUM_EXPECTED_PAIRS);
    private volatile boolean ready;

    HiddenPairs(FollowChecker.Feed feed, ShardOwnership ownership, MeterRegistry registry) {
        this.feed = feed;
        this.ownership = ownership;
        Gauge.builder("graph.check.hidden.filter.pairs", this, h -> h.filters.pairs().approximateEdgeCount())
                .description("Approximate (viewer, author) pairs in the in-process filter of hidden authors")
                .register(registry);
        Gauge.builder("graph.check.hidden.filter.ready", this, h -> h.ready ? 1 : 0)
                .description("1 when the in-process filter of hidden authors is filled and trusted")
                .register(registry);
    }

    /**
     * Starts a new, empty filter sized for {@code relationEdges} stored blocks and mutes; not trusted until
     * {@link #markReady()}.
     *
     * @param relationEdges blocks plus mutes stored now, {@code >= 0}
     */
    public synchronized void begin(long relationEdges) {
        ready = false;
        // The owned slice's share of the pairs: every block puts two, one per viewer.
        long pairs = ownership.ownsAll() ? relationEdges * 2
                : relationEdges * 2 * ownership.ownedShards().length / ownership.logicalShardCount();
        filters = Filters.of(EdgeFilter.expectedEdges(pairs, GROWTH, MINIMUM_EXPECTED_PAIRS));
    }

    /** The pairs, and the viewers with any pair as {@code (viewer, 0)}; both sized for {@code expected} entries. */
    private record Filters(EdgeFilter pairs, EdgeFilter viewers) {

        static Filters of(long expected) {
            return new Filters(EdgeFilter.create(expected, EdgeFilter.DEFAULT_FPP),
                    EdgeFilter.create(Math.max(1, expected / 4), VIEWERS_FPP));
        }

        /** The viewer first: a reader that finds the pair also finds its viewer. */
        void put(long viewerId, long authorId) {
            viewers.put(viewerId, 0);
            pairs.put(viewerId, authorId);
        }
    }

    /** Trusts the filter from now on (the start-up scan is complete). */
    public void markReady() {
        ready = true;
    }

    /** Stops trusting the filter (its feed stopped). */
    public void markStale() {
        ready = false;
    }

    /**
     * Adds the pairs of a stored block or mute (the start-up scan).
     *
     * @param relation block or mute
     * @param sourceId the blocker or muter
     * @param targetId the blocked or muted user
     */
    public void record(Relation relation, long sourceId, long targetId) {
        Filters f = filters;
        if (ownership.owns(sourceId)) {
            f.put(sourceId, targetId);
        }
        if (relation == Relation.BLOCK && ownership.owns(targetId)) {
            f.put(targetId, sourceId);
        }
    }

    /**
     * Applies an event from the stream: a new block or mute adds its pairs; removals, follows and follow requests are
     * ignored.
     *
     * @param event a valid event
     */
    public void apply(FollowEvent event) {
        if (event.adds() && (event.relation() == Relation.BLOCK || event.relation() == Relation.MUTE)) {
            record(event.relation(), event.followerId(), event.followeeId());
        }
    }

    /**
     * Whether the filter can be trusted now: filled, and its feed within the lag bound.
     *
     * @return {@code false} while starting, after its feed stopped, or while the feed lags
     */
    @Override
    public boolean trusted() {
        return ready && feed.isFresh();
    }

    /**
     * Whether a block or mute between {@code viewerId} and {@code authorId} may stand. Only meaningful when
     * {@link #trusted()}.
     *
     * @return {@code false} when none of: viewer blocks author, author blocks viewer, viewer mutes author; always
     *         {@code true} for a viewer this instance does not own
     */
    @Override
    public boolean mayHide(long viewerId, long authorId) {
        return !ownership.owns(viewerId) || filters.pairs().mightContain(viewerId, authorId);
    }

    /**
     * Whether a block or mute between {@code viewerId} and anyone may stand. Only meaningful when {@link #trusted()}.
     *
     * @return {@code false} when the viewer blocks, mutes and is blocked by nobody; always {@code true} for a viewer
     *         this instance does not own
     */
    @Override
    public boolean mayHideAny(long viewerId) {
        return !ownership.owns(viewerId) || filters.viewers().mightContain(viewerId, 0);
    }
}
