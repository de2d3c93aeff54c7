package dev.socialgraph.cdc.listener;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.cache.FollowingCache;
import dev.socialgraph.cdc.follower.FollowerSide;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.MalformedEventException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;

/**
 * The batch listener on {@code follow-events} (DESIGN.md 4). Per poll: parse every record, apply the valid events
 * to the follower side (one transaction and at most one row write per followee), then to the followers' caches,
 * send the poison records to the dead-letter topic and wait for the broker, and only then commit the offsets.
 *
 * <p>When the follower side fails (a database is down) or a cached set could neither be updated nor dropped (Redis
 * unreachable) the listener throws before acknowledging: the container's error handler retries the whole batch
 * after a growing pause, without committing, for as long as it takes. Replaying the followees that did commit is a
 * no-op, because applying is idempotent, and so is replaying the cache scripts.
 */
final class FollowEventListener {

    /** Listener id, for {@code KafkaListenerEndpointRegistry} lookups. */
    static final String ID = "cdc-consumer";

    private final FollowerSide followerSide;
    private final FollowingCache cache;
    private final DeadLetterPublisher deadLetters;
    private final CdcMetrics metrics;

    FollowEventListener(FollowerSide followerSide, FollowingCache cache, DeadLetterPublisher deadLetters,
                        CdcMetrics metrics) {
        this.followerSide = followerSide;
        this.cache = cache;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
    }

    @KafkaListener(id = ID, topics = "${graph.cdc.topic:follow-events}", groupId = "${graph.cdc.group-id:cdc-consumer}",
            batch = "true", concurrency = "${graph.cdc.concurrency:1}",
            properties = "max.poll.records=${graph.cdc.max-poll-records:500}")
    void onBatch(List<ConsumerRecord<byte[], byte[]>> records, Acknowledgment acknowledgment) {
        metrics.batch(records.size());
        List<FollowEvent> events = new ArrayList<>(records.size());
        List<DeadLetterPublisher.DeadLetter> poison = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            try {
                events.add(FollowEventJson.fromJson(record.value()));
            } catch (MalformedEventException e) {
                poison.add(new DeadLetterPublisher.DeadLetter(record, e));
            }
        }
        try {
            followerSide.apply(events);
            // Before the commit: an event whose cached set was neither updated nor dropped must be retried, or the
            // set would answer from before the event until its TTL.
            cache.apply(events);
        } catch (RuntimeException e) {
            metrics.batchFailed();
            throw e;
        }
        // After the follower side: a batch retried while a database is down must not dead-letter its poison
        // records again on every attempt.
        deadLetters.publish(poison);
        acknowledgment.acknowledge();
        poison.forEach(letter -> metrics.deadLettered());
    }
}
