package dev.socialgraph.testsupport;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import dev.socialgraph.localruntime.KraftBroker;

import org.apache.kafka.common.utils.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real PostgreSQL, Redis and Kafka servers for integration tests. Each shared server starts lazily on
 * first use, once per test JVM, and stops in a JVM shutdown hook.
 *
 * <p>Each server's source is chosen on first use, in this order:
 * <ol>
 *   <li>an external server named by an environment variable: {@value #POSTGRES_URL} (an admin JDBC
 *       URL, e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}), {@value
 *       #REDIS_URL} (e.g. {@code redis://127.0.0.1:6379}), {@value #KAFKA_BOOTSTRAP} (e.g. {@code
 *       127.0.0.1:9092});
 *   <li>else, if {@code GRAPH_TEST_CONTAINERS=true} and a Docker engine answers, a Testcontainers
 *       container ({@code postgres:17}, {@code redis:7}, {@code apache/kafka} in KRaft mode);
 *   <li>else an embedded server: zonky's embedded PostgreSQL, a {@code redis-server} child process,
 *       and an in-process single-node {@link KraftBroker}. This default needs nothing but a JDK.
 * </ol>
 * The choice is logged once per server at INFO.
 *
 * <p>The {@code private*} methods start a new embedded server for the caller alone, whatever the
 * environment says, for tests that stop and start a server.
 *
 * <p>While an in-process Kafka broker runs, Kafka's {@code Exit.exit} and {@code Exit.halt} (called
 * by its fatal-fault handlers) log the error and throw instead of ending the test JVM, so that a
 * broker failure shows up as a failed test rather than a vanished Failsafe fork.
 */
public final class TestServers {

    /** Names an external PostgreSQL by an admin JDBC URL. */
    public static final String POSTGRES_URL = "GRAPH_TEST_POSTGRES_URL";
    /** Names an external Redis by a {@code redis://} URI. */
    public static final String REDIS_URL = "GRAPH_TEST_REDIS_URL";
    /** Names an external Kafka cluster by its bootstrap servers. */
    public static final String KAFKA_BOOTSTRAP = "GRAPH_TEST_KAFKA_BOOTSTRAP";

    private static final Logger log = LoggerFactory.getLogger(TestServers.class);

    private static final UnaryOperator<String> ENVIRONMENT = System::getenv;

    /** Closed in reverse order of start by the shutdown hook. */
    private static final Deque<AutoCloseable> started = new ArrayDeque<>();
    private static boolean shutdownHookAdded;
    private static boolean exitGuardInstalled;
    private static Boolean dockerAvailable;
    private static boolean noDockerWarned;

    /** Node ids of in-process brokers, distinct so that their JMX names are. */
    private static final AtomicInteger nextNodeId = new AtomicInteger(1);

    private static final Once<PostgresServer> postgres = new Once<>(TestServers::startPostgres);
    private static final Once<RedisServer> redis = new Once<>(TestServers::startRedis);
    private static final Once<KafkaServer> kafka = new Once<>(TestServers::startKafka);

    private TestServers() {
    }

    /**
     * The PostgreSQL server shared by this JVM's tests, started on first call.
     *
     * @return the same instance on every call
     * @throws IllegalStateException if the server cannot be started or reached; later calls fail again
     *     with the same cause
     */
    public static PostgresServer postgres() {
        return postgres.get();
    }

    /**
     * The Redis server shared by this JVM's tests, started on first call.
     *
     * @return the same instance on every call
     * @throws IllegalStateException if the server cannot be started; later calls fail again with the
     *     same cause
     */
    public static RedisServer redis() {
        return redis.get();
    }

    /**
     * The Kafka cluster shared by this JVM's tests, started on first call.
     *
     * @return the same instance on every call
     * @throws IllegalStateException if the broker cannot be started; later calls fail again with the
     *     same cause
     */
    public static KafkaServer kafka() {
        return kafka.get();
    }

    /**
     * Starts a new embedded Redis on a free port for the caller alone, even when {@value #REDIS_URL}
     * is set. It uses the machine's {@code redis-server} if one is on the {@code PATH}, else the one
     * bundled in embedded-redis. Takes tens of milliseconds.
     *
     * @return a running server the caller should close
     */
    public static PrivateRedisServer privateRedis() {
        PrivateRedisServer server = PrivateRedisServer.start(Optional.empty(), true);
        closeAtShutdown(server);
        log.info("Private Redis for a test: embedded redis-server {} on {}:{}", server.binary(), server.host(),
                server.port());
        return server;
    }

    /**
     * Starts a new in-process single-node KRaft broker on free ports, with a temporary log directory,
     * for the caller alone, even when {@value #KAFKA_BOOTSTRAP} is set. Takes a second or two.
     *
     * @return a running broker the caller should close
     */
    public static PrivateKafkaServer privateKafka() {
        installExitGuard();
        PrivateKafkaServer server = new PrivateKafkaServer(Embedded.kraftBroker(nextNodeId.getAndIncrement()));
        closeAtShutdown(server);
        log.info("Private Kafka for a test: in-process KRaft broker on {}", server.bootstrapServers());
        return server;
    }

    private static PostgresServer startPostgres() {
        long startingAt = System.nanoTime();
        PostgresServer server = switch (choose(POSTGRES_URL)) {
            case ENVIRONMENT -> PostgresServer.fromAdminUrl(Source.ENVIRONMENT, ENVIRONMENT.apply(POSTGRES_URL),
                    null, null, null);
            case CONTAINERS -> Containers.postgres();
            case EMBEDDED -> Embedded.postgres();
        };
        closeAtShutdown(server::close);
        logChoice(server, POSTGRES_URL, startingAt);
        return server;
    }

    private static RedisServer startRedis() {
        long startingAt = System.nanoTime();
        RedisServer server = switch (choose(REDIS_URL)) {
            case ENVIRONMENT -> RedisServer.fromUri(Source.ENVIRONMENT, ENVIRONMENT.apply(REDIS_URL), null);
            case CONTAINERS -> Containers.redis();
            case EMBEDDED -> Embedded.redis();
        };
        closeAtShutdown(server::close);
        logChoice(server, REDIS_URL, startingAt);
        return server;
    }

    private static KafkaServer startKafka() {
        long startingAt = System.nanoTime();
        KafkaServer server = switch (choose(KAFKA_BOOTSTRAP)) {
            case ENVIRONMENT -> new KafkaServer(Source.ENVIRONMENT, ENVIRONMENT.apply(KAFKA_BOOTSTRAP).strip(), null);
            case CONTAINERS -> Containers.kafka();
            case EMBEDDED -> {
                installExitGuard();
                KraftBroker broker = Embedded.kraftBroker(nextNodeId.getAndIncrement());
                yield new KafkaServer(Source.EMBEDDED, broker.bootstrapServers(), broker);
            }
        };
        closeAtShutdown(server::close);
        logChoice(server, KAFKA_BOOTSTRAP, startingAt);
        return server;
    }

    private static Source choose(String variable) {
        Source source = Source.choose(variable, ENVIRONMENT, TestServers::dockerAvailable);
        if (source == Source.EMBEDDED && Source.wantsContainers(ENVIRONMENT)) {
            warnNoDockerOnce();
        }
        return source;
    }

    private static synchronized void warnNoDockerOnce() {
        if (!noDockerWarned) {
            log.warn("{}=true but no Docker engine answers; using embedded servers", Source.CONTAINERS_VARIABLE);
            noDockerWarned = true;
        }
    }

    private static synchronized boolean dockerAvailable() {
        if (dockerAvailable == null) {
            dockerAvailable = Containers.dockerAvailable();
        }
        return dockerAvailable;
    }

    private static void logChoice(Object server, String variable, long startingAt) {
        long millis = (System.nanoTime() - startingAt) / 1_000_000;
        switch (server) {
            case PostgresServer p when p.source() == Source.ENVIRONMENT ->
                    log.info("{} for tests: external, from {}", server, variable);
            case RedisServer r when r.source() == Source.ENVIRONMENT ->
                    log.info("{} for tests: external, from {}", server, variable);
            case KafkaServer k when k.source() == Source.ENVIRONMENT ->
                    log.info("{} for tests: external, from {}", server, variable);
            default -> log.info("{} for tests: started in {} ms ({} unset)", server, millis, variable);
        }
    }

    private static synchronized void closeAtShutdown(AutoCloseable resource) {
        if (!shutdownHookAdded) {
            Runtime.getRuntime().addShutdownHook(new Thread(TestServers::closeAll, "test-servers-shutdown"));
            shutdownHookAdded = true;
        }
        started.push(resource);
    }

    private static void closeAll() {
        while (true) {
            AutoCloseable next;
            synchronized (TestServers.class) {
                next = started.poll();
            }
            if (next == null) {
                return;
            }
            try {
                next.close();
            } catch (Exception | LinkageError e) {
                log.warn("Stopping a test server failed", e);
            }
        }
    }

    /**
     * Keeps Kafka's fatal-fault handlers from ending the test JVM; see the class comment. Kafka's
     * procedures are process-wide, so this affects every in-process broker of the JVM.
     */
    private static synchronized void installExitGuard() {
        if (exitGuardInstalled) {
            return;
        }
        Exit.setExitProcedure((status, message) -> {
            throw refuseExit("exit", status, message);
        });
        Exit.setHaltProcedure((status, message) -> {
            throw refuseExit("halt", status, message);
        });
        exitGuardInstalled = true;
    }

    private static IllegalStateException refuseExit(String kind, int status, String message) {
        IllegalStateException refusal = new IllegalStateException(
                "In-process Kafka asked to " + kind + " the JVM with status " + status + ": " + message);
        log.error("Kept the test JVM running", refusal);
        return refusal;
    }

    /**
     * A value computed on first {@link #get()}; a failure is remembered and rethrown, so one broken
     * server fails each test that needs it quickly instead of restarting for every test class.
     */
    private static final class Once<T> {

        private final Supplier<T> factory;
        private T value;
        private RuntimeException failure;

        Once(Supplier<T> factory) {
            this.factory = factory;
        }

        synchronized T get() {
            if (value == null && failure == null) {
                try {
                    value = factory.get();
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (failure != null) {
                throw new IllegalStateException("Test server did not start: " + failure.getMessage(), failure);
            }
            return value;
        }
    }
}
