package dev.socialgraph.store.shard;

import dev.socialgraph.store.sql.SqlErrors;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.slf4j.LoggerFactory;

/**
 * One shard database's pool behind a circuit breaker (Resilience4j's {@link CircuitBreaker}, named
 * {@code shard:<database>}): the bulkhead that keeps a hung database from holding the threads of users on other
 * databases, and the reason its own users hear 503 at once instead of after a timeout.
 *
 * <p>A database that hangs (a stopped server, a full disk, a partition) refuses nothing: its pool's connections stay
 * busy until the driver's {@code socketTimeout}, and every other caller waits the pool's {@code connectionTimeout} for
 * one. Each of those waits that ends in an outage ({@link SqlErrors.Kind#UNAVAILABLE}: no connection in time, a socket
 * timeout, a lost connection) is a failure here, and so is an outage thrown by the work done on a connection
 * ({@link #failed}, from {@link ShardDataSources#inUserTransaction} and {@link ShardDataSources#readUser}), and so is a
 * connection given back whose physical connection the driver closed meanwhile; one given back alive is a success. Once {@link Settings#failureRateThreshold()} percent of the last {@link Settings#window()} outcomes (at least
 * {@link Settings#minimumCalls()}) failed, {@link #getConnection()} throws at once for {@link Settings#openWait()}, with
 * SQLState {@code 08001}, which {@link SqlErrors} classifies as unavailable (503 with {@code Retry-After}); then
 * {@link Settings#halfOpenCalls()} callers probe the database, and the breaker closes when they get connections.
 * Errors that are not outages (a constraint, a bug) neither open nor close it.
 *
 * <p>Thread-safe.
 */
public final class DatabaseBreaker implements DataSource {

    private static final org.slf4j.Logger log = LoggerFactory.getLogger(DatabaseBreaker.class);

    /**
     * When a database's breaker opens and how it probes, the same for every database ({@code graph.shards.breaker.*}).
     *
     * @param enabled              {@code false}: no breaker, every caller waits for the pool as before
     * @param failureRateThreshold percent of failed outcomes that opens the breaker, 1..100
     * @param window               how many of the latest outcomes are kept, at least 1
     * @param minimumCalls         outcomes needed before the rate is judged, 1..{@code window}
     * @param openWait             how long the breaker stays open before probing, positive
     * @param halfOpenCalls        probes let through while half-open, at least 1
     */
    public record Settings(boolean enabled, int failureRateThreshold, int window, int minimumCalls, Duration openWait,
                           int halfOpenCalls) {

        /**
         * Open at half of the last 20 outcomes failed (5 at least); probe with one caller after 1 s (a probe of a
         * hung database waits out the socket timeout, so each probe is one slow answer).
         */
        public static final Settings DEFAULTS = new Settings(true, 50, 20, 5, Duration.ofSeconds(1), 1);

        /** No breaker: tools and tests that want the pool's own behaviour. */
        public static final Settings DISABLED = new Settings(false, 50, 20, 5, Duration.ofSeconds(1), 2);

        /**
         * @throws IllegalArgumentException when a value is out of its range
         */
        public Settings {
            if (failureRateThreshold < 1 || failureRateThreshold > 100) {
                throw new IllegalArgumentException("breaker failureRateThreshold must be 1..100, was "
                        + failureRateThreshold);
            }
            if (window < 1 || minimumCalls < 1 || minimumCalls > window) {
                throw new IllegalArgumentException("breaker needs window >= 1 and 1 <= minimumCalls <= window, were "
                        + window + " and " + minimumCalls);
            }
            if (openWait == null || openWait.isNegative() || openWait.isZero()) {
                throw new IllegalArgumentException("breaker openWait must be positive, was " + openWait);
            }
            if (halfOpenCalls < 1) {
                throw new IllegalArgumentException("breaker halfOpenCalls must be at least 1, was " + halfOpenCalls);
            }
        }

        CircuitBreakerConfig config() {
            return CircuitBreakerConfig.custom()
                    .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                    .slidingWindowSize(window)
                    .minimumNumberOfCalls(minimumCalls)
                    .failureRateThreshold(failureRateThreshold)
                    .waitDurationInOpenState(openWait)
                    .permittedNumberOfCallsInHalfOpenState(halfOpenCalls)
                    .automaticTransitionFromOpenToHalfOpenEnabled(false)
                    .recordException(e -> e instanceof SQLException sql
                            && SqlErrors.classify(sql) == SqlErrors.Kind.UNAVAILABLE)
                    .build();
        }
    }

    private final DataSource pool;
    private final String database;
    private final CircuitBreaker breaker;
    private final boolean enabled;

    /**
     * @param pool     the database's pool
     * @param database its short name (logs, the breaker's name {@code shard:<database>})
     * @param settings when to open and how to probe
     * @param registry where the breaker is registered (its meters are bound per registry)
     */
    public DatabaseBreaker(DataSource pool, String database, Settings settings, CircuitBreakerRegistry registry) {
        this.pool = pool;
        this.database = database;
        this.enabled = settings.enabled();
        this.breaker = registry.circuitBreaker("shard:" + database, settings.config());
        breaker.getEventPublisher().onStateTransition(event -> log.warn("Database {} circuit breaker {}", database,
                event.getStateTransition()));
    }

    /**
     * A connection of the pool, unless the breaker is open.
     *
     * @return the connection
     * @throws SQLTransientConnectionException with SQLState {@code 08001} at once while the breaker is open
     * @throws SQLException                    as the pool throws (and recorded when it is an outage)
     */
    @Override
    public Connection getConnection() throws SQLException {
        if (!enabled) {
            return pool.getConnection();
        }
        if (!breaker.tryAcquirePermission()) {
            throw new SQLTransientConnectionException(database + " is unavailable: its circuit breaker is open after"
                    + " timeouts or lost connections; retrying in under " + breaker.getCircuitBreakerConfig()
                    .getWaitIntervalFunctionInOpenState().apply(1) + " ms", "08001");
        }
        long start = System.nanoTime();
        Connection connection;
        try {
            connection = pool.getConnection();
        } catch (SQLException | RuntimeException e) {
            breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
            throw e;
        }
        return judgedOnClose(connection, start);
    }

    /**
     * The connection, whose outcome is recorded when it is given back: a failure when the driver closed the physical
     * connection meanwhile (a socket timeout or a lost connection closes it), a success otherwise. Judged at the end
     * rather than when it is handed out, so that a probe of a hung database whose pool still held an idle connection
     * does not close the breaker before its statement timed out.
     */
    private Connection judgedOnClose(Connection connection, long start) {
        java.util.concurrent.atomic.AtomicBoolean judged = new java.util.concurrent.atomic.AtomicBoolean();
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(DatabaseBreaker.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close") && judged.compareAndSet(false, true)) {
                        boolean lost = physicallyClosed(connection);
                        try {
                            return method.invoke(connection, args);
                        } finally {
                            if (lost) {
                                breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS,
                                        new SQLTransientConnectionException(database + ": connection lost", "08006"));
                            } else {
                                breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                            }
                        }
                    }
                    if (method.getName().equals("unwrap") && args[0] instanceof Class<?> iface
                            && iface.isInstance(proxy)) {
                        return proxy;
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static boolean physicallyClosed(Connection connection) {
        try {
            if (connection.isWrapperFor(org.postgresql.PGConnection.class)) {
                return connection.unwrap(org.postgresql.jdbc.PgConnection.class).isClosed();
            }
        } catch (SQLException | RuntimeException e) {
            return false;
        }
        return false;
    }

    /**
     * Records an error thrown by work on one of this pool's connections; only outages count.
     *
     * @param error what the work threw
     */
    public void failed(SQLException error) {
        if (enabled && SqlErrors.classify(error) == SqlErrors.Kind.UNAVAILABLE) {
            breaker.onError(0, TimeUnit.NANOSECONDS, error);
        }
    }

    /**
     * Records an outage thrown by work on a connection of {@code dataSource}, when it is a {@link DatabaseBreaker}.
     *
     * @param dataSource where the connection came from
     * @param error      what the work threw
     */
    public static void failed(DataSource dataSource, SQLException error) {
        if (dataSource instanceof DatabaseBreaker guarded) {
            guarded.failed(error);
        }
    }

    /** @return the breaker's state ({@code CLOSED} when disabled) */
    public CircuitBreaker.State state() {
        return enabled ? breaker.getState() : CircuitBreaker.State.CLOSED;
    }

    /** @return the database's short name */
    public String database() {
        return database;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("a shard pool has one user");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : pool.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || pool.isWrapperFor(iface);
    }
}
