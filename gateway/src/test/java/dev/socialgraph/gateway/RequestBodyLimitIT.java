package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.testsupport.RedisServer;
import dev.socialgraph.testsupport.TestServers;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Request bodies over {@code graph.gateway.max-body-size} (default 1 MB) get 413 problem+json and never reach the
 * service, whether their length is declared ({@code Content-Length}) or not ({@code Transfer-Encoding: chunked}).
 * The service is a stub that records the size of every body it receives. Regression test for the 60 MB batch check
 * that the gateway streamed to the check service and that killed it.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RequestBodyLimitIT {

    static final String SECRET = "request-body-limit-it-jwt-secret-0123456789";
    static final int SIXTY_MB = 60 * 1024 * 1024;
    static final HttpServer SERVICE;
    static final List<Integer> RECEIVED = new CopyOnWriteArrayList<>(); // body sizes the service read

    static {
        try {
            SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        SERVICE.createContext("/", exchange -> {
            RECEIVED.add(exchange.getRequestBody().readAllBytes().length);
            byte[] answer = "{\"following\":[],\"notFollowing\":[]}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        SERVICE.start();
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        RedisServer redis = TestServers.redis();
        int database = redis.freshDatabase();
        String service = "http://127.0.0.1:" + SERVICE.getAddress().getPort();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.check-uri", () -> service);
        registry.add("graph.gateway.write-uri", () -> service);
        registry.add("spring.data.redis.url", () -> redis.uri(database));
    }

    @AfterAll
    static void stop() {
        SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    @BeforeEach
    void forget() {
        RECEIVED.clear();
    }

    @Test
    void largestLegalBatchCheck_reachesTheServiceWhole_withALengthOrChunked() throws Exception {
        // 10,000 ids of 19 digits: the largest batch graph.check.batch-max allows (its default is 1,000).
        long[] ids = new long[10_000];
        Arrays.fill(ids, Long.MAX_VALUE);
        byte[] body = ("{\"ids\":" + Arrays.toString(ids).replace(" ", "") + "}").getBytes(StandardCharsets.UTF_8);
        assertThat(body.length).isGreaterThan(190_000);

        RawHttp.Response declared = RawHttp.exchange(port, head("Content-Length: " + body.length)
                + new String(body, StandardCharsets.ISO_8859_1));
        assertThat(declared.status()).as(declared.head()).isEqualTo(200);
        assertThat(RECEIVED).containsExactly(body.length);

        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(head("Transfer-Encoding: chunked").getBytes(StandardCharsets.US_ASCII));
            for (int at = 0; at < body.length; at += 4096) {
                writeChunk(out, Arrays.copyOfRange(body, at, Math.min(body.length, at + 4096)));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(10_000);
            RawHttp.Response chunked = RawHttp.read(socket.getInputStream());
            assertThat(chunked.status()).as(chunked.head()).isEqualTo(200);
        }
        assertThat(RECEIVED).containsExactly(body.length, body.length);
    }

    @Test
    void sixtyMegabytesWithAContentLength_get413ProblemJsonAndReachNoService() throws Exception {
        RawHttp.Response response = sendStreaming(head("Content-Length: " + SIXTY_MB), false);
        assertTooLarge(response);
        assertThat(RECEIVED).isEmpty();
    }

    @Test
    void sixtyMegabytesChunked_get413ProblemJsonAndReachNoService() throws Exception {
        RawHttp.Response response = sendStreaming(head("Transfer-Encoding: chunked"), true);
        assertTooLarge(response);
        assertThat(RECEIVED).isEmpty();
    }

    private static void assertTooLarge(RawHttp.Response response) {
        assertThat(response.status()).as(response.head()).isEqualTo(413);
        assertThat(response.contentType()).startsWith("application/problem+json");
        JsonNode problem = JsonMapper.builder().build().readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(413);
        assertThat(problem.get("parameter").asString()).isEqualTo("body");
        assertThat(problem.get("detail").asString()).contains("1048576 bytes");
    }

    /**
     * Sends {@code head} and then 60 MB of body from another thread, as a client streaming a large upload does, and
     * reads the response meanwhile. The writer stops when the connection is closed.
     */
    private RawHttp.Response sendStreaming(String head, boolean chunked) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread writer = Thread.ofPlatform().daemon().start(() -> {
                byte[] piece = new byte[64 * 1024];
                Arrays.fill(piece, (byte) '1');
                try {
                    for (int sent = 0; sent < SIXTY_MB; sent += piece.length) {
                        if (chunked) {
                            writeChunk(out, piece);
                        } else {
                            out.write(piece);
                        }
                    }
                    if (chunked) {
                        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                    out.flush();
                } catch (IOException e) {
                    // the gateway may close the connection after answering; the answer is what is tested
                }
            });
            RawHttp.Response response = RawHttp.read(socket.getInputStream());
            socket.close();
            writer.join();
            return response;
        }
    }

    private String head(String lengthHeader) throws Exception {
        return "POST /v1/users/5/following/contains HTTP/1.1\r\nHost: 127.0.0.1:" + port
                + "\r\nAuthorization: Bearer " + token() + "\r\nContent-Type: application/json\r\n" + lengthHeader
                + "\r\n\r\n";
    }

    private static void writeChunk(OutputStream out, byte[] data) throws IOException {
        out.write((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(data);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    private static String token() throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("5")
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }
}
