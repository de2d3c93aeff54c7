package dev.socialgraph.write.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.store.outbox.OutboxEntry;
import dev.socialgraph.store.outbox.OutboxTrace;
import dev.socialgraph.write.WriteProperties;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxRelaysTest {

    /** Kafka validates the producer configuration in the constructor, without connecting. */
    @ParameterizedTest(name = "send timeout {0} ms")
    @ValueSource(longs = {100, 2_000, 10_000, 120_000})
    void producer_acceptsItsConfigurationForAnySendTimeout(long sendTimeoutMs) {
        WriteProperties.Relay relay = new WriteProperties.Relay(true, "127.0.0.1:1", 500, Duration.ofMillis(200),
                Duration.ofMillis(sendTimeoutMs), Duration.ofDays(7));
        try (Producer<String, byte[]> producer = OutboxRelays.producer(relay, "db")) {
            assertThat(producer).isNotNull();
        }
    }

    @Test
    void producerConfig_sendsAtOnce_andKeepsAcksAllIdempotentAndInOrder() {
        WriteProperties.Relay relay = new WriteProperties.Relay(true, "127.0.0.1:1", 500, Duration.ofMillis(200),
                Duration.ofSeconds(10), Duration.ofDays(7));

        Map<String, Object> config = OutboxRelays.producerConfig(relay, "graph_following_0");

        assertThat(config).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 0)
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5)
                .containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000L)
                .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "outbox-relay-graph_following_0");
    }

    @Test
    void toEvent_ofUnfollowRow_carriesTheRemovedFollowTimeAndCommitTime() {
        Instant created = Instant.parse("2026-11-22T04:00:00.123Z");
        OutboxEntry row = new OutboxEntry(9, 42, 7, FollowEvent.Type.UNFOLLOW, 1_700_000_000_000L, 5, created, null);

        GraphEvent event = row.event();

        assertThat(event).isEqualTo(new FollowEvent("42-5", FollowEvent.Type.UNFOLLOW, 42, 7, 1_700_000_000_000L, 5,
                created.toEpochMilli()));
    }

    @Test
    void record_ofAnAccountRow_isKeyedByItsUser_andCarriesTheAccountEvent() {
        Instant created = Instant.parse("2026-11-22T04:00:00.123Z");
        OutboxEntry row = new OutboxEntry(9, 42, 42, null, created.toEpochMilli(), 3, created, null,
                OutboxTrace.NONE, AccountEvent.Type.ERASE);

        ProducerRecord<String, byte[]> record = OutboxRelay.record("follow-events", row, null);

        assertThat(record.key()).isEqualTo("42");
        assertThat(FollowEventJson.parse(record.value()))
                .isEqualTo(new AccountEvent("42-account-3", AccountEvent.Type.ERASE, 42, 3, created.toEpochMilli()));
    }

    @Test
    void record_ofATracedRow_carriesTheStoredContextAndRequestId_asHeaders() {
        String parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        OutboxEntry row = new OutboxEntry(9, 42, 7, FollowEvent.Type.FOLLOW, 1L, 5, Instant.EPOCH, null,
                new OutboxTrace(parent, "req-9"));

        ProducerRecord<String, byte[]> record = OutboxRelay.record("follow-events", row, null);

        assertThat(record.key()).isEqualTo("7");
        assertThat(new String(record.headers().lastHeader("traceparent").value(), StandardCharsets.US_ASCII))
                .isEqualTo(parent);
        assertThat(new String(record.headers().lastHeader("X-Request-Id").value(), StandardCharsets.US_ASCII))
                .isEqualTo("req-9");
    }

    @Test
    void record_ofAnUntracedRow_hasNoHeaders() {
        OutboxEntry row = new OutboxEntry(9, 42, 7, FollowEvent.Type.FOLLOW, 1L, 5, Instant.EPOCH, null);

        assertThat(OutboxRelay.record("follow-events", row, null).headers().toArray()).isEmpty();
    }
}
