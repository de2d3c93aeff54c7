package dev.socialgraph.store.shard;

import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the shard schema ({@code classpath:db/shard}, Flyway) to every physical database of a shard map.
 * Every database gets every table (DESIGN.md 2.2), so a range can move between databases by copying rows.
 */
public final class ShardMigrations {

    /** Flyway location of the shard schema. */
    public static final String LOCATION = "classpath:db/shard";

    /**
     * How often a migration asks again for a connection it did not get, Flyway's {@code connectRetries}: the pools
     * wait for a connection only as long as a request may ({@code graph.shards.connection-timeout}: 500 ms in the
     * services' defaults, 2 s in the Kubernetes manifests), which a database still starting, or a first connection on
     * a loaded machine, can exceed. Flyway waits 1, 2, 4, 8, 8 and 8 s between tries
     * ({@link #CONNECT_RETRY_CAP_SECONDS}), so a database that stays unreachable fails the start-up after about half a
     * minute instead of at once.
     */
    public static final int CONNECT_RETRIES = 6;

    /** The longest wait between two of those tries, seconds (Flyway's {@code connectRetriesInterval}). */
    public static final int CONNECT_RETRY_CAP_SECONDS = 8;

    private static final Logger log = LoggerFactory.getLogger(ShardMigrations.class);

    private ShardMigrations() {
    }

    /**
     * Migrates every database of {@code dataSources} to the newest schema version.
     *
     * @return the number of migrations applied, summed over databases (0 when all were current)
     * @throws org.flywaydb.core.api.FlywayException when a database cannot be reached or a migration fails;
     *                                               databases earlier in map order stay migrated
     */
    public static int migrateAll(ShardDataSources dataSources) {
        int applied = 0;
        for (Map.Entry<String, DataSource> db : dataSources.all().entrySet()) {
            applied += migrate(db.getValue());
        }
        log.info("Shard schema current on {} database(s); {} migration(s) applied", dataSources.all().size(), applied);
        return applied;
    }

    /**
     * Migrates one database; returns the number of migrations applied. A connection refused or not given in time is
     * asked for again {@link #CONNECT_RETRIES} times before the migration fails.
     *
     * @throws org.flywaydb.core.api.FlywayException when the database stays unreachable or a migration fails
     */
    public static int migrate(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(LOCATION)
                .connectRetries(CONNECT_RETRIES)
                .connectRetriesInterval(CONNECT_RETRY_CAP_SECONDS)
                // The pools' statement_timeout is for requests; a migration may legitimately take longer.
                .initSql("SET statement_timeout = 0")
                .load()
                .migrate()
                .migrationsExecuted;
    }
}
