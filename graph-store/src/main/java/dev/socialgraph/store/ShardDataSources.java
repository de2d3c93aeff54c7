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
     * @param username          database user
     * @param password          database password, may be empty
     * @param maximumPoolSize   connections per physical database, {@code >= 1}
     * @param connectionTimeout how long a caller waits for a connection before {@link java.sql.SQLException};
     *                          bounds the time a request spends on a database that is down
     * @param poolNamePrefix    prefix of the pools' names (metric tags and thread names)
     */
    public record PoolSettings(String username, String password, int maximumPoolSize, Duration connectionTimeout,
                               String poolNamePrefix) {
        public PoolSettings {
            Objects.requireNonNull(username, "username");
            password = password == null ? "" : password;
            if (maximumPoolSize < 1) {
                throw new IllegalArgumentException("maximumPoolSize must be >= 1, was " + maximumPoolSize);
            }
            Objects.requireNonNull(connectionTimeout, "connectionTimeout");
            poolNamePrefix = poolNamePrefix == null ? "shard" : poolNamePrefix;
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
