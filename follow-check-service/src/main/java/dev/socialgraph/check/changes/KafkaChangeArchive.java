package dev.socialgraph.check.changes;

import dev.socialgraph.check.changes.ChangeLog.Change;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.common.event.MalformedEventException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@link ChangeArchive} over the {@code follow-events} topic: each read borrows one of at most {@code readers}
 * consumers (assigned, never in a group, committing nothing), seeks, and polls until every partition reached its end
 * of the range, the record bound, or the deadline; a reader that finds every consumer busy for the whole deadline, or a
 * broker that does not answer, gets {@link ChangeArchiveUnavailableException} (503 with {@code Retry-After}).
 * Consumers are made on first use and closed with the archive.
 */
public final class KafkaChangeArchive implements ChangeArchive, AutoCloseable {

    private final Properties config;
    private final String topic;
    private final Duration timeout;
    private final Semaphore readers;
    private final ConcurrentLinkedQueue<KafkaConsumer<byte[], byte[]>> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    /**
     * @param bootstrap the brokers
     * @param topic     {@code follow-events}
     * @param readers   most reads at once, each with a consumer of its own
     * @param timeout   longest read
     */
    public KafkaChangeArchive(String bootstrap, String topic, int readers, Duration timeout) {
        this.topic = topic;
        this.timeout = timeout;
        this.readers = new Semaphore(readers);
        this.config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"); // a deleted offset is an error, never a skip
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "change-stream-archive");
    }

    @Override
    public long[] earliest(int partitions) {
        return withConsumer(c -> {
            List<TopicPartition> all = new ArrayList<>(partitions);
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition(topic, p));
            }
            Map<TopicPartition, Long> offsets = c.beginningOffsets(all, timeout);
            long[] out = new long[partitions];
            for (int p = 0; p < partitions; p++) {
                out[p] = offsets.getOrDefault(all.get(p), 0L);
            }
            return out;
        });
    }

    @Override
    public Slice read(long[] from, long[] until, int max) {
        return withConsumer(c -> {
            List<TopicPartition> assigned = new ArrayList<>();
            for (int p = 0; p < from.length; p++) {
                if (from[p] < until[p]) {
                    assigned.add(new TopicPartition(topic, p));
                }
            }
            long[] reached = from.clone();
            List<Change> changes = new ArrayList<>();
            if (assigned.isEmpty()) {
                return new Slice(changes, reached);
            }
            c.assign(assigned);
            for (TopicPartition tp : assigned) {
                c.seek(tp, from[tp.partition()]);
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            long sequence = 0;
            boolean full = false;
            while (!full && !done(assigned, reached, until)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                ConsumerRecords<byte[], byte[]> records = c.poll(Duration.ofNanos(Math.min(left,
                        TimeUnit.MILLISECONDS.toNanos(200))));
                for (TopicPartition tp : records.partitions()) {
                    int p = tp.partition();
                    for (ConsumerRecord<byte[], byte[]> record : records.records(tp)) {
                        if (record.offset() >= until[p]) {
                            reached[p] = until[p];
                            break;
                        }
                        if (changes.size() >= max) {
                            full = true;
                            break;
                        }
                        GraphEvent event = parse(record.value());
                        if (event != null) {
                            changes.add(new Change(p, record.offset(), sequence++, event));
                        }
                        reached[p] = record.offset() + 1;
                    }
                }
                if (!full) {
                    for (TopicPartition tp : assigned) { // offsets with no record (markers, compaction) are read too
                        int p = tp.partition();
                        reached[p] = Math.max(reached[p], Math.min(until[p], c.position(tp, timeout)));
                    }
                }
            }
            return new Slice(changes, reached);
        });
    }

    private static boolean done(List<TopicPartition> assigned, long[] reached, long[] until) {
        for (TopicPartition tp : assigned) {
            if (reached[tp.partition()] < until[tp.partition()]) {
                return false;
            }
        }
        return true;
    }

    private static GraphEvent parse(byte[] value) {
        try {
            GraphEvent event = FollowEventJson.parse(value);
            return event.isChange() ? event : null;
        } catch (MalformedEventException | NullPointerException e) {
            return null; // the cdc-consumer sends it to the dead-letter topic; the stream skips it
        }
    }

    /** A consumer's work. */
    @FunctionalInterface
    private interface Work<T> {
        T run(KafkaConsumer<byte[], byte[]> consumer);
    }

    private <T> T withConsumer(Work<T> work) {
        boolean acquired;
        try {
            acquired = readers.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ChangeArchiveUnavailableException("interrupted while waiting for a reader of " + topic);
        }
        if (!acquired || closed) {
            if (acquired) {
                readers.release();
            }
            throw new ChangeArchiveUnavailableException("every reader of " + topic + " is busy");
        }
        KafkaConsumer<byte[], byte[]> consumer = idle.poll();
        boolean healthy = false;
        try {
            if (consumer == null) {
                consumer = new KafkaConsumer<>(config);
            }
            T out = work.run(consumer);
            consumer.assign(List.of());
            healthy = true;
            return out;
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new ChangeArchiveUnavailableException(topic + " did not answer in time: " + e.getMessage());
        } catch (KafkaException e) {
            throw new ChangeArchiveUnavailableException(topic + " could not be read: " + e.getMessage());
        } finally {
            if (consumer != null) {
                if (healthy && !closed) {
                    idle.add(consumer);
                } else {
                    consumer.close(Duration.ZERO); // a consumer in an unknown state is not reused
                }
            }
            readers.release();
        }
    }

    @Override
    public void close() {
        closed = true;
        KafkaConsumer<byte[], byte[]> c;
        while ((c = idle.poll()) != null) {
            c.close(Duration.ZERO);
        }
    }
}
