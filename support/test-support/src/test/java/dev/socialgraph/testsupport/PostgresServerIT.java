package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

class PostgresServerIT {

    private final PostgresServer postgres = TestServers.postgres();

    @Test
    void postgres_withoutEnvironmentVariable_isEmbedded() {
        assumeTrue(System.getenv(TestServers.POSTGRES_URL) == null, "external PostgreSQL configured");

        assertThat(postgres.source()).isEqualTo(Source.EMBEDDED);
        assertThat(postgres.username()).isEqualTo("postgres");
        assertThat(postgres.password()).isEmpty();
    }

    @Test
    void postgres_calledAgain_returnsSameServer() {
        assertThat(TestServers.postgres()).isSameAs(postgres);
    }

    @Test
    void createDatabase_returnsLowerCaseNameOfEmptyDatabaseUsableThroughJdbc() throws SQLException {
        String database = postgres.createDatabase("Graph_Following");
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(database), postgres.username(),
                postgres.password());
                Statement statement = connection.createStatement()) {
            assertThat(database).matches("graph_following_[a-z0-9]{10}");
            assertThat(queryString(statement, "SELECT current_database()")).isEqualTo(database);
            assertThat(queryLong(statement, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isZero();

            statement.execute("CREATE TABLE following_adjacency (follower_id BIGINT PRIMARY KEY, following_ids BIGINT[])");
            statement.execute("INSERT INTO following_adjacency VALUES (1, '{2,3,5}'), (7, '{1}')");

            assertThat(queryLong(statement, "SELECT sum(cardinality(following_ids)) FROM following_adjacency"))
                    .isEqualTo(4);
        } finally {
            postgres.dropDatabase(database);
        }
    }

    @Test
    void createDatabase_twice_givesIsolatedDatabases() throws SQLException {
        String first = postgres.createDatabase("isolation");
        String second = postgres.createDatabase("isolation");
        try (Connection one = postgres.dataSource(first).getConnection();
                Connection two = postgres.dataSource(second).getConnection();
                Statement inFirst = one.createStatement();
                Statement inSecond = two.createStatement()) {
            inFirst.execute("CREATE TABLE follow_outbox (id BIGSERIAL PRIMARY KEY, follower_id BIGINT)");
            inFirst.execute("INSERT INTO follow_outbox (follower_id) VALUES (42)");

            assertThat(first).isNotEqualTo(second);
            assertThat(queryLong(inFirst, "SELECT follower_id FROM follow_outbox")).isEqualTo(42);
            assertThat(queryString(inSecond, "SELECT to_regclass('follow_outbox')::text")).isNull();
        } finally {
            postgres.dropDatabase(first);
            postgres.dropDatabase(second);
        }
    }

    @Test
    void dataSource_connectsToThatDatabaseAsServerUser() throws SQLException {
        String database = postgres.createDatabase("datasource");
        DataSource dataSource = postgres.dataSource(database);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            assertThat(queryString(statement, "SELECT current_user")).isEqualTo(postgres.username());
            assertThat(queryString(statement, "SELECT current_database()")).isEqualTo(database);
        } finally {
            postgres.dropDatabase(database);
        }
    }

    @Test
    void dropDatabase_withConnectionStillOpen_closesItAndRemovesDatabase() throws SQLException {
        String database = postgres.createDatabase("dropped");
        try (Connection open = postgres.dataSource(database).getConnection()) {
            postgres.dropDatabase(database);

            assertThat(open.isValid(2)).isFalse();
        }
        assertThatThrownBy(() -> postgres.dataSource(database).getConnection().close())
                .isInstanceOf(SQLException.class)
                .extracting(e -> ((SQLException) e).getSQLState())
                .isEqualTo("3D000"); // invalid_catalog_name: database does not exist
    }

    @Test
    void dropDatabase_unknownName_doesNothing() {
        postgres.dropDatabase("never_created_0123456789");
    }

    @Test
    void dropDatabase_adminDatabase_isRefused() {
        assertThatThrownBy(() -> postgres.dropDatabase("postgres")).isInstanceOf(IllegalArgumentException.class);
    }

    private static String queryString(Statement statement, String sql) throws SQLException {
        try (ResultSet row = statement.executeQuery(sql)) {
            assertThat(row.next()).isTrue();
            return row.getString(1);
        }
    }

    private static long queryLong(Statement statement, String sql) throws SQLException {
        try (ResultSet row = statement.executeQuery(sql)) {
            assertThat(row.next()).isTrue();
            return row.getLong(1);
        }
    }
}
