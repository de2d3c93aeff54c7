package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.TestServers;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The single check served by the gateway's own handler and coalesced into batch calls
 * ({@code graph.gateway.check-coalescing}), against a stand-in check instance that records every call
 * and answers the batch check ({@code POST /internal/v1/following/pairs}) from a rule the test knows: what the
 * instance is asked (the credential, the request id, each pair with its own token), what each caller gets (its own
 * answer, the pair's or the batch's problem relayed with the caller's path), and that concurrent checks share calls.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class CoalescedCheckIT {

    static final String SECRET = "coalesced-check-it-jwt-secret-0123456789-abc";
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final String SERVED_BY = "stub-check";
    /** A follower whose pair the instance answers with the single check's shard-unavailable problem. */
    static final long SHARD_DOWN = 700;
    /** Followers whose lone batch the instance answers with an error status (500, 503, 502 not JSON). */
    static final long BATCH_500 = 900;
    static final long BATCH_503 = 901;
    static final long BATCH_502 = 902;
    /** A follower whose lone batch the instance answers with 200 and a body larger than its pairs can take. */
    static final long BATCH_HUGE = 903;
    /**
     * A follower on a hung database: the instance answers its pair with the 503 the check service gives a pair past
     * its {@code graph.check.pair-timeout}, and every other pair of the batch as usual.
     */
    static final long HUNG = 800;

    /** One call the instance got. */
    record Seen(String method, String path, Map<String, List<String>> headers, JsonNode body) {
    }

    static final HttpServer SERVICE;
    static final List<Seen> SEEN = new CopyOnWriteArrayList<>();
    /** While set, the instance holds every call until it is counted down. */
    static volatile CountDownLatch hold;

    static {
        try {
            SERVICE = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        // A held call must not hold the others; daemon threads, which leave with the test JVM.
        SERVICE.setExecutor(Executors.newCachedThreadPool(Thread.ofPlatform().daemon().factory()));
        SERVICE.createContext("/", CoalescedCheckIT::serve);
        SERVICE.start();
    }

    /**
     * The instance's rule: {@code follower} follows {@code followee} when their sum is even, or when the pair
     * carries the token {@code "fresh"} (a write the caller just made); {@link #SHARD_DOWN}'s pairs get a problem.
     */
    static boolean follows(long follower, long followee, String token) {
        return (follower + followee) % 2 == 0 || "fresh".equals(token);
    }

    private static void serve(HttpExchange exchange) throws IOException {
        byte[] request = exchange.getRequestBody().readAllBytes();
        JsonNode body = request.length == 0 ? null : JSON.readTree(request);
        SEEN.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                Map.copyOf(exchange.getRequestHeaders()), body));
        CountDownLatch latch = hold;
        if (latch != null) {
            try {
                latch.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        exchange.getResponseHeaders().set("X-Served-By", SERVED_BY);
        if (!exchange.getRequestURI().getRawPath().equals(FollowPairsClient.PATH) || body == null) {
            respond(exchange, 404, "application/problem+json", "{\"status\":404,\"detail\":\"not here\"}");
            return;
        }
        JsonNode pairs = body.get("pairs");
        long firstFollower = pairs.get(0).get("followerId").longValue();
        if (firstFollower == BATCH_500) {
            respond(exchange, 500, "application/problem+json", "{\"type\":\"" + ProblemType.INTERNAL_ERROR.uriText()
                    + "\",\"title\":\"Internal Server Error\",\"status\":500,\"detail\":\"a bug\","
                    + "\"instance\":\"/internal/v1/following/pairs\"}");
            return;
        }
        if (firstFollower == BATCH_503) {
            exchange.getResponseHeaders().set("Retry-After", "3");
            respond(exchange, 503, "application/problem+json", "{\"type\":\""
                    + ProblemType.SERVICE_UNAVAILABLE.uriText() + "\",\"title\":\"Service Unavailable\","
                    + "\"status\":503,\"detail\":\"too busy\"}");
            return;
        }
        if (firstFollower == BATCH_502) {
            respond(exchange, 502, "text/html", "<html>bad gateway</html>");
            return;
        }
        if (firstFollower == BATCH_HUGE) {
            // Valid JSON with one result, and 70 KB of a member no result has: more than one pair's answer can be.
            respond(exchange, 200, "application/json", "{\"results\":[{\"following\":true,\"padding\":\""
                    + "x".repeat(70_000) + "\"}]}");
            return;
        }
        StringBuilder results = new StringBuilder("{\"results\":[");
        for (int i = 0; i < pairs.size(); i++) {
            JsonNode pair = pairs.get(i);
            long follower = pair.get("followerId").longValue();
            long followee = pair.get("followeeId").longValue();
            String token = pair.has("followToken") ? pair.get("followToken").asString() : null;
            results.append(i > 0 ? "," : "");
            if (follower == HUNG) {
                results.append("{\"type\":\"").append(ProblemType.SHARD_UNAVAILABLE.uriText())
                        .append("\",\"title\":\"Service Unavailable\",\"status\":503,")
                        .append("\"detail\":\"the check of this pair did not finish within 1000 ms; retry later\",")
                        .append("\"instance\":\"/internal/v1/users/").append(follower).append("/following/")
                        .append(followee).append("\"}");
            } else if (follower == SHARD_DOWN) {
                results.append("{\"type\":\"").append(ProblemType.SHARD_UNAVAILABLE.uriText())
                        .append("\",\"title\":\"Shard unavailable\",\"status\":503,")
                        .append("\"detail\":\"the shard database holding this user is unavailable; retry later\"}");
            } else {
                results.append("{\"following\":").append(follows(follower, followee, token)).append('}');
            }
        }
        respond(exchange, 200, "application/json", results.append("]}").toString());
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        String uri = "http://127.0.0.1:" + SERVICE.getAddress().getPort();
        registry.add("graph.gateway.jwt-secret", () -> SECRET);
        registry.add("graph.gateway.check-uri", () -> uri);
        registry.add("graph.gateway.write-uri", () -> uri);
        registry.add("spring.data.redis.url", () -> TestServers.redis().uri(TestServers.redis().freshDatabase()));
        registry.add("graph.gateway.reads.replenish-rate", () -> "100000");
        registry.add("graph.gateway.reads.burst-capacity", () -> "100000");
        registry.add("graph.gateway.check-coalescing.enabled", () -> "true");
        // One batch at a time: a held call makes every other check wait, so the test knows what each batch holds.
        registry.add("graph.gateway.check-coalescing.max-in-flight", () -> "1");
        // A fixed management port, as deployed: Spring Cloud Gateway's routes recognise it only by its configured
        // number (a random one, 0, they cannot), and the test asks that port for a check.
        registry.add("management.server.port", () -> MANAGEMENT_PORT);
    }

    static final int MANAGEMENT_PORT = freePort();

    private static int freePort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stop() {
        hold = null;
        SERVICE.stop(0);
    }

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    MeterRegistry meters;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void clear() {
        SEEN.clear();
        hold = null;
    }

    private static String token(long user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(Long.toString(user))
                .expirationTime(Date.from(Instant.now().plusSeconds(300))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private HttpRequest check(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token(5)).timeout(Duration.ofSeconds(30)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return b.build();
    }

    private HttpResponse<String> send(String path, String... headers) throws Exception {
        return http.send(check(path, headers), HttpResponse.BodyHandlers.ofString());
    }

    private double meter(String name) {
        return meters.get(name).tag("check_instance", "local").functionCounter().count();
    }

    @Test
    void aCheck_isOneBatchCall_withTheCredentialRequestIdAndToken_answeredAsTheCheckServiceAnswers() throws Exception {
        HttpResponse<String> yes = send("/v1/users/12/following/14", "X-Follow-Token", "tok-12",
                "X-Request-Id", "client-id-1", "X-Service-Token", "forged-by-a-client-0123456789-0123456789");

        assertThat(yes.statusCode()).isEqualTo(200);
        assertThat(yes.body()).isEqualTo("{\"following\":true}");
        assertThat(yes.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(yes.headers().firstValue("Content-Length")).hasValue("18");
        assertThat(yes.headers().firstValue("X-Served-By")).hasValue(SERVED_BY);
        assertThat(yes.headers().firstValue("X-Request-Id")).hasValue("client-id-1");
        assertThat(SEEN).singleElement().satisfies(seen -> {
            assertThat(seen.method()).isEqualTo("POST");
            assertThat(seen.path()).isEqualTo("/internal/v1/following/pairs");
            assertThat(seen.headers().get("X-service-token")).containsExactly(ServiceProcess.SERVICE_TOKEN);
            assertThat(seen.headers().get("X-request-id")).containsExactly("client-id-1");
            assertThat(seen.headers().get("Content-type")).containsExactly("application/json");
            assertThat(seen.body().toString())
                    .as("the token's subject is the pair's viewer").isEqualTo("{\"pairs\":[{\"followerId\":12,"
                            + "\"followeeId\":14,\"viewerId\":5,\"followToken\":\"tok-12\"}]}");
        });

        HttpResponse<String> no = send("/v1/users/12/following/15");
        assertThat(no.body()).isEqualTo("{\"following\":false}");
        assertThat(no.headers().firstValue("X-Request-Id")).hasValueSatisfying(id -> assertThat(id).hasSize(36));
        assertThat(SEEN.get(1).body().toString())
                .isEqualTo("{\"pairs\":[{\"followerId\":12,\"followeeId\":15,\"viewerId\":5}]}");
        assertThat(SEEN.get(1).headers().get("X-request-id")).containsExactly(no.headers().firstValue("X-Request-Id")
                .orElseThrow());
        assertThat(send("/v1/users/12/following/15", "X-Follow-Token", "fresh").body())
                .as("read-your-writes: the token reaches the instance").isEqualTo("{\"following\":true}");
    }

    @Test
    void aPairsProblem_isRelayedAsTheSingleChecksProblem_namingTheCallersPath() throws Exception {
        HttpResponse<String> r = send("/v1/users/" + SHARD_DOWN + "/following/5");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(r.headers().firstValue("X-Served-By")).hasValue(SERVED_BY);
        JsonNode problem = JSON.readTree(r.body());
        assertThat(problem.get("type").asString()).isEqualTo(ProblemType.SHARD_UNAVAILABLE.uriText());
        assertThat(problem.get("title").asString()).isEqualTo("Shard unavailable");
        assertThat(problem.get("status").asInt()).isEqualTo(503);
        assertThat(problem.get("instance").asString()).isEqualTo("/v1/users/" + SHARD_DOWN + "/following/5");
        assertThat(problem.get("detail").asString()).contains("retry later");
    }

    @Test
    void aWholeBatchsErrorAnswer_isRelayedToItsCaller() throws Exception {
        HttpResponse<String> bug = send("/v1/users/" + BATCH_500 + "/following/5");
        assertThat(bug.statusCode()).isEqualTo(500);
        assertThat(bug.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JSON.readTree(bug.body()).get("instance").asString())
                .as("the caller's path, not the batch's").isEqualTo("/v1/users/" + BATCH_500 + "/following/5");
        assertThat(JSON.readTree(bug.body()).get("detail").asString()).isEqualTo("a bug");

        HttpResponse<String> busy = send("/v1/users/" + BATCH_503 + "/following/5");
        assertThat(busy.statusCode()).isEqualTo(503);
        assertThat(busy.headers().firstValue("Retry-After")).hasValue("3");
        assertThat(JSON.readTree(busy.body()).get("type").asString())
                .isEqualTo(ProblemType.SERVICE_UNAVAILABLE.uriText());

        HttpResponse<String> html = send("/v1/users/" + BATCH_502 + "/following/5");
        assertThat(html.statusCode()).isEqualTo(502);
        assertThat(html.headers().firstValue("Content-Type")).hasValue("text/html");
        assertThat(html.body()).isEqualTo("<html>bad gateway</html>");
        assertThat(html.headers().firstValue("X-Served-By")).hasValue(SERVED_BY);
    }

    /**
     * A pair the check instance could not answer in time (a follower on a hung database) among others in one batch:
     * its caller gets that pair's 503 with {@code Retry-After}, every other caller its own answer.
     */
    @Test
    void aHungPairInABatch_isItsCallersOwn503_andTheOthersGetTheirAnswers() throws Exception {
        hold = new CountDownLatch(1);
        CompletableFuture<HttpResponse<String>> lead = http.sendAsync(check("/v1/users/21/following/1"),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.size() == 1);
        List<CompletableFuture<HttpResponse<String>>> batch = new ArrayList<>();
        long[] followers = {30, HUNG, 31, 32};
        for (long follower : followers) {
            batch.add(http.sendAsync(check("/v1/users/" + follower + "/following/2"),
                    HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                meters.get("graph.gateway.coalescer.queued").tag("check_instance", "local").gauge().value() == 4);
        hold.countDown();

        assertThat(lead.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        for (int i = 0; i < followers.length; i++) {
            HttpResponse<String> r = batch.get(i).get(60, TimeUnit.SECONDS);
            if (followers[i] == HUNG) {
                assertThat(r.statusCode()).isEqualTo(503);
                assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                JsonNode problem = JSON.readTree(r.body());
                assertThat(problem.get("type").asString()).isEqualTo(ProblemType.SHARD_UNAVAILABLE.uriText());
                assertThat(problem.get("instance").asString()).isEqualTo("/v1/users/" + HUNG + "/following/2");
            } else {
                assertThat(r.statusCode()).as("follower %d", followers[i]).isEqualTo(200);
                assertThat(r.body()).isEqualTo("{\"following\":" + follows(followers[i], 2, null) + "}");
            }
        }
        assertThat(SEEN).as("the lead's call, then one for the four").hasSize(2);
        assertThat(SEEN.get(1).body().get("pairs").size()).isEqualTo(4);
    }

    /** The answer is read only up to what its pairs can take: more fails the batch, 503, and is not held. */
    @Test
    void anAnswerLargerThanItsPairsCanTake_is503() throws Exception {
        HttpResponse<String> r = send("/v1/users/" + BATCH_HUGE + "/following/5");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        JsonNode problem = JSON.readTree(r.body());
        assertThat(problem.get("type").asString()).isEqualTo(ProblemType.SERVICE_UNAVAILABLE.uriText());
        assertThat(problem.get("detail").asString())
                .isEqualTo("the service behind this route gave an answer the gateway cannot use");
        assertThat(send("/v1/users/12/following/14").body()).as("the next batch is answered")
                .isEqualTo("{\"following\":true}");
    }

    /**
     * No token is longer than 64 characters: a longer {@code X-Follow-Token} is refused naming it, on the coalesced
     * check before it can enter a batch and on every route before it is proxied.
     */
    @Test
    void aFollowTokenLongerThanAnyToken_is400NamingIt_andReachesNoInstance() throws Exception {
        String tooLong = "A".repeat(65);
        for (String path : new String[] {"/v1/users/12/following/14", "/v1/users/12/counts",
                "/v1/users/12/relationship/14"}) {
            HttpResponse<String> r = send(path, "X-Follow-Token", tooLong);
            assertThat(r.statusCode()).as(path).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).as(path).hasValue("application/problem+json");
            assertThat(r.headers().firstValue("X-Request-Id")).as(path).isPresent();
            JsonNode problem = JSON.readTree(r.body());
            assertThat(problem.get("type").asString()).isEqualTo(ProblemType.INVALID_PARAMETER.uriText());
            assertThat(problem.get("parameter").asString()).isEqualTo("X-Follow-Token");
            assertThat(problem.get("instance").asString()).isEqualTo(path);
        }
        assertThat(SEEN).isEmpty();

        String longest = "A".repeat(64);
        assertThat(send("/v1/users/12/following/15", "X-Follow-Token", longest).statusCode()).isEqualTo(200);
        assertThat(SEEN).singleElement().satisfies(seen ->
                assertThat(seen.body().get("pairs").get(0).get("followToken").asString()).isEqualTo(longest));
    }

    @Test
    void badIdsAndStringifyIds_get400NamingTheParameter_andReachNoInstance() throws Exception {
        for (String[] bad : new String[][] {{"/v1/users/0/following/5", "id"}, {"/v1/users/abc/following/5", "id"},
                {"/v1/users/5/following/-1", "targetId"}, {"/v1/users/5/following/9223372036854775808", "targetId"},
                {"/v1/users/5/following/contains", "targetId"}, {"/v1/users/5/following/6?stringify_ids=yes",
                "stringify_ids"}, {"/v1/users/0/following/x", "id"}}) {
            HttpResponse<String> r = send(bad[0]);
            assertThat(r.statusCode()).as(bad[0]).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).as(bad[0]).hasValue("application/problem+json");
            JsonNode problem = JSON.readTree(r.body());
            assertThat(problem.get("parameter").asString()).as(bad[0]).isEqualTo(bad[1]);
            assertThat(problem.get("type").asString()).isEqualTo(ProblemType.INVALID_PARAMETER.uriText());
            assertThat(problem.get("instance").asString()).isEqualTo(bad[0].replaceAll("\\?.*", ""));
            assertThat(r.headers().firstValue("X-Request-Id")).as(bad[0]).isPresent();
        }
        assertThat(SEEN).isEmpty();
        assertThat(send("/v1/users/5/following/7?stringify_ids=true").body()).isEqualTo("{\"following\":true}");
        assertThat(send("/v1/users/5/following/7?other=1").body()).isEqualTo("{\"following\":true}");
    }

    @Test
    void concurrentChecks_eachGetTheirOwnAnswer_fromFewerCallsThanChecks() throws Exception {
        double batchesBefore = meter("graph.gateway.coalescer.batches");
        double checksBefore = meter("graph.gateway.coalescer.checks");
        hold = new CountDownLatch(1);
        // The first check goes alone and is held at the instance; the others queue behind it (one batch in flight).
        List<long[]> pairs = new ArrayList<>();
        List<String> tokens = new ArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 41; i++) {
            long follower = 20 + i;
            long followee = 100 + (i * 7) % 13;
            String followToken = i % 5 == 0 ? "fresh" : i % 5 == 1 ? "stale-" + i : null;
            pairs.add(new long[] {follower, followee});
            tokens.add(followToken);
            HttpRequest request = followToken == null ? check("/v1/users/" + follower + "/following/" + followee)
                    : check("/v1/users/" + follower + "/following/" + followee, "X-Follow-Token", followToken);
            answers.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
            if (i == 0) {
                await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.size() == 1);
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                meters.get("graph.gateway.coalescer.queued").tag("check_instance", "local").gauge().value() == 40);
        hold.countDown();

        for (int i = 0; i < answers.size(); i++) {
            HttpResponse<String> r = answers.get(i).get(60, TimeUnit.SECONDS);
            long[] pair = pairs.get(i);
            assertThat(r.statusCode()).as("check %d", i).isEqualTo(200);
            assertThat(r.body()).as("check %d: %s -> %s with %s", i, pair[0], pair[1], tokens.get(i))
                    .isEqualTo("{\"following\":" + follows(pair[0], pair[1], tokens.get(i)) + "}");
        }
        assertThat(SEEN).hasSize(2);
        JsonNode batch = SEEN.get(1).body().get("pairs");
        assertThat(batch.size()).isEqualTo(40);
        for (JsonNode pair : batch) {
            int i = (int) (pair.get("followerId").longValue() - 20);
            assertThat(pair.get("followeeId").longValue()).isEqualTo(pairs.get(i)[1]);
            assertThat(pair.has("followToken") ? pair.get("followToken").asString() : null)
                    .as("the token of check %d, in its own pair", i).isEqualTo(tokens.get(i));
        }
        assertThat(meter("graph.gateway.coalescer.batches") - batchesBefore).isEqualTo(2);
        assertThat(meter("graph.gateway.coalescer.checks") - checksBefore).isEqualTo(41);
    }

    @Test
    void theManagementPort_servesNoCheck() throws Exception {
        assertThat(managementPort).isEqualTo(MANAGEMENT_PORT);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + managementPort + "/v1/users/12/following/14"))
                .header("Authorization", "Bearer " + token(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(SEEN).isEmpty();
    }
}
