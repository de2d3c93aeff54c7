package dev.socialgraph.store.shard;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.socialgraph.common.breaker.BreakerSettings;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.sql.Transactions;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * One HikariCP pool per physical database of a {@link ShardMap}, and routing of a user id to the pool that
 * holds its row (DESIGN.md 2.1). Ranges that share a JDBC URL share a pool.
 *
 * <p>The map can change while the service runs: a shard move (docs/shard-moves.md) publishes a newer version in the
 * {@link ShardDirectory}, which a poller {@link #apply applies} here. Writers go through {@link #inUserTransaction},
 * which enters the shard's fence and follows a move the database reports; readers through {@link #readUser}.
 *
 * <p>Each pool is handed out behind its {@link DatabaseBreaker}, so a database that hangs answers its users' requests
 * with an outage at once (503) once its first waits timed out, and holds at most its own pool's connections and the
 * threads using them, never those of another database.
 *
 * <p>Thread-safe; {@link #close()} closes every pool.
 */
public final class ShardDataSources implements AutoCloseable {

    /**
     * Pool settings applied to every physical database.
     *
     * <p>The three driver timeouts bound how long a thread can spend on a database that hangs (DESIGN.md 7: a
     * database in trouble gives its users 503 at once, it never holds request threads): {@code statementTimeout}
     * makes the server cancel a statement, lock waits included, with SQLState 57014; {@code socketTimeout} makes
     * the driver give up on a server that sends nothing at all (a hung host or network), so it must be longer than
     * the statement timeout, which keeps the connection usable; {@code connectTimeout} bounds opening a TCP
     * connection. Zero disables each (the driver's default).
     *
     * @param username          database user
     * @param password          database password, may be empty
     * @param maximumPoolSize   connections per physical database, {@code >= 1}
     * @param connectionTimeout how long a caller waits for a connection before {@link java.sql.SQLException};
     *                          bounds the time a request spends on a database that is down
     * @param poolNamePrefix    prefix of the pools' names (metric tags and thread names)
     * @param connectTimeout    PostgreSQL driver {@code connectTimeout}: opening a connection, whole seconds, or 0
     * @param socketTimeout     waiting for any byte of an answer, or 0; when both are set, longer than
     *                          {@code statementTimeout}. The PostgreSQL driver's {@code socketTimeout} takes whole
     *                          seconds: it gets this rounded up, and a connection handed out gets the exact value
     *                          as its network timeout ({@link java.sql.Connection#setNetworkTimeout})
     * @param statementTimeout  the session's {@code statement_timeout}, milliseconds precision, or 0
     */
    public record PoolSettings(String username, String password, int maximumPoolSize, Duration connectionTimeout,
                               String poolNamePrefix, Duration connectTimeout, Duration socketTimeout,
                               Duration statementTimeout) {
        public PoolSettings {
            Objects.requireNonNull(username, "username");
            password = password == null ? "" : password;
            if (maximumPoolSize < 1) {
                throw new IllegalArgumentException("maximumPoolSize must be >= 1, was " + maximumPoolSize);
            }
            Objects.requireNonNull(connectionTimeout, "connectionTimeout");
            poolNamePrefix = poolNamePrefix == null ? "shard" : poolNamePrefix;
            connectTimeout = wholeSeconds("connectTimeout", connectTimeout);
            Objects.requireNonNull(socketTimeout, "socketTimeout");
            if (socketTimeout.isNegative()) {
                throw new IllegalArgumentException("socketTimeout must not be negative, was " + socketTimeout);
            }
            Objects.requireNonNull(statementTimeout, "statementTimeout");
            if (statementTimeout.isNegative()) {
                throw new IllegalArgumentException("statementTimeout must not be negative, was " + statementTimeout);
            }
            if (!socketTimeout.isZero() && !statementTimeout.isZero() && socketTimeout.compareTo(statementTimeout) <= 0) {
                throw new IllegalArgumentException("socketTimeout (" + socketTimeout + ") must be longer than"
                        + " statementTimeout (" + statementTimeout + "): the server should cancel a slow statement"
                        + " before the driver drops the connection");
            }
        }

        /**
         * Settings without driver timeouts: for tools and tests whose statements may run long (bulk import).
         * Services get theirs from {@code graph.shards.*}.
         */
        public PoolSettings(String username, String password, int maximumPoolSize, Duration connectionTimeout,
                            String poolNamePrefix) {
            this(username, password, maximumPoolSize, connectionTimeout, poolNamePrefix, Duration.ZERO, Duration.ZERO,
                    Duration.ZERO);
        }

        private static Duration wholeSeconds(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.toNanos() % 1_000_000_000L != 0) {
                throw new IllegalArgumentException(name + " must be whole seconds >= 0 (the driver's unit), was " + value);
            }
            return value;
        }
    }

    /** Re-reads the shard map from its source (the directory) and applies it if newer. */
    @FunctionalInterface
    public interface Refresher {
        /**
         * @throws SQLException when the source cannot be read
         */
        void refresh() throws SQLException;
    }

    /** Attempts of {@link #inUserTransaction} and {@link #readUser} across shard moves (first try included). */
    public static final int MOVE_ATTEMPTS = 3;

    private final PoolSettings settings;
    private final BreakerSettings breakerSettings;
    private final CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
    private final Map<String, HikariDataSource> pools = new ConcurrentHashMap<>();
    private final Map<String, DatabaseBreaker> guarded = new ConcurrentHashMap<>();
    private final List<Consumer<ShardMap>> listeners = new CopyOnWriteArrayList<>();
    private volatile ShardMap shardMap;
    private volatile long version;
    private volatile Refresher refresher = () -> { };
    /** Whether a directory can tell of newer maps; without one no move can be followed, so reads skip the check. */
    private volatile boolean followsMoves;
    private volatile boolean closed;

    /**
     * Opens one pool per distinct database of {@code shardMap}, as version 1. Pools connect lazily, so a database
     * that is down at start-up fails only the requests routed to it.
     */
    public ShardDataSources(ShardMap shardMap, PoolSettings settings) {
        this(shardMap, 1, settings);
    }

    /**
     * Opens one pool per distinct database of {@code shardMap}, a map published as {@code version}.
     *
     * @param shardMap the map to route by
     * @param version  its version in the shard directory, {@code >= 1}
     * @param settings pool settings of every database
     */
    public ShardDataSources(ShardMap shardMap, long version, PoolSettings settings) {
        this(shardMap, version, settings, DatabaseBreaker.DISABLED);
    }

    /**
     * Opens one pool per distinct database of {@code shardMap}, a map published as {@code version}, each behind its
     * own {@link DatabaseBreaker}: what {@link #forUser}, {@link #forRange} and {@link #all} hand out.
     *
     * @param shardMap the map to route by
     * @param version  its version in the shard directory, {@code >= 1}
     * @param settings pool settings of every database
     * @param breaker  the breaker settings of every database ({@link DatabaseBreaker#DISABLED}: none)
     */
    public ShardDataSources(ShardMap shardMap, long version, PoolSettings settings, BreakerSettings breaker) {
        this.shardMap = Objects.requireNonNull(shardMap, "shardMap");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.breakerSettings = Objects.requireNonNull(breaker, "breaker");
        this.version = version;
        openPools(shardMap);
    }

    private void openPools(ShardMap map) {
        for (Map.Entry<String, String> db : map.databases().entrySet()) {
            HikariDataSource pool = pools.computeIfAbsent(db.getKey(), url -> open(url, db.getValue()));
            // The driver's socketTimeout is whole seconds; a finer one is set on each connection handed out.
            Duration exact = settings.socketTimeout().toMillis() % 1_000 == 0 ? Duration.ZERO : settings.socketTimeout();
            guarded.computeIfAbsent(db.getKey(), url -> new DatabaseBreaker(pool, db.getValue(), breakerSettings,
                    breakers, exact));
        }
    }

    private HikariDataSource open(String jdbcUrl, String database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(settings.username());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(settings.maximumPoolSize());
        config.setMinimumIdle(Math.min(2, settings.maximumPoolSize()));
        config.setConnectionTimeout(Math.max(250, settings.connectionTimeout().toMillis()));
        // Checking an idle connection may not take longer than waiting for one (HikariCP's default is 5 s, which a
        // hung database would make every caller of a stale idle connection wait).
        config.setValidationTimeout(Math.max(250, settings.connectionTimeout().toMillis()));
        config.setPoolName(settings.poolNamePrefix() + "-" + database);
        // PostgreSQL JDBC driver properties (pgjdbc "Connection Parameters"; seconds). A URL parameter of the
        // same name wins, so one database can be tuned in the shard map.
        if (!settings.connectTimeout().isZero()) {
            config.addDataSourceProperty("connectTimeout", Long.toString(settings.connectTimeout().toSeconds()));
        }
        if (!settings.socketTimeout().isZero()) {
            config.addDataSourceProperty("socketTimeout",
                    Long.toString(Math.ceilDiv(settings.socketTimeout().toMillis(), 1_000L)));
        }
        if (!settings.statementTimeout().isZero()) {
            config.addDataSourceProperty("options",
                    "-c statement_timeout=" + settings.statementTimeout().toMillis());
        }
        // Start even when the database is down: only users routed there get errors (DESIGN.md 7).
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** The shard map routed by now. */
    public ShardMap shardMap() {
        return shardMap;
    }

    /** The version of {@link #shardMap()} in the shard directory (1 for a configured map that never moved). */
    public long version() {
        return version;
    }

    /**
     * Routes by {@code map} from now on, if {@code version} is newer than the current one: opens pools for its new
     * databases (a pool of a database that left the map stays open until {@link #close()}, for callers that still
     * hold it) and tells the listeners.
     *
     * @param version the map's version in the shard directory
     * @param map     the map
     * @return whether the map was applied
     */
    public boolean apply(long version, ShardMap map) {
        synchronized (this) {
            if (closed || version <= this.version) {
                return false;
            }
            openPools(map);
            this.shardMap = map;
            this.version = version;
        }
        listeners.forEach(listener -> listener.accept(map));
        return true;
    }

    /**
     * Sets how a newer map is fetched when a database says a shard moved ({@link ShardMovedException}).
     *
     * @param refresher reads the directory and calls {@link #apply}
     */
    public void refresher(Refresher refresher) {
        this.refresher = Objects.requireNonNull(refresher, "refresher");
        this.followsMoves = true;
    }

    /**
     * Fetches and applies the newest map now.
     *
     * @throws SQLException when the directory cannot be read
     */
    public void refresh() throws SQLException {
        refresher.refresh();
    }

    /**
     * Tells {@code listener} of every map applied from now on (e.g. to start the outbox relay of a new database).
     * Called on the thread that applied it.
     *
     * @param listener the listener
     */
    public void onChange(Consumer<ShardMap> listener) {
        listeners.add(listener);
    }

    /**
     * The pool of the database holding {@code userId}'s row in {@code group} (the follower id for
     * {@link ShardGroup#FOLLOWING}, the followee id for {@link ShardGroup#FOLLOWER}).
     */
    public DataSource forUser(ShardGroup group, long userId) {
        return forRange(shardMap.route(group, userId));
    }

    /** The pool of the database of {@code range}. */
    public DataSource forRange(ShardRange range) {
        DatabaseBreaker pool = guarded.get(range.jdbcUrl());
        if (pool == null) {
            throw new IllegalArgumentException("no pool for " + range + ": not a database of an applied shard map");
        }
        return pool;
    }

    /** The pools of the current map's databases by JDBC URL, following group's databases first. */
    public Map<String, DataSource> all() {
        Map<String, DataSource> out = new LinkedHashMap<>();
        for (String url : shardMap.databases().keySet()) {
            out.put(url, guarded.get(url));
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * Runs {@code work} in one transaction on the database that owns {@code userId}'s shard in {@code group},
     * inside the shard's fence ({@link ShardFence#enter}): while a shard move holds the fence the transaction waits,
     * and when the database says the shard moved away, the newer map is fetched and the work runs on the new owner.
     * Serialization failures and deadlocks are retried as {@link Transactions#inTransaction} does.
     *
     * @param group  the group of the rows the work writes
     * @param userId the user whose rows they are (follower id for following, followee id for follower)
     * @param work   the transaction's work
     * @return the work's result
     * @throws SQLException               as {@link Transactions#inTransaction}
     * @throws ShardUnavailableException when the shard moved and the map that says where is not known yet after
     *                                    {@link #MOVE_ATTEMPTS} attempts; nothing was written
     */
    public <T> T inUserTransaction(ShardGroup group, long userId, Transactions.Work<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            ShardMap map = shardMap;
            int shard = map.logicalShard(userId);
            DataSource dataSource = forRange(map.route(group, userId));
            try {
                return Transactions.inTransaction(dataSource, connection -> {
                    ShardFence.enter(connection, group, shard);
                    return work.run(connection);
                });
            } catch (ShardMovedException e) {
                if (!refreshedPast(e.mapVersion(), attempt)) {
                    throw new ShardUnavailableException(e.getMessage() + "; this instance knows version " + version,
                            e);
                }
            }
        }
    }

    /**
     * Runs {@code work} on a connection (auto-commit on) to the database that owns {@code userId}'s shard in
     * {@code group}. When that database gave the shard away in a map newer than this instance's, the newer map is
     * fetched first and the work runs on the new owner; a reader never waits for a fence (the old owner's rows are
     * frozen and exact until the new map is published). Without a {@link #refresher} (no shard directory) there is no
     * newer map to fetch, so the check is skipped and the read costs what it did before moves existed.
     *
     * @param group  the group of the rows the work reads
     * @param userId the user whose rows they are
     * @param work   the reads
     * @return the work's result
     * @throws SQLException on a database error
     */
    public <T> T readUser(ShardGroup group, long userId, Transactions.Work<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            ShardMap map = shardMap;
            long known = version;
            DataSource dataSource = forRange(map.route(group, userId));
            try (Connection connection = dataSource.getConnection()) {
                if (!followsMoves) {
                    return work.run(connection);
                }
                long moved = ShardFence.movedIn(connection, group, map.logicalShard(userId));
                if (moved <= known || !refreshedPast(moved, attempt)) {
                    return work.run(connection);
                }
            }
        }
    }

    private boolean refreshedPast(long movedIn, int attempt) throws SQLException {
        if (attempt >= MOVE_ATTEMPTS) {
            return false;
        }
        if (version < movedIn) {
            refresher.refresh();
        }
        return version >= movedIn;
    }

    /**
     * Registers every database breaker's meters, those of databases a later map adds included:
     * {@code resilience4j.circuitbreaker.state{name="shard:<database>",state}} and the breaker's call counts.
     *
     * @param meters the service's registry
     */
    public void bindTo(MeterRegistry meters) {
        TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers).bindTo(meters);
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        pools.values().forEach(HikariDataSource::close);
    }
}
