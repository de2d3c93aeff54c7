package dev.socialgraph.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.testsupport.ActuatorProbe;
import dev.socialgraph.testsupport.GuardProbe;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.testsupport.WireRoutes;
import dev.socialgraph.wire.InternalApi;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

// Closed after the class: its databases are dropped then, and its relays and pools must not outlive them.
@DirtiesContext
@SpringBootTest(classes = FollowWriteServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServiceProbesIT {

    private static final TestShards SHARDS = TestShards.create("write_probes");

    @DynamicPropertySource
    static void shards(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
    }

    @AfterAll
    static void dropShards() {
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    ShardDataSources dataSources;

    @Autowired
    ShardMap shardMap;

    @Test
    void servesProbesAndPrometheus_onTheManagementPortOnly() {
        ActuatorProbe.assertProbesUpAndScraped(managementPort, "follow-write-service");
        ActuatorProbe.assertNoActuatorOn(port, Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
    }

    @Test
    void startUp_migratesEveryDatabaseOfTheShardMap() throws SQLException {
        assertThat(shardMap.databases()).hasSize(4);
        for (DataSource ds : dataSources.all().values()) {
            assertThat(tables(ds)).contains("following_adjacency", "follower_adjacency", "celebrity_followers_page",
                    "follow_outbox", "flyway_schema_history");
        }
    }

    @Test
    void follow_withoutTheServiceCredentialOrWithAnOversizedBody_isRefusedAndWritesNothing() {
        String path = WriteHttp.path(31, 32);
        GuardProbe.assertRefusedWithoutCredential(port, "PUT", path);
        GuardProbe.assertRefusedWithoutCredential(port, "DELETE", path);
        GuardProbe.assertOversizedBodyRefused(port, "PUT", path, ServiceProcess.SERVICE_TOKEN);

        // Version 0 is the answer for a follower without a following row: none of the refused PUTs wrote one.
        WriteHttp.Reply unfollow = new WriteHttp(port).unfollow(31, 32);
        assertThat(unfollow.status()).isEqualTo(200);
        assertThat(unfollow.body().get("version").asLong()).isZero();
        WriteHttp.Reply follow = new WriteHttp(port).follow(31, 32);
        assertThat(follow.status()).isEqualTo(200);
        assertThat(follow.body().get("following").asBoolean()).isTrue();
    }

    private static List<String> tables(DataSource ds) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = ds.getConnection();
             ResultSet rs = c.getMetaData().getTables(null, "public", "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                names.add(rs.getString("TABLE_NAME"));
            }
        }
        return names;
    }

    @Test
    void theManagementPort_servesTheActuatorAndNothingOfTheApi() {
        // Asked with the service credential: the management port is reachable from the monitoring namespace, which
        // must not get a way around the API port's network policy.
        ActuatorProbe.assertOnlyActuatorOn(managementPort,
                List.of("/internal/v1/admin/users/1", "/internal/v1/admin/jobs/1", "/internal/v1/users/1/blocking"),
                Map.of("X-Service-Token", ServiceProcess.SERVICE_TOKEN));
    }

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    @Test
    void theRoutes_areExactlyThisServicesPartOfTheWire() {
        WireRoutes.assertServesExactly(mappings, InternalApi.WRITE_SERVICE);
    }
}

