package dev.socialgraph.check.bloom;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.relations.HiddenPairs;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardUnavailableException;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Builds the {@link EdgeBloom} at start-up. With a valid bloom snapshot in {@code graph.check.bloom.snapshot-dir}:
 * load it, start the {@code follow-events} consumer at the partition ends, replay the events from the snapshot's
 * offsets up to the ends read after that, then let checks consult it. Without one (or when its offsets are no
 * longer retained): size a new filter from the edge count × growth, position the consumer, scan every following
 * database. Runs as an
 * {@link ApplicationRunner}, so readiness turns to accepting traffic only after it finished (Spring Boot
 * publishes it after the runners). When Kafka or a shard is unreachable, the filter stays off: checks skip L0
 * and stay correct, only slower.
 *
 * <p>An instance that owns only some logical shards ({@link ShardOwnership}) ignores snapshots (one covers a
 * contiguous range, and a rendezvous slice is scattered) and builds its slice: the filter is sized from the owned followers' edge count
 * and filled by scanning only the owned shards.
 *
 * <p>The filter of hidden pairs ({@link HiddenPairs}) is built the same way, always for every user (blocks and
 * mutes are few): started empty before the consumer is positioned, then filled by a scan of the stored blocks and
 * mutes once it is.
 */
@Component
class BloomStartup implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(BloomStartup.class);

    private final CheckProperties.Bloom settings;
    private final EdgeBloom bloom;
    private final EventFeed listener;
    private final ShardScans shards;
    private final BloomSnapshots snapshots;
    private final ShardOwnership ownership;
    private final HiddenPairs hidden;

    BloomStartup(CheckProperties properties, EdgeBloom bloom, EventFeed listener, ShardScans shards,
                 BloomSnapshots snapshots, ShardOwnership ownership, HiddenPairs hidden) {
        this.hidden = hidden;
        this.settings = properties.bloom();
        this.ownership = ownership;
        this.snapshots = snapshots;
        this.bloom = bloom;
        this.listener = listener;
        this.shards = shards;
    }

    @Override
    public void run(ApplicationArguments args) throws InterruptedException {
        if (!settings.enabled()) {
            log.info("Bloom filter disabled (graph.check.bloom.enabled=false)");
            return;
        }
        long start = System.nanoTime();
        boolean hiddenBegun = beginHiddenPairs();
        Optional<BloomSnapshot> snapshot = ownership.ownsAll() ? snapshots.newest() : Optional.empty();
        if (snapshot.isPresent()) {
            BloomSnapshot s = snapshot.get();
            bloom.begin(s.filter(), s.createdAt(), s.edgeCount());
            if (!listener.start(settings.startTimeout())) {
                log.warn("Bloom filter off: {} at {} not reachable within {}", settings.topic(),
                        settings.kafkaBootstrap(), settings.startTimeout());
                return;
            }
            OptionalLong replayed = snapshots.catchUp(s, bloom::recordFollow);
            if (replayed.isPresent()) {
                bloom.markReady();
                log.info("Bloom filter ready from the snapshot of {} (shards {}..{}, {} edges) + {} events "
                                + "replayed, in {} ms", Instant.ofEpochMilli(s.createdAt()), s.firstShard(),
                        s.lastShard(), s.edgeCount(), replayed.getAsLong(), (System.nanoTime() - start) / 1_000_000);
                fillHiddenPairs(hiddenBegun);
                return;
            }
            log.warn("Bloom snapshot of {} could not be replayed; scanning the shards instead",
                    Instant.ofEpochMilli(s.createdAt()));
        }
        try {
            int[] owned = ownership.ownsAll() ? null : ownership.ownedShards();
            long edges = owned == null ? shards.edgeCount() : shards.edgeCount(owned);
            long expected = EdgeFilter.expectedEdges(edges, settings.growth(), settings.minimumExpectedEdges());
            // The listener (when already started for the snapshot) keeps feeding: the new filter gets every event
            // from here on, and the scan below every edge committed before it.
            bloom.begin(EdgeFilter.create(expected, settings.fpp()), Long.MIN_VALUE, 0);
            if (snapshot.isEmpty() && !listener.start(settings.startTimeout())) {
                log.warn("Bloom filter off: {} at {} not reachable within {}", settings.topic(),
                        settings.kafkaBootstrap(), settings.startTimeout());
                return;
            }
            long scanned = owned == null ? shards.scanEdges(bloom::recordFollow)
                    : shards.scanEdges(owned, bloom::recordFollow);
            bloom.markReady();
            log.info("Bloom filter ready: {} edges scanned ({} of {} logical shards), sized for {}, fpp {}, in {} ms",
                    scanned, owned == null ? ownership.logicalShardCount() : owned.length,
                    ownership.logicalShardCount(), expected, settings.fpp(), (System.nanoTime() - start) / 1_000_000);
            fillHiddenPairs(hiddenBegun);
        } catch (ShardUnavailableException e) {
            log.warn("Bloom filter off: a following shard is unavailable ({})", e.getMessage());
        }
    }

    /** Sizes an empty filter of hidden pairs before the consumer is positioned; {@code false} when a shard is down. */
    private boolean beginHiddenPairs() {
        try {
            hidden.begin(shards.relationEdgeCount());
            return true;
        } catch (ShardUnavailableException e) {
            log.warn("Filter of hidden pairs off: a following shard is unavailable ({})", e.getMessage());
            return false;
        }
    }

    /** Scans the stored blocks and mutes into the filter of hidden pairs, the consumer being positioned. */
    private void fillHiddenPairs(boolean begun) {
        if (!begun) {
            return;
        }
        try {
            long blocks = shards.scanRelationEdges(Relation.BLOCK, (a, b) -> hidden.record(Relation.BLOCK, a, b));
            long mutes = shards.scanRelationEdges(Relation.MUTE, (a, b) -> hidden.record(Relation.MUTE, a, b));
            hidden.markReady();
            log.info("Filter of hidden pairs ready: {} blocks and {} mutes scanned", blocks, mutes);
        } catch (ShardUnavailableException e) {
            log.warn("Filter of hidden pairs off: a following shard is unavailable ({})", e.getMessage());
        }
    }
}
