package dev.socialgraph.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ShardDatabasesTest {

    @Test
    void databaseName_readsThePathOfAPostgresUrl() {
        assertThat(ShardDatabases.databaseName("jdbc:postgresql://127.0.0.1:5432/graph_following_0?user=x"))
                .isEqualTo("graph_following_0");
    }

    @Test
    void databaseName_refusesNamesThatAreNotPlainIdentifiers() {
        assertThatThrownBy(() -> ShardDatabases.databaseName("jdbc:postgresql://h/Graph;DROP"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lower-case identifier");
        assertThatThrownBy(() -> ShardDatabases.databaseName("jdbc:mysql://h/db"))
                .hasMessageContaining("not a jdbc:postgresql://");
    }

    @Test
    void maintenanceUrl_keepsHostPortAndParameters() {
        assertThat(ShardDatabases.maintenanceUrl("jdbc:postgresql://db.local:6543/graph_follower_1?user=u&ssl=true"))
                .isEqualTo("jdbc:postgresql://db.local:6543/postgres?user=u&ssl=true");
    }
}
