package dev.socialgraph.cdc.listener;

import dev.socialgraph.cdc.CdcMetrics;
import dev.socialgraph.cdc.CdcProperties;
import dev.socialgraph.cdc.follower.FollowerSide;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.sql.SqlErrors;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The events one Kafka consumer has read but not yet applied to the follower side: one lane per physical follower
 * database, each in stream order. A database that is down (or a followee whose event it refuses) holds back only
 * its own lane; every other database's followees are applied and their offsets committed (DESIGN.md 7: only the
 * users routed to a database that is down wait).
 *
 * <p>Order per followee is kept because a lane is first in, first out for all its database's followees and a
 * followee's events are always in one partition (the topic is keyed by followee id), hence read in order by one
 * consumer. The offsets committed for a partition stop at its earliest record still in a lane, so a crash or a
 * rebalance replays the parked events (and some applied ones, which is a no-op: applying is idempotent).
 *
 * <p>Shards can move between databases while the consumer runs (docs/shard-moves.md). A lane is keyed by the
 * database the shard map named when its first event was taken, and is only a grouping: {@link FollowerSide#apply}
 * routes each followee's transaction again when it runs, so an event parked before a move is applied on the new
 * owner. Two rules keep that safe. A followee with events in a lane gets its later events in the same lane, even when
 * a newer map names another database, so its events are never split over two lanes that could apply them out of
 * order. And within a pass over a lane, an outage holds back only the followees that the map of now routes to the
 * database that failed, so a followee that moved away from a database that is down is not held back with it (beyond
 * that lane's back-off).
 *
 * <p>Errors are classified with {@link SqlErrors}: an outage ({@code UNAVAILABLE}, or a shard that moved to a map this
 * instance does not know yet), a retryable conflict or an authentication failure stops the lane and retries it after a back-off that doubles up to
 * {@code retry-backoff-max}, forever. Anything else (a constraint, a row or event the adjacency rules refuse) is
 * deterministic: the followee's events are then applied one at a time, and an event refused
 * {@code apply-attempts} times, each after a back-off, goes to the dead-letter topic; its followee's later events
 * follow it. The reconciler repairs the followee from the following side.
 *
 * <p>Not thread-safe: one instance per consumer, used on that consumer's thread only.
 */
final class DatabaseLanes {

    private static final Logger log = LoggerFactory.getLogger(DatabaseLanes.class);

    /**
     * The most followees applied in one transaction. One batch of {@code max-poll-records} (500) fits; a lane that
     * collected more while its database was down is applied in several, so no transaction holds thousands of row
     * locks or runs for long.
     */
    static final int MAX_FOLLOWEES_PER_TRANSACTION = 500;

    /** An event read from the topic and not applied yet; {@code refusals} counts deterministic failures. */
    record Pending(ConsumerRecord<byte[], byte[]> record, FollowEvent event, int refusals) {

        Pending refusedOnce() {
            return new Pending(record, event, refusals + 1);
        }
    }

    /** One database's events in stream order, and when to try them again after a failure. */
    private static final class Lane {
        List<Pending> queue = new ArrayList<>();
        long retryAtNanos;
        int failures;
    }

    private final FollowerSide followerSide;
    private final DeadLetterPublisher deadLetters;
    private final CdcMetrics metrics;
    private final LongSupplier nanoTime;
    private final long backoffNanos;
    private final long backoffMaxNanos;
    private final int applyAttempts;
    private final Map<DataSource, Lane> lanes = new IdentityHashMap<>();
    /** The lane of every followee with events in one: its later events join them there. */
    private final Map<Long, Lane> laneOfFollowee = new HashMap<>();
    /** Per partition, the offset after the last record taken into a lane: a retried batch is not taken twice. */
    private final Map<TopicPartition, Long> taken = new HashMap<>();
    /** Per partition, the offset after the last record whose batch finished (cache updated, poison sent). */
    private final Map<TopicPartition, Long> finished = new HashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    /** Where forgotten partitions must be read from again if they come back (eager rebalance keeps positions). */
    private final Map<TopicPartition, Long> rewinds = new HashMap<>();
    private int parked;
    /** Whether this consumer's partitions were paused because too many events are parked. */
    boolean paused;

    DatabaseLanes(FollowerSide followerSide, DeadLetterPublisher deadLetters, CdcMetrics metrics,
                  CdcProperties properties, LongSupplier nanoTime) {
        this.followerSide = followerSide;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
        this.backoffNanos = Math.max(1, properties.retryBackoff().toNanos());
        this.backoffMaxNanos = Math.max(backoffNanos, properties.retryBackoffMax().toNanos());
        this.applyAttempts = properties.applyAttempts();
    }

    /**
     * Appends the events to their databases' lanes, skipping records taken before (the error handler redelivers a
     * failed batch as it was).
     *
     * @param events valid events with their records, in stream order
     */
    void take(List<Pending> events) {
        for (Pending pending : events) {
            ConsumerRecord<byte[], byte[]> record = pending.record();
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            if (record.offset() < taken.getOrDefault(partition, Long.MIN_VALUE)) {
                continue;
            }
            long followeeId = pending.event().followeeId();
            Lane lane = laneOfFollowee.get(followeeId);
            if (lane == null) {
                lane = lanes.computeIfAbsent(followerSide.database(followeeId), db -> new Lane());
                laneOfFollowee.put(followeeId, lane);
            }
            lane.queue.add(pending);
            parked++;
            taken.put(partition, record.offset() + 1);
        }
    }

    /**
     * Marks every record of a batch as finished: its events are in a lane or applied, its cache updates made and
     * its poison records sent. Only finished records are committed.
     */
    void finish(List<ConsumerRecord<byte[], byte[]>> records) {
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            finished.merge(partition, record.offset() + 1, Math::max);
            taken.merge(partition, record.offset() + 1, Math::max);
        }
    }

    /** Applies the lanes that are not backing off after a failure, each as far as it goes. */
    void applyDue() {
        long now = nanoTime.getAsLong();
        for (Map.Entry<DataSource, Lane> entry : lanes.entrySet()) {
            Lane lane = entry.getValue();
            if (!lane.queue.isEmpty() && now - lane.retryAtNanos >= 0) {
                apply(lane);
            }
        }
    }

    /** Events in lanes, not applied yet. */
    int parked() {
        return parked;
    }

    /**
     * The offsets to commit now: per partition, the earliest record still in a lane or held by the caller, or the
     * end of the finished records; only those that moved since the last call to {@link #committed}.
     *
     * @param holds per partition, an offset the commit must not pass (the first event whose cache update is owed)
     */
    Map<TopicPartition, OffsetAndMetadata> toCommit(Map<TopicPartition, Long> holds) {
        Map<TopicPartition, Long> firstParked = firstParked();
        holds.forEach((partition, offset) -> firstParked.merge(partition, offset, Math::min));
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        finished.forEach((partition, end) -> {
            long offset = Math.min(end, firstParked.getOrDefault(partition, Long.MAX_VALUE));
            if (offset > committed.getOrDefault(partition, Long.MIN_VALUE)) {
                offsets.put(partition, new OffsetAndMetadata(offset));
            }
        });
        return offsets;
    }

    /** Records that {@code offsets} (from {@link #toCommit}) were committed. */
    void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((partition, offset) -> committed.put(partition, offset.offset()));
    }

    /**
     * Forgets the partitions (revoked or lost) and their parked events, and notes where each must be read from
     * again should it come back to this consumer ({@link #rewinds}): its first parked record or the end of its
     * finished ones. The consumer keeps its position for a partition that is revoked and assigned again in one
     * rebalance, which would skip the parked events.
     *
     * @param holds per partition, an offset it must be read from again at the latest (see {@link #toCommit})
     */
    void forget(Collection<TopicPartition> partitions, Map<TopicPartition, Long> holds) {
        Map<TopicPartition, Long> firstParked = firstParked();
        holds.forEach((partition, offset) -> firstParked.merge(partition, offset, Math::min));
        for (TopicPartition partition : partitions) {
            Long end = finished.remove(partition);
            Long first = firstParked.get(partition);
            if (first != null || end != null) {
                rewinds.put(partition, Math.min(first == null ? Long.MAX_VALUE : first,
                        end == null ? Long.MAX_VALUE : end));
            }
            taken.remove(partition);
            committed.remove(partition);
        }
        laneOfFollowee.clear();
        for (Lane lane : lanes.values()) {
            int before = lane.queue.size();
            lane.queue.removeIf(p -> partitions.contains(new TopicPartition(p.record().topic(), p.record().partition())));
            parked -= before - lane.queue.size();
            lane.queue.forEach(p -> laneOfFollowee.put(p.event().followeeId(), lane));
        }
    }

    /**
     * The offsets to seek to for {@code assigned} partitions that were forgotten before, and forgets the others'.
     */
    Map<TopicPartition, Long> rewinds(Collection<TopicPartition> assigned) {
        Map<TopicPartition, Long> seeks = new HashMap<>();
        for (TopicPartition partition : assigned) {
            Long offset = rewinds.get(partition);
            if (offset != null) {
                seeks.put(partition, offset);
            }
        }
        rewinds.clear();
        return seeks;
    }

    private Map<TopicPartition, Long> firstParked() {
        Map<TopicPartition, Long> first = new HashMap<>();
        for (Lane lane : lanes.values()) {
            for (Pending pending : lane.queue) {
                first.merge(new TopicPartition(pending.record().topic(), pending.record().partition()),
                        pending.record().offset(), Math::min);
            }
        }
        return first;
    }

    /**
     * Applies a lane: the followees the map of now routes to one database together, up to
     * {@link #MAX_FOLLOWEES_PER_TRANSACTION} in one transaction ({@link FollowerSide#applyTogether}). When such a
     * transaction fails because its database is unavailable, none of its followees is tried alone; when it fails for
     * any other reason (an event or row refused, a shard that moved, a conflict that outlasted the retries), its
     * followees are applied one transaction each, which finds the one to blame and follows a move. Once a database
     * turns out to be unavailable, the followees the map routes to it now are not tried again in this pass. The
     * events not applied stay in the lane, in order.
     */
    private void apply(Lane lane) {
        Map<Long, List<Pending>> byFollowee = new LinkedHashMap<>();
        for (Pending pending : lane.queue) {
            byFollowee.computeIfAbsent(pending.event().followeeId(), id -> new ArrayList<>()).add(pending);
        }
        Map<DataSource, List<Long>> byDatabase = new LinkedHashMap<>();
        for (Long followeeId : byFollowee.keySet()) {
            byDatabase.computeIfAbsent(followerSide.database(followeeId), db -> new ArrayList<>()).add(followeeId);
        }
        List<Pending> kept = new ArrayList<>();
        Map<DataSource, Boolean> down = new IdentityHashMap<>();
        boolean refused = false;
        for (Map.Entry<DataSource, List<Long>> ofDatabase : byDatabase.entrySet()) {
            DataSource database = ofDatabase.getKey();
            List<Long> followees = ofDatabase.getValue();
            for (int from = 0; from < followees.size(); from += MAX_FOLLOWEES_PER_TRANSACTION) {
                List<Long> group = followees.subList(from,
                        Math.min(followees.size(), from + MAX_FOLLOWEES_PER_TRANSACTION));
                if (down.containsKey(database)) {
                    group.forEach(followeeId -> kept.addAll(byFollowee.get(followeeId)));
                    continue;
                }
                if (group.size() > 1) {
                    Map<Long, List<FollowEvent>> events = new LinkedHashMap<>();
                    group.forEach(followeeId -> events.put(followeeId,
                            byFollowee.get(followeeId).stream().map(Pending::event).toList()));
                    try {
                        followerSide.applyTogether(database, events);
                        continue;
                    } catch (SQLException | RuntimeException e) {
                        if (isDown(e)) {
                            down.put(database, Boolean.TRUE);
                            group.forEach(followeeId -> kept.addAll(byFollowee.get(followeeId)));
                            log.warn("Follower database of followees {} unavailable, {} events wait: {}", group,
                                    lane.queue.size(), e.toString());
                            continue;
                        }
                        log.debug("Applying {} followees together failed; one transaction each now", group.size(), e);
                    }
                }
                for (Long followeeId : group) {
                    if (down.containsKey(followerSide.database(followeeId))) {
                        kept.addAll(byFollowee.get(followeeId));
                        continue;
                    }
                    switch (applyAlone(lane, followeeId, byFollowee.get(followeeId), kept)) {
                        case UNAVAILABLE -> down.put(followerSide.database(followeeId), Boolean.TRUE);
                        case REFUSED -> refused = true;
                        case APPLIED -> { }
                    }
                }
            }
        }
        parked -= lane.queue.size() - kept.size();
        lane.queue = kept;
        for (Long followeeId : byFollowee.keySet()) {
            laneOfFollowee.remove(followeeId, lane);
        }
        kept.forEach(p -> laneOfFollowee.put(p.event().followeeId(), lane));
        boolean unavailable = !down.isEmpty();
        if (unavailable || refused) {
            long backoff = backoffMaxNanos;
            if (lane.failures < 62 && backoffNanos << lane.failures > 0) {
                backoff = Math.min(backoffMaxNanos, backoffNanos << lane.failures);
            }
            lane.failures++;
            lane.retryAtNanos = nanoTime.getAsLong() + backoff;
        } else {
            lane.failures = 0;
        }
    }

    private enum Outcome { APPLIED, REFUSED, UNAVAILABLE }

    /** One followee's events in one transaction; on a refusal, one event at a time ({@link #applyOneByOne}). */
    private Outcome applyAlone(Lane lane, long followeeId, List<Pending> ofFollowee, List<Pending> kept) {
        try {
            followerSide.apply(followeeId, ofFollowee.stream().map(Pending::event).toList());
            return Outcome.APPLIED;
        } catch (SQLException | RuntimeException e) {
            if (isOutage(e)) {
                kept.addAll(ofFollowee);
                log.warn("Follower database of followee {} unavailable, {} events wait: {}", followeeId,
                        lane.queue.size(), e.toString());
                return Outcome.UNAVAILABLE;
            }
            return applyOneByOne(followeeId, ofFollowee, kept);
        }
    }

    /**
     * After a followee's transaction failed for a reason other than an outage: applies its events one at a time,
     * to find the one refused. Events before it are applied; it is dead-lettered once refused
     * {@code applyAttempts} times, else kept with the events after it.
     */
    private Outcome applyOneByOne(long followeeId, List<Pending> ofFollowee, List<Pending> kept) {
        for (int i = 0; i < ofFollowee.size(); i++) {
            Pending pending = ofFollowee.get(i);
            try {
                followerSide.apply(followeeId, List.of(pending.event()));
                continue;
            } catch (SQLException | RuntimeException e) {
                if (isOutage(e)) {
                    kept.addAll(ofFollowee.subList(i, ofFollowee.size()));
                    return Outcome.UNAVAILABLE;
                }
                Pending refused = pending.refusedOnce();
                if (refused.refusals() < applyAttempts || !deadLetter(refused, e)) {
                    log.warn("Follower side refused event {} of followee {} ({} of {} attempts): {}",
                            pending.event().eventId(), followeeId, refused.refusals(), applyAttempts, e.toString());
                    kept.add(refused);
                    kept.addAll(ofFollowee.subList(i + 1, ofFollowee.size()));
                    return Outcome.REFUSED;
                }
            }
        }
        return Outcome.APPLIED;
    }

    /** Sends a refused event to the dead-letter topic; false when that failed (it is then kept and retried). */
    private boolean deadLetter(Pending refused, Exception error) {
        try {
            deadLetters.publish(List.of(new DeadLetterPublisher.DeadLetter(refused.record(), error)));
        } catch (IllegalStateException e) {
            log.warn("Could not dead-letter refused event {}: {}", refused.event().eventId(), e.toString());
            return false;
        }
        metrics.refused();
        metrics.deadLettered();
        log.error("Follower side refused event {} of followee {} {} times, sent to the dead-letter topic; the "
                        + "reconciler repairs the followee: {}", refused.event().eventId(), refused.event().followeeId(),
                refused.refusals(), error.toString());
        return true;
    }

    /**
     * Whether the database could not be used at all ({@link SqlErrors.Kind#UNAVAILABLE}, or it refuses our
     * credentials): no followee of it can be applied now, alone or together. Narrower than {@link #isOutage}: a
     * conflict that outlasted the retries, or a shard that moved, may well pass for each followee alone.
     */
    static boolean isDown(Exception e) {
        SQLException sql = sqlCause(e);
        return sql != null && switch (SqlErrors.classify(sql)) {
            case UNAVAILABLE, FATAL -> true;
            case RETRY_TRANSACTION, CONSTRAINT, ALREADY_EXISTS, OTHER -> false;
        };
    }

    private static SQLException sqlCause(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException found) {
                return found;
            }
        }
        return null;
    }

    /**
     * Whether the database, not the event, is the problem: it is unavailable ({@link SqlErrors.Kind#UNAVAILABLE}),
     * a conflict outlasted {@code Transactions}' retries, it refuses our credentials (that needs an operator, and
     * no event is to blame), or the followee's shard moved and the map that says where is not known yet
     * ({@link ShardUnavailableException}: the poller fetches it shortly).
     */
    static boolean isOutage(Exception e) {
        SQLException sql = null;
        for (Throwable t = e; t != null && sql == null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ShardUnavailableException) {
                return true;
            }
            if (t instanceof SQLException found) {
                sql = found;
            }
        }
        if (sql == null) {
            return false;
        }
        return switch (SqlErrors.classify(sql)) {
            case UNAVAILABLE, RETRY_TRANSACTION, FATAL -> true;
            case CONSTRAINT, ALREADY_EXISTS, OTHER -> false;
        };
    }
}
