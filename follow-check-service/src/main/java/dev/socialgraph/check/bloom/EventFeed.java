package dev.socialgraph.check.bloom;

import java.time.Duration;

/**
 * The {@code follow-events} consumer that keeps the filters current after start-up, as {@link BloomStartup} needs it:
 * started, and positioned at the partitions' ends, before the snapshot replay or the scan, so that the two together
 * miss no event. {@code check.feed}'s listener in production.
 */
public interface EventFeed {

    /**
     * Starts the consumer and waits until every partition has a position.
     *
     * @param timeout how long to wait for the broker
     * @return whether the consumer is positioned (events from now on will be applied)
     * @throws InterruptedException when interrupted while waiting
     */
    boolean start(Duration timeout) throws InterruptedException;
}
