package dev.socialgraph.cdc.listener;

import dev.socialgraph.cdc.CdcProperties;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.SendResult;

/**
 * Sends poison records to the dead-letter topic with the error in their headers, using Spring Kafka's header names
 * and encodings ({@link KafkaHeaders#DLT_ORIGINAL_TOPIC} as UTF-8, partition as a 4-byte and offset as an 8-byte
 * big-endian integer, {@link KafkaHeaders#DLT_EXCEPTION_MESSAGE} as UTF-8), so Spring's tooling can read them.
 * Key, value and the original headers are kept byte for byte.
 */
final class DeadLetterPublisher {

    /** Bound of waiting for the broker to acknowledge the dead letters of one batch. */
    private static final long SEND_TIMEOUT_SECONDS = 30;

    private final KafkaTemplate<byte[], byte[]> template;
    private final String topic;

    DeadLetterPublisher(KafkaTemplate<byte[], byte[]> template, CdcProperties properties) {
        this.template = template;
        this.topic = properties.dltTopic();
    }

    /** A record that could not be used, and why. */
    record DeadLetter(ConsumerRecord<byte[], byte[]> record, Exception error) {
    }

    /**
     * Sends every dead letter and waits until the broker has them all, so that the batch's offsets are committed
     * only after its poison records are safe.
     *
     * @throws IllegalStateException if a send fails or times out; the batch is then retried
     */
    void publish(List<DeadLetter> letters) {
        if (letters.isEmpty()) {
            return;
        }
        List<CompletableFuture<SendResult<byte[], byte[]>>> sends = new ArrayList<>(letters.size());
        for (DeadLetter letter : letters) {
            sends.add(template.send(toDlt(letter)));
        }
        try {
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
                    .get(SEND_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not send " + letters.size() + " records to " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending to " + topic, e);
        }
    }

    private ProducerRecord<byte[], byte[]> toDlt(DeadLetter letter) {
        ConsumerRecord<byte[], byte[]> record = letter.record();
        List<Header> headers = new ArrayList<>();
        record.headers().forEach(headers::add);
        headers.add(new RecordHeader(KafkaHeaders.DLT_ORIGINAL_TOPIC, utf8(record.topic())));
        headers.add(new RecordHeader(KafkaHeaders.DLT_ORIGINAL_PARTITION,
                ByteBuffer.allocate(Integer.BYTES).putInt(record.partition()).array()));
        headers.add(new RecordHeader(KafkaHeaders.DLT_ORIGINAL_OFFSET,
                ByteBuffer.allocate(Long.BYTES).putLong(record.offset()).array()));
        headers.add(new RecordHeader(KafkaHeaders.DLT_EXCEPTION_FQCN, utf8(letter.error().getClass().getName())));
        headers.add(new RecordHeader(KafkaHeaders.DLT_EXCEPTION_MESSAGE, utf8(String.valueOf(letter.error().getMessage()))));
        return new ProducerRecord<>(topic, null, record.key(), record.value(), headers);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
