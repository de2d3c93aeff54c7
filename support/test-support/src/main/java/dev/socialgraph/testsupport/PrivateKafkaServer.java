package dev.socialgraph.testsupport;

import java.nio.file.Path;

import dev.socialgraph.localruntime.KraftBroker;

/**
 * An in-process single-node Kafka cluster owned by one test, for testing behaviour while Kafka is
 * unavailable: {@link #stop()} shuts the broker down (connections to its port are refused), {@link
 * #start()} brings it back on the same ports with the same log directory, so topics, records and
 * committed offsets written before the stop are still there. Close it when done, e.g. in
 * {@code @AfterAll}; the test JVM's shutdown closes it otherwise.
 *
 * <p>Obtain one from {@link TestServers#privateKafka()}. It runs on a {@link KraftBroker}.
 */
public final class PrivateKafkaServer extends KafkaServer implements AutoCloseable {

    private final KraftBroker broker;

    PrivateKafkaServer(KraftBroker broker) {
        super(Source.EMBEDDED, broker.bootstrapServers(), broker);
        this.broker = broker;
    }

    /**
     * Starts the broker again on the same ports and log directory; returns when it accepts client
     * requests. Does nothing if it is running.
     *
     * @throws IllegalStateException if it was closed or Kafka failed to start
     */
    public void start() {
        broker.start();
    }

    /**
     * Shuts the broker down and waits until its ports are closed, keeping its data. Does nothing if
     * it is stopped.
     */
    public void stop() {
        broker.stop();
    }

    /**
     * Tells whether the broker runs.
     *
     * @return {@code true} after start and before stop or close
     */
    public boolean isRunning() {
        return broker.isRunning();
    }

    /**
     * The broker's log directory, which outlives {@link #stop()} and is deleted by {@link #close()}.
     *
     * @return an absolute path
     */
    public Path logDir() {
        return broker.logDir();
    }

    /** Stops the broker for good and deletes its log directory. Idempotent. */
    @Override
    public void close() {
        broker.close();
    }
}
