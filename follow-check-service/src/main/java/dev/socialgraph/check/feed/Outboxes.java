package dev.socialgraph.check.feed;

/**
 * The outboxes of the following databases, as the feed-lag guard's outbox probe sees them ({@link OutboxProbe}). An
 * adapter in {@code check.store} in production.
 */
public interface Outboxes {

    /**
     * The age of the oldest unpublished outbox row over every following database, each by its own clock.
     *
     * @return ms, {@code >= 0}, or {@code -1} when no database has an unpublished row
     * @throws dev.socialgraph.common.shard.ShardUnavailableException when a following database is down (its relay's
     *                                                                progress is then unknown)
     */
    long oldestUnpublishedAgeMillis();
}
