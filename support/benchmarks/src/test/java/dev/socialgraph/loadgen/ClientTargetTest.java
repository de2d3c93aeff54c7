package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.loadgen.Operation.Kind;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientTargetTest {

    @Test
    void parseInstances_readsIdEqualsUrlPairs() {
        assertThat(ClientTarget.parseInstances(List.of("check-0=http://127.0.0.1:8081", " check-1 = http://h:8085 ")))
                .containsExactly(Map.entry("check-0", URI.create("http://127.0.0.1:8081")),
                        Map.entry("check-1", URI.create("http://h:8085")));
        assertThatThrownBy(() -> ClientTarget.parseInstances(List.of("http://127.0.0.1:8081")))
                .hasMessageContaining("id=url");
        assertThatThrownBy(() -> ClientTarget.parseInstances(List.of("a=http://h:1", "a=http://h:2")))
                .hasMessageContaining("'a' given twice");
    }

    @Test
    void fleetInstances_areTheLaunchersCheckInstances(@TempDir Path dir) throws IOException {
        URI check = URI.create("http://127.0.0.1:8081");
        assertThat(ClientTarget.fleetInstances(Fleet.read(dir, dir), check)).containsExactly(Map.entry("check-0", check));

        Files.writeString(dir.resolve("ports.properties"), "follow-check-service=8081\nfollow-check-service-2=8085\n");
        assertThat(ClientTarget.fleetInstances(Fleet.read(dir, dir), check)).containsExactly(
                Map.entry("check-0", check), Map.entry("check-1", URI.create("http://127.0.0.1:8085")));
    }

    @Test
    void serviceToken_isTheGivenOne_elseTheFleetsFile(@TempDir Path dir) throws IOException {
        assertThat(Fleet.read(dir, dir).serviceToken()).isEmpty();
        Files.writeString(dir.resolve("service-token"), "the-fleets-service-token-0123456789abcdef\n");

        Fleet fleet = Fleet.read(dir, dir);

        assertThat(fleet.serviceToken()).hasValue("the-fleets-service-token-0123456789abcdef");
        assertThat(Loadgen.serviceToken("given-token", fleet)).isEqualTo("given-token");
        if (System.getenv("GRAPH_SERVICE_TOKEN") == null) {
            assertThat(Loadgen.serviceToken(null, fleet)).isEqualTo("the-fleets-service-token-0123456789abcdef");
        }
    }

    @Test
    void execute_answersOk_andAFailureIsAnErrorNotAnException() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = (exchange.getRequestURI().getPath().endsWith("/counts")
                    ? "{\"followers\":1,\"following\":2}" : "{\"following\":true}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        try (ClientTarget up = ClientTarget.open(Map.of("check-0",
                URI.create("http://127.0.0.1:" + server.getAddress().getPort())), "token", List.of());
             ClientTarget down = ClientTarget.open(Map.of("check-0", URI.create("http://127.0.0.1:" + closedPort)),
                     null, List.of())) {
            assertThat(up.name()).isEqualTo("client");
            assertThat(up.supports(Kind.CHECK)).isTrue();
            assertThat(up.supports(Kind.FOLLOWING_PAGE)).isFalse();
            assertThat(up.supports(Kind.FOLLOW)).isFalse();
            assertThat(up.execute(Operation.of(Kind.CHECK, 10, 20)).get()).isEqualTo(Target.Outcome.OK);
            assertThat(up.execute(Operation.of(Kind.COUNTS, 10, 0)).get()).isEqualTo(Target.Outcome.OK);
            assertThat(down.execute(Operation.of(Kind.CHECK, 10, 20)).get()).isEqualTo(Target.Outcome.ERROR);
        } finally {
            server.stop(0);
        }
    }
}
