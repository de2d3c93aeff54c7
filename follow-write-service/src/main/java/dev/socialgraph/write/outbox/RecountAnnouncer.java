package dev.socialgraph.write.outbox;

import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.RecountEvent;
import dev.socialgraph.write.WriteProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Publishes the account jobs' {@link RecountEvent}s to {@code follow-events}, keyed by the account's user, on a
 * producer of its own configured as the outbox relay's ({@link OutboxRelays#producer}: idempotent, {@code acks=all},
 * every wait bounded by {@code graph.write.relay.send-timeout}).
 *
 * <p>Not through the outbox: a job's count changes commit on the followees' follower databases, one transaction per
 * edge, while the outbox lives in the following databases. So a job announces a batch after its changes committed and
 * before it records the batch as done; a failed announcement fails the batch, which is done again (without effect on
 * the stores) and announced again. Every committed move is announced at least once, and a cache that reads the
 * announcement drops only counts that have already moved. With the relay disabled ({@code graph.write.relay.enabled}
 * false: no events at all, so no event-fed cache to keep current) nothing is sent.
 *
 * <p>Meter: {@code graph.write.accounts.recounts} (users whose count moves were announced). Thread-safe.
 */
@Component
public class RecountAnnouncer implements DisposableBean {

    private final WriteProperties.Relay relay;
    private final String topic;
    private final Counter announced;
    private Producer<String, byte[]> producer;

    /**
     * @param properties the write service's settings: the topic and the relay's Kafka settings
     * @param registry   where the meter goes
     */
    public RecountAnnouncer(WriteProperties properties, MeterRegistry registry) {
        this.relay = properties.relay();
        this.topic = properties.topic();
        this.announced = Counter.builder("graph.write.accounts.recounts")
                .description("Users whose follower counts an account job moved, announced on follow-events")
                .register(registry);
    }

    /**
     * Sends the event and waits for the broker's acknowledgement.
     *
     * @param event the recount of one batch
     * @throws IllegalStateException when the broker did not acknowledge it within the send timeout (the caller's
     *                               batch fails and is done again)
     */
    public void announce(RecountEvent event) {
        if (!relay.enabled()) {
            return;
        }
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, Long.toString(event.partitionKey()),
                FollowEventJson.toJson(event));
        try {
            producer().send(record).get(relay.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while announcing " + event.eventId(), e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw new IllegalStateException("could not announce " + event.eventId() + " on " + topic + ": " + e, e);
        }
        announced.increment(event.size());
    }

    private synchronized Producer<String, byte[]> producer() {
        if (producer == null) {
            producer = OutboxRelays.producer(relay, "account-jobs");
        }
        return producer;
    }

    @Override
    public synchronized void destroy() {
        if (producer != null) {
            producer.close(relay.sendTimeout());
            producer = null;
        }
    }
}
