package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.loadgen.Operation.Kind;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HopBench's floors as it runs them: both from the floors' runnable jar that {@link FloorProcess#defaultJar()} finds
 * (the reactor builds it before this module), the bare gateway in front of a stand-in check service (the JDK's HTTP
 * server), each measured through the target HopBench gives it, and gone once closed.
 */
class FloorProcessIT {

    static final String TOKEN = "floor-process-it-service-token-0123456789";

    @TempDir
    Path logs;

    @Test
    void bareAndHello_startFromTheJar_answerTheirTargets_andStopWhenClosed() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpServer check = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        check.createContext("/", exchange -> {
            seen.add(exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("X-Service-Token"));
            byte[] body = "{\"following\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        check.start();
        Path jar = FloorProcess.defaultJar();
        FloorProcess bare = FloorProcess.start(jar, FloorProcess.BARE_GATEWAY,
                Map.of(FloorProcess.CHECK_URI_PROPERTY, "http://127.0.0.1:" + check.getAddress().getPort()), TOKEN,
                logs);
        FloorProcess hello = FloorProcess.start(jar, FloorProcess.HELLO, Map.of(), TOKEN, logs);
        try (bare; hello;
             HttpTarget bareTarget = HttpTarget.named("bare", bare.baseUri(), List.of(bare.serverProcess("bare")));
             HttpTarget helloTarget = HttpTarget.fixed("hello", URI.create(hello.baseUri() + FloorProcess.HELLO_PATH),
                     TOKEN, List.of(hello.serverProcess("hello")))) {
            bare.awaitReady(Duration.ofSeconds(180));
            hello.awaitReady(Duration.ofSeconds(180));

            assertThat(bareTarget.execute(Operation.of(Kind.CHECK, 5, 6)).get(10, TimeUnit.SECONDS))
                    .isEqualTo(Target.Outcome.OK);
            assertThat(seen).containsExactly("/internal/v1/users/5/following/6 " + TOKEN);
            assertThat(helloTarget.execute(Operation.of(Kind.CHECK, 5, 6)).get(10, TimeUnit.SECONDS))
                    .isEqualTo(Target.Outcome.OK);
        } finally {
            check.stop(0);
        }
        assertThat(bare.isAlive()).isFalse();
        assertThat(hello.isAlive()).isFalse();
    }

    @Test
    void aFloorThatStopsDuringStartUp_isReportedWithItsLog() {
        // A response timeout under the floor's 1 ms minimum: its settings are refused and the JVM exits.
        try (FloorProcess broken = FloorProcess.start(FloorProcess.defaultJar(), FloorProcess.BARE_GATEWAY,
                Map.of("floor.bare.response-timeout", "0s"), TOKEN, logs)) {
            assertThatThrownBy(() -> broken.awaitReady(Duration.ofSeconds(180)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exited")
                    .hasMessageContaining("responseTimeout");
        }
    }
}
