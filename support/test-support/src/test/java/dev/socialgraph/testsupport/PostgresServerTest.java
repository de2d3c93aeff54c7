package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class PostgresServerTest {

    @Test
    void fromAdminUrl_withUserInUrl_takesCredentialsOutOfDatabaseUrls() {
        PostgresServer server = PostgresServer.fromAdminUrl(Source.ENVIRONMENT,
                "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres", null, null, null);

        assertThat(server.username()).isEqualTo("postgres");
        assertThat(server.password()).isEmpty();
        assertThat(server.jdbcUrl("graph_following_0")).isEqualTo("jdbc:postgresql://127.0.0.1:5432/graph_following_0");
    }

    @Test
    void fromAdminUrl_withPasswordAndOtherParameters_keepsOnlyOtherParameters() {
        PostgresServer server = PostgresServer.fromAdminUrl(Source.ENVIRONMENT,
                "jdbc:postgresql://db.internal:6543/admin?user=graph&password=s3cret&sslmode=require", null, null, null);

        assertThat(server.username()).isEqualTo("graph");
        assertThat(server.password()).isEqualTo("s3cret");
        assertThat(server.jdbcUrl("x")).isEqualTo("jdbc:postgresql://db.internal:6543/x?sslmode=require");
    }

    @Test
    void fromAdminUrl_withoutUserOrPort_defaultsToPostgresOn5432() {
        PostgresServer server = PostgresServer.fromAdminUrl(Source.ENVIRONMENT, "jdbc:postgresql://localhost/postgres",
                null, null, null);

        assertThat(server.username()).isEqualTo("postgres");
        assertThat(server.jdbcUrl("x")).isEqualTo("jdbc:postgresql://localhost:5432/x");
    }

    @Test
    void fromAdminUrl_withExplicitCredentials_overridesUrl() {
        PostgresServer server = PostgresServer.fromAdminUrl(Source.CONTAINERS,
                "jdbc:postgresql://localhost:32768/postgres?user=ignored", "postgres", "test", null);

        assertThat(server.username()).isEqualTo("postgres");
        assertThat(server.password()).isEqualTo("test");
    }

    @Test
    void fromAdminUrl_notPostgres_throws() {
        assertThatThrownBy(() -> PostgresServer.fromAdminUrl(Source.ENVIRONMENT, "jdbc:mysql://localhost/x", null,
                null, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc:mysql");
    }

    @Test
    void dataSource_pointsAtDatabaseWithServerCredentials() {
        PostgresServer server = PostgresServer.fromAdminUrl(Source.ENVIRONMENT,
                "jdbc:postgresql://127.0.0.1:5432/postgres?user=graph&password=pw", null, null, null);

        PGSimpleDataSource dataSource = (PGSimpleDataSource) server.dataSource("graph_follower_1");

        assertThat(dataSource.getDatabaseName()).isEqualTo("graph_follower_1");
        assertThat(dataSource.getUser()).isEqualTo("graph");
        assertThat(dataSource.getPortNumbers()).containsExactly(5432);
    }

    @Test
    void createDatabase_withInvalidPrefix_throwsBeforeConnecting() {
        PostgresServer unreachable = PostgresServer.fromAdminUrl(Source.ENVIRONMENT,
                "jdbc:postgresql://127.0.0.1:1/postgres", null, null, null);

        assertThatThrownBy(() -> unreachable.createDatabase("drop table;")).isInstanceOf(IllegalArgumentException.class);
    }
}
