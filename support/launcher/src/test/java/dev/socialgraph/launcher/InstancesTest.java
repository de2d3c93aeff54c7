package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Several instances of the check, write and cdc services without starting them: each process' name, port and
 * properties, the gateway's instance lists, the ports of the largest fleet, and the counts the data directory
 * remembers. One instance of each must give exactly what a fleet got before the counts existed.
 */
class InstancesTest {

    private static final String CHECK_LIST = "spring.cloud.discovery.client.simple.instances.follow-check-service";
    private static final String WRITE_LIST = "spring.cloud.discovery.client.simple.instances.follow-write-service";

    @TempDir
    Path dir;

    @Test
    void oneOfEach_keepsTodaysNamesPortsAndProperties() {
        Map<String, ServiceFleet.Spec> specs = specs(Instances.STANDARD);

        assertThat(specs.keySet()).containsExactly(PortPlan.WRITE, PortPlan.CDC, PortPlan.CHECK, PortPlan.RECONCILER,
                PortPlan.GATEWAY);
        assertThat(specs.values()).extracting(ServiceFleet.Spec::port).containsExactly(8082, 8083, 8081, 8084, 8080);
        assertThat(specs.get(PortPlan.WRITE).properties()).doesNotContainKeys("graph.shards.migrate-on-startup",
                "graph.shards.create-databases");
        assertThat(specs.get(PortPlan.CHECK).properties()).containsEntry("graph.check.affinity.instance-id", "check-0")
                .containsEntry("graph.check.affinity.instances", "");
        assertThat(specs.get(PortPlan.CDC).properties()).doesNotContainKey("graph.cdc.group-id");
        assertThat(specs.get(PortPlan.GATEWAY).properties())
                .containsEntry(CHECK_LIST + "[0].instance-id", "check-0")
                .containsEntry(CHECK_LIST + "[0].uri", "http://127.0.0.1:8081")
                .doesNotContainKey(CHECK_LIST + "[1].uri")
                .containsEntry("graph.gateway.write-uri", "http://127.0.0.1:8082")
                .satisfies(p -> assertThat(p.keySet()).noneMatch(k -> k.startsWith(WRITE_LIST)));
        assertThat(Banner.services(new PortPlan(0), Instances.STANDARD))
                .isEqualTo("check :8081  write :8082  cdc-consumer :8083  reconciler :8084");
        assertThat(Stores.postgresSettings()).containsEntry("max_connections", "400");
    }

    @Test
    void twoCheckInstances_keepTheirFormerIdsAndPorts() {
        Map<String, ServiceFleet.Spec> specs = specs(new Instances(2, 1, 1));

        assertThat(specs.get(PortPlan.CHECK_2).port()).isEqualTo(8085);
        assertThat(specs.get(PortPlan.CHECK_2).properties()).containsEntry("graph.check.affinity.instance-id", "check-1")
                .containsEntry("graph.check.affinity.instances", "check-0,check-1");
    }

    @Test
    void threeCheckInstances_eachOwnsItsId_andTheGatewayListsEveryOne() {
        Map<String, ServiceFleet.Spec> specs = specs(new Instances(3, 1, 1));

        assertThat(specs.keySet()).containsExactly(PortPlan.WRITE, PortPlan.CDC, "follow-check-service",
                "follow-check-service-2", "follow-check-service-3", PortPlan.RECONCILER, PortPlan.GATEWAY);
        int[] ports = {8081, 8085, 8086};
        Map<String, String> gateway = specs.get(PortPlan.GATEWAY).properties();
        for (int i = 0; i < 3; i++) {
            ServiceFleet.Spec check = specs.get(PortPlan.check(i));
            assertThat(check.module()).isEqualTo("follow-check-service");
            assertThat(check.port()).isEqualTo(ports[i]);
            assertThat(check.heap()).isEqualTo("768m");
            assertThat(check.properties()).containsEntry("graph.check.affinity.instance-id", "check-" + i)
                    .containsEntry("graph.check.affinity.instances", "check-0,check-1,check-2");
            assertThat(gateway).containsEntry(CHECK_LIST + "[" + i + "].instance-id", "check-" + i)
                    .containsEntry(CHECK_LIST + "[" + i + "].uri", "http://127.0.0.1:" + ports[i]);
        }
        assertThat(gateway).doesNotContainKey(CHECK_LIST + "[3].uri");
        assertThat(Banner.services(new PortPlan(0), new Instances(3, 1, 1))).startsWith("check :8081 :8085 :8086  ");
    }

    @Test
    void writeInstances_onlyTheFirstMigrates_andTheGatewayBalancesOverAll() {
        Map<String, ServiceFleet.Spec> specs = specs(new Instances(1, 3, 1));

        assertThat(new ArrayList<>(specs.keySet()).subList(0, 3)).as("the write instances start first, in order")
                .containsExactly("follow-write-service", "follow-write-service-2", "follow-write-service-3");
        assertThat(specs.get(PortPlan.WRITE).properties()).doesNotContainKey("graph.shards.migrate-on-startup");
        int[] ports = {8082, 8092, 8093};
        Map<String, String> gateway = specs.get(PortPlan.GATEWAY).properties();
        for (int i = 0; i < 3; i++) {
            ServiceFleet.Spec write = specs.get(PortPlan.write(i));
            assertThat(write.module()).isEqualTo("follow-write-service");
            assertThat(write.port()).isEqualTo(ports[i]);
            assertThat(write.properties()).as("every instance runs the relays")
                    .containsEntry("graph.write.relay.bootstrap-servers", "127.0.0.1:9092")
                    .doesNotContainKey("graph.write.relay.enabled");
            if (i > 0) {
                assertThat(write.properties()).containsEntry("graph.shards.migrate-on-startup", "false")
                        .containsEntry("graph.shards.create-databases", "false");
            }
            assertThat(gateway).containsEntry(WRITE_LIST + "[" + i + "].instance-id", "write-" + i)
                    .containsEntry(WRITE_LIST + "[" + i + "].uri", "http://127.0.0.1:" + ports[i]);
        }
        assertThat(gateway).doesNotContainKey(WRITE_LIST + "[3].uri");
    }

    @Test
    void cdcInstances_areOneConsumerGroup_withTheSameSettingsOnTheirOwnPorts() {
        Map<String, ServiceFleet.Spec> specs = specs(new Instances(1, 1, 4));

        Map<String, String> first = specs.get(PortPlan.CDC).properties();
        int[] ports = {8083, 8095, 8096, 8097};
        for (int i = 0; i < 4; i++) {
            ServiceFleet.Spec cdc = specs.get(PortPlan.cdc(i));
            assertThat(cdc.name()).isEqualTo(i == 0 ? "cdc-consumer" : "cdc-consumer-" + (i + 1));
            assertThat(cdc.port()).isEqualTo(ports[i]);
            // The same properties but the management port, the service's default group id among them: one group.
            assertThat(cdc.properties()).containsEntry("management.server.port", Integer.toString(ports[i] + 10_000))
                    .doesNotContainKey("graph.cdc.group-id");
            Map<String, String> shared = new HashMap<>(cdc.properties());
            Map<String, String> firstShared = new HashMap<>(first);
            shared.remove("management.server.port");
            firstShared.remove("management.server.port");
            assertThat(shared).isEqualTo(firstShared);
        }
    }

    @Test
    void theLargestFleet_hasAPortPerProcess_noneShared() {
        Instances most = new Instances(PortPlan.MAX_CHECK_INSTANCES, PortPlan.MAX_WRITE_INSTANCES,
                PortPlan.MAX_CDC_INSTANCES);
        List<ServiceFleet.Spec> specs = Specs.of(new PortPlan(0), StoresLayoutTest.standalone(), new FleetDir(dir),
                2000, 1000, most);

        assertThat(specs).hasSize(8 + 4 + 4 + 2);
        assertThat(specs).extracting(ServiceFleet.Spec::name).containsExactlyInAnyOrderElementsOf(most.serviceNames())
                .containsExactlyInAnyOrderElementsOf(PortPlan.services());
        assertThat(specs).extracting(ServiceFleet.Spec::port).doesNotHaveDuplicates()
                .allSatisfy(port -> assertThat(port).isBetween(8080, 8097));
        // And with every other port of the plan: no service port is a store's.
        List<String> all = new ArrayList<>(PortPlan.services());
        for (int i = 0; i < PortPlan.MAX_POSTGRES_SERVERS; i++) {
            all.add(PortPlan.postgres(i));
        }
        all.addAll(PortPlan.redisCluster());
        all.addAll(List.of(PortPlan.REDIS, PortPlan.KAFKA, PortPlan.KAFKA_CONTROLLER));
        Set<Integer> ports = new HashSet<>();
        PortPlan shifted = new PortPlan(100);
        for (String name : all) {
            assertThat(ports.add(shifted.port(name))).as("%s's port %d is unique", name, shifted.port(name)).isTrue();
        }
        assertThat(Stores.postgresSettings(most.shardClients())).containsEntry("max_connections",
                Integer.toString(240 + 40 * 17));
    }

    @Test
    void countsOutOfRange_areRefused_namingTheOption() {
        assertThatThrownBy(() -> new Instances(9, 1, 1)).hasMessageContaining("--check-instances must be within 1..8");
        assertThatThrownBy(() -> new Instances(1, 0, 1)).hasMessageContaining("--write-instances must be within 1..4");
        assertThatThrownBy(() -> new Instances(1, 1, 5)).hasMessageContaining("--cdc-instances must be within 1..4");
    }

    @Test
    void up_startsTheRecordedCounts_unlessOptionsGiveOthers() throws IOException {
        FleetDir fleet = new FleetDir(dir);
        fleet.create();
        assertThat(up().instances(fleet)).isEqualTo(Instances.STANDARD);

        fleet.writeLayout(new Stores.Layout(2, false), new Instances(3, 2, 2));
        assertThat(fleet.layout()).hasValue(new Stores.Layout(2, false));
        assertThat(up().instances(fleet)).isEqualTo(new Instances(3, 2, 2));
        assertThat(up("--write-instances", "1").instances(fleet)).isEqualTo(new Instances(3, 1, 2));
        assertThat(up("--check-instances", "8", "--cdc-instances", "4").instances(fleet))
                .isEqualTo(new Instances(8, 2, 4));
        assertThatThrownBy(() -> up("--check-instances", "0").instances(fleet))
                .hasMessageContaining("--check-instances");

        // A data directory recorded before the counts existed: one of each.
        Files.writeString(dir.resolve("fleet.properties"), "postgres-servers=1\nredis=standalone\n");
        assertThat(up().instances(fleet)).isEqualTo(Instances.STANDARD);
    }

    private Map<String, ServiceFleet.Spec> specs(Instances instances) {
        Map<String, ServiceFleet.Spec> byName = new LinkedHashMap<>();
        for (ServiceFleet.Spec spec : Specs.of(new PortPlan(0), StoresLayoutTest.standalone(), new FleetDir(dir), 2000,
                1000, instances)) {
            byName.put(spec.name(), spec);
        }
        return byName;
    }

    private static GraphLauncher.Up up(String... args) {
        GraphLauncher.Up up = new GraphLauncher.Up();
        new CommandLine(up).parseArgs(args);
        return up;
    }
}
