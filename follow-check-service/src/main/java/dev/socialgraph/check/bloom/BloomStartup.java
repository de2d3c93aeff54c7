package dev.socialgraph.check.bloom;

import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.store.ShardReader;
import dev.socialgraph.check.store.ShardUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Builds the {@link EdgeBloom} at start-up: size it from the edge count × growth, position the
 * {@code follow-events} consumer, scan every following database, then let checks consult it. Runs as an
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

    BloomStartup(CheckProperties properties, EdgeBloom bloom, FollowEventsListener listener, ShardReader shards) {
        this.settings = properties.bloom();
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
        try {
            long edges = shards.edgeCount();
            long expected = Math.max(settings.minimumExpectedEdges(), (long) Math.ceil(edges * settings.growth()));
            bloom.begin(expected, settings.fpp());
            if (!listener.start(settings.startTimeout())) {
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
