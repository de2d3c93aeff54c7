package dev.socialgraph.check.changes;

import dev.socialgraph.check.changes.ChangeLog.Change;
import java.util.List;

/**
 * The whole retained {@code follow-events} topic, read for a cursor older than what {@link ChangeLog} holds: the
 * Kafka topic in production ({@link KafkaChangeArchive}), a plain fake in tests.
 */
public interface ChangeArchive {

    /**
     * The first offset the topic still holds in each partition: a cursor before it names deleted records.
     *
     * @param partitions the topic's partition count
     * @return by partition number
     * @throws ChangeArchiveUnavailableException when the broker does not answer in time
     */
    long[] earliest(int partitions);

    /**
     * Records of the partitions where {@code from[p] < until[p]}, from {@code from[p]} up to (not including)
     * {@code until[p]}, in offset order within a partition, at most {@code max} in all. A record that cannot be parsed
     * is not returned but counts as read.
     *
     * @param from  by partition number, the first offset to read
     * @param until by partition number, the offset to stop before
     * @param max   most records, {@code >= 1}
     * @return the records (their {@code sequence} is their order in this answer), and for each partition the offset
     *         reading reached: {@code from[p]} where nothing was read
     * @throws ChangeArchiveUnavailableException when the broker does not answer in time
     */
    Slice read(long[] from, long[] until, int max);

    /**
     * What {@link #read} read.
     *
     * @param changes the records, partition by partition, each in offset order
     * @param reached by partition number, the next offset to read
     */
    record Slice(List<Change> changes, long[] reached) {
    }

    /** The topic could not be read in time (a broker down or hung, or every reader busy). */
    final class ChangeArchiveUnavailableException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        /**
         * @param message what could not be read
         */
        public ChangeArchiveUnavailableException(String message) {
            super(message);
        }
    }
}
