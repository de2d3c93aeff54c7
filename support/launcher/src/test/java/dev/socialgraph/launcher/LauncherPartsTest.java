package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.common.id.InvalidUserIdException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LauncherPartsTest {

    @TempDir
    Path dir;

    @Test
    void theBrokerRunsFromTheLaunchersOwnJarOrClasspath() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        assertThat(LocalBroker.launcherCommand("/opt/graph/launcher-0.1.0-exec.jar", List.of("-Xmx512m")))
                .containsExactly(java, "-Xmx512m", "-jar", "/opt/graph/launcher-0.1.0-exec.jar");
        assertThat(LocalBroker.launcherCommand("/a/classes:/b/kafka.jar", List.of()))
                .containsExactly(java, "-cp", "/a/classes:/b/kafka.jar", GraphLauncher.class.getName());
    }

    @Test
    void aTestFleetsPortsStayBelowTheEphemeralRange() {
        for (int seed = 0; seed < 50; seed++) {
            PortPlan plan = new PortPlan(PortPlan.freeTestOffset(new Random(seed)));
            for (String name : List.of(PortPlan.GATEWAY, PortPlan.CHECK_2, PortPlan.POSTGRES, PortPlan.KAFKA_CONTROLLER)) {
                assertThat(plan.port(name)).as("%s at offset %d", name, plan.offset()).isLessThan(32_768);
            }
            assertThat(plan.offset()).isBetween(2_000, 13_600);
        }
    }

    @Test
    void portPlanShiftsEveryPortByTheOffset() {
        PortPlan plan = new PortPlan(100);
        assertThat(plan.port(PortPlan.GATEWAY)).isEqualTo(8180);
        assertThat(plan.port(PortPlan.CHECK_2)).isEqualTo(8185);
        assertThat(plan.port(PortPlan.POSTGRES)).isEqualTo(15532);
        assertThat(plan.port(PortPlan.KAFKA_CONTROLLER)).isEqualTo(19193);
        assertThatThrownBy(() -> new PortPlan(-1)).hasMessageContaining("--port-offset");
        assertThatThrownBy(() -> plan.port("nope")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void portPlanReportsPortsInUse() throws Exception {
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int offset = busy.getLocalPort() - 8080;
            if (offset < 0 || offset > 40_000) {
                return; // the OS gave a port below 8080: nothing to learn from it here
            }
            PortPlan plan = new PortPlan(offset);
            assertThat(plan.taken(List.of(PortPlan.GATEWAY))).containsExactly("gateway=" + busy.getLocalPort());
        }
    }

    @Test
    void secretsAreGeneratedOnceAndKeptPrivate() throws Exception {
        Secrets first = Secrets.load(dir, Map.of());
        Secrets second = Secrets.load(dir, Map.of());
        assertThat(second).isEqualTo(first);
        assertThat(first.jwtSecret()).hasSize(64).isNotEqualTo(first.tokenSecret()).isNotEqualTo(first.cursorKey());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("jwt-secret"))))
                .isEqualTo("rw-------");
        assertThat(first.environment()).containsEntry("GRAPH_JWT_SECRET", first.jwtSecret());
        assertThat(first.serviceToken()).hasSize(64).isNotEqualTo(first.jwtSecret());
        assertThat(first.environment()).containsEntry("GRAPH_SERVICE_TOKEN", first.serviceToken());
        assertThat(Files.readString(dir.resolve("service-token")).strip()).isEqualTo(first.serviceToken());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("service-token"))))
                .isEqualTo("rw-------");
        assertThat(first.toString()).doesNotContain(first.serviceToken()).doesNotContain(first.jwtSecret());
    }

    @Test
    void everyServiceOfTheFleet_listensOnTheLoopbackOnly() {
        Stores.Endpoints stores = StoresLayoutTest.standalone();
        List<ServiceFleet.Spec> specs = Specs.of(new PortPlan(0), stores, new FleetDir(dir), 2000, 1000, new Instances(2, 1, 1));

        assertThat(specs).extracting(ServiceFleet.Spec::module).contains("follow-write-service", "cdc-consumer",
                "follow-check-service", "reconciler", "gateway");
        assertThat(specs).hasSize(6).allSatisfy(spec ->
                assertThat(spec.properties()).containsEntry("server.address", "127.0.0.1"));
        // The credential travels in the environment, never on the command line.
        assertThat(specs).allSatisfy(spec -> assertThat(spec.properties()).doesNotContainKey("graph.service-token"));
    }

    @Test
    void theGatewayRunsWithItsOwnJvmFlags_andGraphJavaOptsComeAfterThem() throws Exception {
        Stores.Endpoints stores = StoresLayoutTest.standalone();
        List<ServiceFleet.Spec> specs = Specs.of(new PortPlan(0), stores, new FleetDir(dir), 2000, 1000,
                Instances.STANDARD, 25);
        ServiceFleet.Spec gateway = specs.stream().filter(s -> s.name().equals(PortPlan.GATEWAY)).findFirst()
                .orElseThrow();
        assertThat(gateway.jvmOptions()).containsExactly("-XX:+UseParallelGC", "-XX:+UseCompactObjectHeaders",
                "-Dreactor.netty.ioWorkerCount=1");
        // The check service's heap is fixed from the start (-Xms = -Xmx); the others keep the JVM's defaults.
        assertThat(specs).filteredOn(s -> s.module().equals("follow-check-service")).isNotEmpty()
                .allSatisfy(s -> assertThat(s.jvmOptions()).containsExactly("-Xms768m", "-XX:+AlwaysPreTouch"));
        assertThat(specs).filteredOn(s -> !s.name().equals(PortPlan.GATEWAY) && !s.module().equals("follow-check-service"))
                .allSatisfy(s -> assertThat(s.jvmOptions()).isEmpty());

        Path home = Files.createDirectories(dir.resolve("repo/gateway/target")).getParent().getParent();
        Files.createFile(home.resolve("gateway/target/gateway-0.1.0-SNAPSHOT-exec.jar"));
        try (ServiceFleet fleet = new ServiceFleet(home, new FleetDir(dir.resolve("fleet")), Map.of(),
                List.of("-XX:+UseSerialGC"))) {
            // GRAPH_JAVA_OPTS last among the JVM options, so an operator's flag wins over the service's own.
            assertThat(fleet.command(gateway)).containsSubsequence("-Xmx384m", "-XX:+UseParallelGC",
                    "-Dreactor.netty.ioWorkerCount=1", "-XX:+UseSerialGC", "-jar");
        }
    }

    @ParameterizedTest
    @CsvSource({"21, false", "24, false", "25, true", "26, true"})
    void theGatewayCommandLine_hasCompactObjectHeaders_onlyOnJvmsThatKnowTheFlag(int javaFeature, boolean compact)
            throws Exception {
        List<ServiceFleet.Spec> specs = Specs.of(new PortPlan(0), StoresLayoutTest.standalone(), new FleetDir(dir),
                2000, 1000, Instances.STANDARD, javaFeature);
        ServiceFleet.Spec gateway = specs.stream().filter(s -> s.name().equals(PortPlan.GATEWAY)).findFirst()
                .orElseThrow();
        Path home = Files.createDirectories(dir.resolve("repo/gateway/target")).getParent().getParent();
        Files.createFile(home.resolve("gateway/target/gateway-0.1.0-SNAPSHOT-exec.jar"));
        try (ServiceFleet fleet = new ServiceFleet(home, new FleetDir(dir.resolve("fleet")), Map.of(), List.of())) {
            List<String> command = fleet.command(gateway);
            assertThat(command).containsSubsequence("-XX:+UseParallelGC", "-Dreactor.netty.ioWorkerCount=1", "-jar");
            if (compact) {
                assertThat(command).contains("-XX:+UseCompactObjectHeaders");
            } else {
                assertThat(command).noneMatch(option -> option.contains("CompactObjectHeaders"));
            }
        }
    }

    @Test
    void theJvmRunningTheTests_acceptsEveryFlagTheLauncherGivesIt() throws Exception {
        // The services run on the launcher's own JVM (java.home); this one stands in for it. A flag the JVM does not
        // know makes it refuse to start ("Unrecognized VM option"), which is what the version rule must prevent.
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Specs.gatewayJvmOptions(Runtime.version().feature()));
        command.add("-version");
        Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(java.waitFor()).as(output).isZero();
        assertThat(output).doesNotContain("Unrecognized VM option");
    }

    @Test
    void everyServiceGetsAManagementPortOfItsOwn_tenThousandAboveItsApiPort() {
        List<ServiceFleet.Spec> specs = Specs.of(new PortPlan(100), StoresLayoutTest.standalone(), new FleetDir(dir),
                2000, 1000, new Instances(2, 2, 2));
        assertThat(specs).allSatisfy(spec -> {
            assertThat(spec.managementPort()).as(spec.name()).isEqualTo(spec.port() + 10_000);
            assertThat(spec.properties()).containsEntry("management.server.port", Integer.toString(spec.port() + 10_000));
        });
        assertThat(new PortPlan(100).managementPort(PortPlan.GATEWAY)).isEqualTo(18_180);
        assertThat(specs).extracting(ServiceFleet.Spec::managementPort).doesNotHaveDuplicates();
    }

    @Test
    void secretsFromTheEnvironmentWin() throws Exception {
        String mine = "an-external-secret-of-at-least-32-bytes!!";
        assertThat(Secrets.load(dir, Map.of("GRAPH_JWT_SECRET", mine)).jwtSecret()).isEqualTo(mine);
        assertThatThrownBy(() -> Secrets.load(dir, Map.of("GRAPH_JWT_SECRET", "short")))
                .hasMessageContaining("GRAPH_JWT_SECRET must be at least 32 bytes");
    }

    @Test
    void devTokensVerifyWithTheSecretAndCarryTheSubject() throws Exception {
        String secret = "0123456789abcdef0123456789abcdef";
        Instant now = Instant.parse("2026-11-23T12:00:00Z");
        SignedJWT jwt = SignedJWT.parse(DevTokens.mint(secret, 214328887L, Duration.ofHours(24), now));
        assertThat(jwt.verify(new MACVerifier(secret.getBytes(StandardCharsets.UTF_8)))).isTrue();
        assertThat(jwt.verify(new MACVerifier("another-secret-another-secret-xx".getBytes(StandardCharsets.UTF_8))))
                .isFalse();
        assertThat(jwt.getHeader().getAlgorithm().getName()).isEqualTo("HS256");
        assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo("214328887");
        assertThat(jwt.getJWTClaimsSet().getExpirationTime().toInstant()).isEqualTo(now.plus(Duration.ofHours(24)));
        assertThatThrownBy(() -> DevTokens.mint(secret, 0, Duration.ofHours(1), now))
                .isInstanceOf(InvalidUserIdException.class);
        assertThatThrownBy(() -> DevTokens.mint(secret, 1, Duration.ZERO, now)).hasMessageContaining("lifetime");
        assertThat(jwt.getJWTClaimsSet().getClaim("scope")).as("no scope unless asked").isNull();
        SignedJWT admin = SignedJWT.parse(DevTokens.mint(secret, 7, Duration.ofHours(1), now, "graph:admin"));
        assertThat(admin.getJWTClaimsSet().getStringClaim("scope")).isEqualTo("graph:admin");
    }

    @Test
    void ttlParsing() {
        assertThat(GraphLauncher.parseDuration("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(GraphLauncher.parseDuration("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(GraphLauncher.parseDuration("15s")).isEqualTo(Duration.ofSeconds(15));
        for (String bad : new String[] {"", "0h", "-1h", "24", "1w", "1.5h"}) {
            assertThatThrownBy(() -> GraphLauncher.parseDuration(bad)).as(bad).hasMessageContaining("--ttl");
        }
    }

    @Test
    void datasetResolution() throws Exception {
        FleetDir fleet = new FleetDir(dir.resolve("fleet"));
        fleet.create();
        assertThat(GraphLauncher.Datasets.resolve("none", dir, fleet)).isEmpty();
        Path file = Files.writeString(dir.resolve("g.tsv"), "# c\n5\t5\n7 9\n");
        assertThat(GraphLauncher.Datasets.resolve(file.toString(), dir, fleet)).contains(file.toAbsolutePath());
        assertThat(GraphLauncher.Datasets.firstEdge(file)).hasValueSatisfying(e -> assertThat(e).containsExactly(7, 9));
        assertThatThrownBy(() -> GraphLauncher.Datasets.resolve(dir.resolve("missing").toString(), dir, fleet))
                .hasMessageContaining("cannot read");
    }

    @Test
    void firstEdge_isTheFirstFollowThatIsNoSelfLoop_andEmptyForAFileItCannotRead() throws Exception {
        Path mixed = Files.writeString(dir.resolve("mixed.tsv"), "% konect\n  \n3\t4\tblock\n6 6\n8\t2\tfollow\n9\t1\n");
        assertThat(GraphLauncher.Datasets.firstEdge(mixed)).hasValueSatisfying(e -> assertThat(e).containsExactly(8, 2));
        Path gzip = dir.resolve("g.txt.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gzip))) {
            out.write("# c\n12\t13\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        assertThat(GraphLauncher.Datasets.firstEdge(gzip)).hasValueSatisfying(e -> assertThat(e).containsExactly(12, 13));
        assertThat(GraphLauncher.Datasets.firstEdge(Files.writeString(dir.resolve("bad.tsv"), "5\tfive\n7 9\n")))
                .isEmpty();
        assertThat(GraphLauncher.Datasets.firstEdge(Files.writeString(dir.resolve("loops.tsv"), "5\t5\n"))).isEmpty();
        assertThat(GraphLauncher.Datasets.firstEdge(dir.resolve("absent.tsv"))).isEmpty();
    }

    @Test
    void embeddedPostgresCommitsDurably_overridingZonkysTestDefaults() {
        // zonky's builder starts PostgreSQL with -F (fsync off) and synchronous_commit=off; the launcher's -c options
        // come after and must say on. LauncherIT asks the running server.
        assertThat(Stores.postgresSettings())
                .containsEntry("fsync", "on")
                .containsEntry("synchronous_commit", "on")
                .containsEntry("full_page_writes", "on")
                .containsEntry("commit_delay", "50")
                .containsEntry("commit_siblings", "5")
                .containsEntry("recovery_init_sync_method", "syncfs");
    }

    @Test
    void fleetDirKnowsNoLauncherWithoutAPidFile() throws Exception {
        FleetDir fleet = new FleetDir(dir);
        fleet.create();
        assertThat(fleet.runningLauncher()).isEmpty();
        fleet.writePid("launcher", ProcessHandle.current().pid());
        assertThat(fleet.runningLauncher()).hasValueSatisfying(p -> assertThat(p.pid())
                .isEqualTo(ProcessHandle.current().pid()));
        fleet.clearRun();
        assertThat(fleet.runningLauncher()).isEmpty();
    }
}
