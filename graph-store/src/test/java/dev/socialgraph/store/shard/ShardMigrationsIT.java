package dev.socialgraph.store.shard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.testsupport.TestShards;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The start-up migration against real PostgreSQL whose first connections are not given in time. */
class ShardMigrationsIT {

    private static TestShards shards;

    @BeforeAll
    static void databases() {
        shards = TestShards.create("migrations");
    }

    @AfterAll
    static void close() {
        shards.close();
    }

    @Test
    void aMigrationWhoseFirstConnectionsTimeOut_asksAgain_andMigrates() throws Exception {
        ShardRange range = shards.shardMap().ranges(ShardGroup.FOLLOWING).getFirst();
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setUrl(range.jdbcUrl());
        database.setUser(shards.username());
        database.setPassword(shards.password());
        AtomicInteger refused = new AtomicInteger();
        // What a pool throws when no connection came within its connection timeout (HikariCP's message and type).
        DataSource slowToConnect = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && refused.get() < 2) {
                        refused.incrementAndGet();
                        throw new SQLTransientConnectionException(
                                "Connection is not available, request timed out after 501ms");
                    }
                    try {
                        return method.invoke(database, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        int applied = ShardMigrations.migrate(slowToConnect);

        assertThat(refused).hasValue(2);
        assertThat(applied).isPositive();
        try (Connection connection = DriverManager.getConnection(range.jdbcUrl(), shards.username(),
                shards.password());
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT count(*) FILTER (WHERE success), count(*) FROM flyway_schema_history"
                             + " WHERE version IS NOT NULL")) {
            rows.next();
            assertThat(rows.getInt(1)).isEqualTo(applied).isEqualTo(rows.getInt(2));
        }
        assertThat(ShardMigrations.migrate(database)).isZero();
    }
}
