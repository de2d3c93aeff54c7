package dev.socialgraph.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * One HikariCP pool per physical database of a {@link ShardMap}, and routing of a user id to the pool that
 * holds its row (DESIGN.md 2.1). Ranges that share a JDBC URL share a pool.
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
     * @param socketTimeout     PostgreSQL driver {@code socketTimeout}: waiting for any byte of an answer, whole
     *                          seconds, or 0; when both are set, longer than {@code statementTimeout}
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
            socketTimeout = wholeSeconds("socketTimeout", socketTimeout);
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

    private final ShardMap shardMap;
    private final Map<String, HikariDataSource> byJdbcUrl = new LinkedHashMap<>();

    /**
     * Opens one pool per distinct database of {@code shardMap}. Pools connect lazily, so a database that is down
     * at start-up fails only the requests routed to it.
     */
    public ShardDataSources(ShardMap shardMap, PoolSettings settings) {
        this.shardMap = Objects.requireNonNull(shardMap, "shardMap");
        for (Map.Entry<String, String> db : shardMap.databases().entrySet()) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.getKey());
            config.setUsername(settings.username());
            config.setPassword(settings.password());
            config.setMaximumPoolSize(settings.maximumPoolSize());
            config.setMinimumIdle(Math.min(2, settings.maximumPoolSize()));
            config.setConnectionTimeout(Math.max(250, settings.connectionTimeout().toMillis()));
            config.setPoolName(settings.poolNamePrefix() + "-" + db.getValue());
            // PostgreSQL JDBC driver properties (pgjdbc "Connection Parameters"; seconds). A URL parameter of the
            // same name wins, so one database can be tuned in the shard map.
            if (!settings.connectTimeout().isZero()) {
                config.addDataSourceProperty("connectTimeout", Long.toString(settings.connectTimeout().toSeconds()));
            }
            if (!settings.socketTimeout().isZero()) {
                config.addDataSourceProperty("socketTimeout", Long.toString(settings.socketTimeout().toSeconds()));
            }
            if (!settings.statementTimeout().isZero()) {
                config.addDataSourceProperty("options",
                        "-c statement_timeout=" + settings.statementTimeout().toMillis());
            }
            // Start even when the database is down: only users routed there get errors (DESIGN.md 7).
            config.setInitializationFailTimeout(-1);
            byJdbcUrl.put(db.getKey(), new HikariDataSource(config));
        }
    }

    /** The shard map the pools were built from. */
    public ShardMap shardMap() {
        return shardMap;
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
        return byJdbcUrl.get(range.jdbcUrl());
    }

    /** Every pool by JDBC URL, following group's databases first. */
    public Map<String, DataSource> all() {
        return Map.copyOf(byJdbcUrl);
    }

    @Override
    public void close() {
        byJdbcUrl.values().forEach(HikariDataSource::close);
    }
}
