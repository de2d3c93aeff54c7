package dev.socialgraph.store.shard;

import dev.socialgraph.common.breaker.BreakerSettings;
import dev.socialgraph.store.sql.SqlErrors;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 * timeout, a lost connection) is a failure here; so is the use of a connection on which a statement threw an outage
 * (a statement timeout behind a lock queue) or whose physical connection the driver closed meanwhile; any other use
 * of a connection, given back, is a success. Each use of a connection is one outcome. Once
 * {@link BreakerSettings#failureRateThreshold()} percent of the last {@link BreakerSettings#window()} outcomes (at
 * least {@link BreakerSettings#minimumCalls()}) failed, {@link #getConnection()} throws at once for
 * {@link BreakerSettings#openWait()}, with SQLState {@code 08001}, which {@link SqlErrors} classifies as unavailable
 * (503 with {@code Retry-After}); then {@link BreakerSettings#halfOpenCalls()} callers probe the database, and the
 * breaker closes when they get connections.
 * Errors that are not outages (a constraint, a bug) neither open nor close it.
 *
 * <p>Thread-safe.
 */
public final class DatabaseBreaker implements DataSource {

    private static final org.slf4j.Logger log = LoggerFactory.getLogger(DatabaseBreaker.class);

    /**
     * Open at half of the last 20 outcomes failed (5 at least); probe with one caller after 1 s (a probe of a hung
     * database waits out the socket timeout, so each probe is one slow answer).
     */
    public static final BreakerSettings DEFAULTS = new BreakerSettings(true, 50, 20, 5, Duration.ofSeconds(1), 1);

    /** No breaker: tools and tests that want the pool's own behaviour. */
    public static final BreakerSettings DISABLED = new BreakerSettings(false, 50, 20, 5, Duration.ofSeconds(1), 1);

    private final DataSource pool;
    private final String database;
    private final CircuitBreaker breaker;
    private final boolean enabled;
    /** The socket timeout set on each connection handed out, milliseconds; 0: the driver's own, left alone. */
    private final int networkTimeoutMillis;

    /**
     * @param pool     the database's pool
     * @param database its short name (logs, the breaker's name {@code shard:<database>})
     * @param settings when to open and how to probe
     * @param registry where the breaker is registered (its meters are bound per registry)
     */
    public DatabaseBreaker(DataSource pool, String database, BreakerSettings settings,
                           CircuitBreakerRegistry registry) {
        this(pool, database, settings, registry, Duration.ZERO);
    }

    /**
     * @param pool           the database's pool
     * @param database       its short name (logs, the breaker's name {@code shard:<database>})
     * @param settings       when to open and how to probe
     * @param registry       where the breaker is registered (its meters are bound per registry)
     * @param networkTimeout set on each connection handed out ({@link Connection#setNetworkTimeout}, which the pool
     *                       undoes when it is given back): how long the driver waits for any byte of an answer, to
     *                       the millisecond where the driver's own {@code socketTimeout} takes whole seconds; zero:
     *                       left as the pool made it
     * @throws IllegalArgumentException for a negative network timeout
     */
    public DatabaseBreaker(DataSource pool, String database, BreakerSettings settings,
                           CircuitBreakerRegistry registry, Duration networkTimeout) {
        if (networkTimeout.isNegative()) {
            throw new IllegalArgumentException("networkTimeout must not be negative, was " + networkTimeout);
        }
        this.networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, networkTimeout.toMillis());
        this.pool = pool;
        this.database = database;
        this.enabled = settings.enabled();
        this.breaker = registry.circuitBreaker("shard:" + database, settings.config(DatabaseBreaker::isOutage));
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
            return timed(pool.getConnection());
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
        return judgedOnClose(timed(connection), start);
    }

    /** {@code connection} with the network timeout, when one is set; closed when setting it fails. */
    private Connection timed(Connection connection) throws SQLException {
        if (networkTimeoutMillis > 0) {
            try {
                connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
            } catch (SQLException | RuntimeException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    /**
     * The connection, whose use is one outcome, recorded when it is given back: a failure when the driver closed the
     * physical connection meanwhile (a socket timeout or a lost connection closes it), or when a statement or a
     * call on the connection threw an outage ({@link SqlErrors.Kind#UNAVAILABLE}: a statement timeout from a lock
     * queue, a cancel); a success otherwise. Judged at the end rather than when it is handed out, so that a probe of a
     * hung database whose pool still held an idle connection does not close the breaker before its statement timed
     * out; and judged once, so that a timed-out statement on a connection given back alive is not also a success.
     */
    private Connection judgedOnClose(Connection connection, long start) {
        AtomicBoolean judged = new AtomicBoolean();
        AtomicReference<SQLException> outage = new AtomicReference<>();
        return (Connection) Proxy.newProxyInstance(DatabaseBreaker.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close") && judged.compareAndSet(false, true)) {
                        boolean lost = physicallyClosed(connection);
                        try {
                            return method.invoke(connection, args);
                        } finally {
                            long took = System.nanoTime() - start;
                            if (lost) {
                                breaker.onError(took, TimeUnit.NANOSECONDS,
                                        new SQLTransientConnectionException(database + ": connection lost", "08006"));
                            } else if (outage.get() != null) {
                                breaker.onError(took, TimeUnit.NANOSECONDS, outage.get());
                            } else {
                                breaker.onSuccess(took, TimeUnit.NANOSECONDS);
                            }
                        }
                    }
                    if (method.getName().equals("unwrap") && args[0] instanceof Class<?> iface
                            && iface.isInstance(proxy)) {
                        return proxy;
                    }
                    Object result = invokeNoting(connection, method, args, outage);
                    return result instanceof Statement statement && method.getReturnType().isInterface()
                            && Statement.class.isAssignableFrom(method.getReturnType())
                            ? noting(statement, method.getReturnType(), outage) : result;
                });
    }

    /** {@code statement} as {@code type}, noting in {@code outage} an outage any of its calls throws. */
    private static Object noting(Statement statement, Class<?> type, AtomicReference<SQLException> outage) {
        return Proxy.newProxyInstance(DatabaseBreaker.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> invokeNoting(statement, method, args, outage));
    }

    private static Object invokeNoting(Object target, Method method, Object[] args,
                                       AtomicReference<SQLException> outage) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (isOutage(e.getCause())) {
                outage.compareAndSet(null, (SQLException) e.getCause());
            }
            throw e.getCause();
        }
    }

    /** Whether {@code error} is one the breaker counts: a database error {@link SqlErrors} classifies as an outage. */
    private static boolean isOutage(Throwable error) {
        return error instanceof SQLException sql && SqlErrors.classify(sql) == SqlErrors.Kind.UNAVAILABLE;
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
