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

    /** Migrates one database; returns the number of migrations applied. */
    public static int migrate(DataSource dataSource) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(LOCATION)
                // The pools' statement_timeout is for requests; a migration may legitimately take longer.
                .initSql("SET statement_timeout = 0")
                .load()
                .migrate()
                .migrationsExecuted;
    }
}
