package dev.socialgraph.launcher;

import java.io.IOException;

/**
 * A store process of the fleet that the {@link Supervisor} keeps running like a service: the local Kafka broker
 * ({@link LocalBroker}), each embedded PostgreSQL server ({@link LocalPostgres}) and each {@code redis-server}, alone
 * or a Redis Cluster node ({@link LocalRedis}). One concept for all of them, so that {@code ./graph status} and the
 * restart policy (back-off 1 s doubling to 30 s, reset after 60 s ready) are the services' own.
 *
 * <p>A restart runs the store again on the same port and the same data: PostgreSQL recovers its data directory from
 * its write-ahead log (durable commits survive a {@code kill -9}), Kafka its log directory; Redis, a cache, starts
 * empty (a cluster node rejoins from its {@code nodes.conf}).
 */
interface SupervisedStore extends AutoCloseable {

    /** How the supervisor and {@code ./graph status} know the store: its name ({@code run/<name>.pid}) and port. */
    ServiceFleet.Spec spec();

    /** The running process, for the supervisor to watch; its exit completes when the process is gone. */
    Supervisor.Child child();

    /**
     * Starts the store again in place of its process, which has exited.
     *
     * @return the new process
     * @throws IOException when it cannot be started (the supervisor tries again after its back-off)
     */
    Supervisor.Child restart() throws IOException;

    /** Whether the store answers a client now; may block for about 2 s. */
    boolean ready();

    /** Stops the store (after supervision has stopped, or the supervisor starts it again). */
    @Override
    void close();
}
