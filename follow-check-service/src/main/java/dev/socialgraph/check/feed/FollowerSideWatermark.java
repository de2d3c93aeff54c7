package dev.socialgraph.check.feed;

import dev.socialgraph.check.cache.FollowerSideCache;
import dev.socialgraph.check.config.CheckProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.stereotype.Component;

/**
 * The follower side's watermark: every {@code graph.check.follower-side.watermark-interval} it reads the offsets the
 * cdc-consumer's group has committed on {@code follow-events} and hands each to {@link FollowerSideCache#applied}. The
 * cdc-consumer commits an offset only once the follower-side transactions of every record before it committed, so an
 * offset is the proof that the shard holds those events (docs/decisions/0059-lists-and-counts-from-memory.md).
 *
 * <p>One daemon thread with one Kafka {@link Admin} client. A failed or timed-out read is counted
 * ({@code graph.check.follower.watermark.failures}) and tried again at the next interval; meanwhile the cache serves a
 * pending followee's entries only within its stale bound.
 */
@Component
class FollowerSideWatermark implements InitializingBean, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(FollowerSideWatermark.class);

    private final FollowerSideCache cache;
    private final CheckProperties.FollowerSide settings;
    private final String bootstrap;
    private final String topic;
    private final Counter failures;
    private volatile boolean running;
    private Thread thread;

    FollowerSideWatermark(FollowerSideCache cache, CheckProperties properties, MeterRegistry registry) {
        this.cache = cache;
        this.settings = properties.followerSide();
        this.bootstrap = properties.bloom().kafkaBootstrap();
        this.topic = properties.bloom().topic();
        this.failures = Counter.builder("graph.check.follower.watermark.failures")
                .description("Reads of the cdc-consumer's committed offsets that failed or timed out")
                .register(registry);
    }

    @Override
    public void afterPropertiesSet() {
        if (!settings.enabled()) {
            return;
        }
        running = true;
        thread = new Thread(this::run, "follower-side-watermark");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "follower-side-watermark");
        long interval = settings.watermarkInterval().toMillis();
        Duration timeout = settings.staleBound();
        try (Admin admin = Admin.create(config)) {
            while (running) {
                try {
                    Map<TopicPartition, OffsetAndMetadata> committed = admin
                            .listConsumerGroupOffsets(settings.cdcGroup()).partitionsToOffsetAndMetadata()
                            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    committed.forEach((partition, offset) -> {
                        if (offset != null && partition.topic().equals(topic)) {
                            cache.applied(partition.partition(), offset.offset());
                        }
                    });
                } catch (ExecutionException | TimeoutException e) {
                    failures.increment();
                    log.debug("Reading the cdc-consumer's offsets failed: {}", e.toString());
                }
                Thread.sleep(interval);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // shutdown
        } catch (RuntimeException e) {
            log.warn("follower-side watermark stopped; the follower-side cache is dropped: {}", e.toString());
            cache.clear();
        }
    }

    @Override
    public void destroy() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.interrupt();
            thread.join(5000);
        }
    }
}
