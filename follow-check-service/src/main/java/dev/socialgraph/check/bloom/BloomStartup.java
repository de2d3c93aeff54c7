package dev.socialgraph.check.bloom;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.EdgeFilter;
import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.store.ShardReader;
import dev.socialgraph.check.store.ShardUnavailableException;
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
 */
@Component
class BloomStartup implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(BloomStartup.class);

    private final CheckProperties.Bloom settings;
    private final EdgeBloom bloom;
    private final FollowEventsListener listener;
    private final ShardReader shards;
    private final BloomSnapshots snapshots;

    BloomStartup(CheckProperties properties, EdgeBloom bloom, FollowEventsListener listener, ShardReader shards,
                 BloomSnapshots snapshots) {
        this.settings = properties.bloom();
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
        Optional<BloomSnapshot> snapshot = snapshots.newest();
        if (snapshot.isPresent()) {
            BloomSnapshot s = snapshot.get();
            bloom.begin(s.filter(), s.createdAt());
            if (!listener.start(settings.startTimeout())) {
                log.warn("Bloom filter off: {} at {} not reachable within {}", settings.topic(),
                        settings.kafkaBootstrap(), settings.startTimeout());
                return;
            }
            OptionalLong replayed = snapshots.catchUp(s);
            if (replayed.isPresent()) {
                bloom.markReady();
                log.info("Bloom filter ready from the snapshot of {} (shards {}..{}, {} edges) + {} events "
                                + "replayed, in {} ms", Instant.ofEpochMilli(s.createdAt()), s.firstShard(),
                        s.lastShard(), s.edgeCount(), replayed.getAsLong(), (System.nanoTime() - start) / 1_000_000);
                return;
            }
            log.warn("Bloom snapshot of {} could not be replayed; scanning the shards instead",
                    Instant.ofEpochMilli(s.createdAt()));
        }
        try {
            long edges = shards.edgeCount();
            long expected = EdgeFilter.expectedEdges(edges, settings.growth(), settings.minimumExpectedEdges());
            // The listener (when already started for the snapshot) keeps feeding: the new filter gets every event
            // from here on, and the scan below every edge committed before it.
            bloom.begin(EdgeFilter.create(expected, settings.fpp()), Long.MIN_VALUE);
            if (snapshot.isEmpty() && !listener.start(settings.startTimeout())) {
                log.warn("Bloom filter off: {} at {} not reachable within {}", settings.topic(),
                        settings.kafkaBootstrap(), settings.startTimeout());
                return;
            }
            long scanned = shards.scanEdges(bloom::recordFollow);
            bloom.markReady();
            log.info("Bloom filter ready: {} edges scanned, sized for {}, fpp {}, in {} ms", scanned, expected,
                    settings.fpp(), (System.nanoTime() - start) / 1_000_000);
        } catch (ShardUnavailableException e) {
            log.warn("Bloom filter off: a following shard is unavailable ({})", e.getMessage());
        }
    }
}
