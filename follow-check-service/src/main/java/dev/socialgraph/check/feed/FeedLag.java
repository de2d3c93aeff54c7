package dev.socialgraph.check.feed;

import dev.socialgraph.check.follow.FollowChecker;
import java.util.function.LongSupplier;

/**
 * How far behind the committed graph this instance's in-process layers (the bloom filter and the exact following
 * cache) are, and whether they may answer: the feed-lag guard of DESIGN.md 5 and 7.
 *
 * <p>Both layers are exactly as fresh as the {@code follow-events} this instance has applied, and an event reaches
 * it in two legs: the write service's outbox relay publishes committed rows to Kafka, and this instance's consumer
 * applies what Kafka holds. Each leg is probed, in this order:
 * <ol>
 *   <li>the <em>outbox probe</em> at time {@code q} finds the oldest unpublished outbox row of every following
 *       database; every row committed before {@code q - age} had been published (acknowledged by Kafka) by
 *       {@code q}, so this {@link OutboxMark#watermark()} is a commit time up to which Kafka is complete;</li>
 *   <li>the <em>consumer probe</em>, started at {@code t0 >= q}, reads the partitions' end offsets; once the consumer
 *       has applied every record below them, every event Kafka held at {@code t0}, and so every row committed before
 *       the watermark, has been applied: {@link #caughtUp} with that mark.</li>
 * </ol>
 * The <em>applied watermark</em> is the latest such mark. At time {@code t} the lag is {@code t - watermark}; when
 * it is at most {@code maxLag}, every follow committed (so every follow acknowledged) more than {@code maxLag} ago
 * is in the in-process layers, which is the propagation promise (DESIGN.md 1: other readers within 2 s). Past it
 * ({@link #isFresh} false: the broker hung or unreachable, the relay not publishing, the consumer behind, a probe
 * failing) the checks skip both layers and answer from Redis or the shards until the consumer has caught up.
 *
 * <p>The outbox age is computed by the database's own clock ({@code clock_timestamp() - created_at}) and
 * subtracted from the JVM time taken before the query, so clock offsets between the two only make the watermark
 * earlier (more conservative). Before the first complete probe the instance is not fresh.
 *
 * <p>Thread-safe: the outbox probe and the consumer each write their own field; readers read volatiles.
 */
public final class FeedLag implements FollowChecker.Feed {

    /**
     * One outbox probe.
     *
     * @param probedAt  epoch ms (this JVM's clock) when the probe started
     * @param watermark epoch ms: every outbox row committed before it had been published when the probe ran
     */
    public record OutboxMark(long probedAt, long watermark) {
    }

    private final LongSupplier clock;
    private final long maxLagMillis;
    private volatile OutboxMark outbox;
    private volatile long applied = Long.MIN_VALUE;

    /**
     * @param clock        epoch ms now, e.g. {@code System::currentTimeMillis}
     * @param maxLagMillis the propagation bound past which the in-process layers are not trusted, {@code >= 0}
     * @throws IllegalArgumentException when {@code maxLagMillis < 0}
     */
    public FeedLag(LongSupplier clock, long maxLagMillis) {
        if (maxLagMillis < 0) {
            throw new IllegalArgumentException("maxLagMillis must be >= 0, was " + maxLagMillis);
        }
        this.clock = clock;
        this.maxLagMillis = maxLagMillis;
    }

    /**
     * Records an outbox probe.
     *
     * @param probedAt                   epoch ms when the probe started, before any database was queried
     * @param oldestUnpublishedAgeMillis the age of the oldest unpublished row over every following database, by
     *                                   the database clock, in ms; negative when nothing is unpublished
     */
    public void outboxProbed(long probedAt, long oldestUnpublishedAgeMillis) {
        long watermark = probedAt - Math.max(0, oldestUnpublishedAgeMillis);
        OutboxMark last = outbox;
        if (last == null || probedAt >= last.probedAt()) {
            outbox = new OutboxMark(probedAt, watermark);
        }
    }

    /**
     * The latest outbox probe; the consumer takes it <em>before</em> it reads the end offsets.
     *
     * @return the mark, or {@code null} before the first probe
     */
    public OutboxMark outboxMark() {
        return outbox;
    }

    /**
     * The consumer has applied every record below the end offsets it read after taking {@code mark}.
     *
     * @param mark from {@link #outboxMark()}, taken before the end offsets were read; {@code null} is ignored
     */
    public void caughtUp(OutboxMark mark) {
        if (mark != null && mark.watermark() > applied) {
            applied = mark.watermark();
        }
    }

    /**
     * The applied watermark.
     *
     * @return epoch ms: every follow committed before it has been applied here; {@code Long.MIN_VALUE} before the
     *         first catch-up
     */
    public long appliedWatermark() {
        return applied;
    }

    /**
     * How far the in-process layers are behind.
     *
     * @return ms, {@code >= 0}; {@code Long.MAX_VALUE} before the first catch-up
     */
    public long lagMillis() {
        long w = applied;
        return w == Long.MIN_VALUE ? Long.MAX_VALUE : Math.max(0, clock.getAsLong() - w);
    }

    /**
     * Whether the in-process layers may answer.
     *
     * @return {@code true} when the lag is at most the bound
     */
    @Override
    public boolean isFresh() {
        return lagMillis() <= maxLagMillis;
    }

    /**
     * The bound this guard enforces.
     *
     * @return ms
     */
    public long maxLagMillis() {
        return maxLagMillis;
    }
}
