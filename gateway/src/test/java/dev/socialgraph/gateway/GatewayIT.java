package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.Transactions;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The public API through the gateway against the real write and check services (their runnable jars, each in its
 * own JVM) on real
 * PostgreSQL shards and Redis: authentication, the actor taken from the token, routing, and problem+json errors.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GatewayIT {

    static final String TOKEN_SECRET = "gateway-it-follow-token-secret-0123456789";
    static final String JWT_SECRET = "gateway-it-jwt-secret-0123456789-abcdefghij";
    static final TestShards SHARDS = TestShards.create("gateway");
    static final ServiceProcess WRITE;
    static final ServiceProcess CHECK;

    static {
        String redis = TestServers.redis().uri(TestServers.redis().freshDatabase());
        Map<String, String> common = new HashMap<>(SHARDS.springProperties());
        common.put("graph.shards.migrate-on-startup", "true");
        Map<String, String> write = new HashMap<>(common);
        write.put("graph.write.token-secret", TOKEN_SECRET);
        write.put("graph.write.redis.uri", redis);
        write.put("graph.write.relay.enabled", "false");
        WRITE = ServiceProcess.start("follow-write-service", write, Duration.ofSeconds(120));
        Map<String, String> check = new HashMap<>(common);
        check.put("graph.check.token-secret", TOKEN_SECRET);
        check.put("graph.check.redis-uri", redis);
        check.put("graph.check.bloom.enabled", "false");
        CHECK = ServiceProcess.start("follow-check-service", check, Duration.ofSeconds(120));
    }

    @DynamicPropertySource
    static void routes(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.jwt-secret", () -> JWT_SECRET);
        registry.add("spring.data.redis.host", () -> TestServers.redis().host());
        registry.add("spring.data.redis.port", () -> TestServers.redis().port());
        // The fuzz test sends hundreds of requests as one user: budgets out of its way (RateLimitIT tests them).
        registry.add("graph.gateway.reads.replenish-rate", () -> "100000");
        registry.add("graph.gateway.reads.burst-capacity", () -> "100000");
        registry.add("graph.gateway.writes.replenish-rate", () -> "100000");
        registry.add("graph.gateway.writes.burst-capacity", () -> "100000");
        registry.add("graph.gateway.write-uri", WRITE::baseUrl);
        registry.add("graph.gateway.check-uri", CHECK::baseUrl);
    }

    @AfterAll
    static void stop() {
        WRITE.close();
        CHECK.close();
        SHARDS.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build(); // no h2c upgrade attempt: plain HTTP/1.1 as API clients send it

    private static String token(String subject, Instant expiresAt, String secret) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).issueTime(new Date())
                .expirationTime(Date.from(expiresAt)).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String sign(JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(JWT_SECRET.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static String token(long user) throws Exception {
        return token(Long.toString(user), Instant.now().plusSeconds(300), JWT_SECRET);
    }

    private HttpResponse<String> send(String method, String path, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private Optional<FollowingRow> followingRow(long user) throws Exception {
        try (ShardDataSources ds = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(
                SHARDS.username(), SHARDS.password(), 1, Duration.ofSeconds(5), "gateway-it"))) {
            return Transactions.inTransaction(ds.forUser(ShardGroup.FOLLOWING, user),
                    c -> new FollowingRepository().find(c, user));
        }
    }

    /**
     * A protected account through the public API, against the real write and check services: its follows hidden from
     * anyone but itself and its followers (checks, lists, relationship), requests made, listed and accepted, bad input
     * refused. The follower side of requests is written here as the event consumer would (it does not run here).
     */
    @Test
    void aProtectedAccount_showsItsFollowsToItsFollowersOnly_andAnswersItsRequests() throws Exception {
        long owner = 301;
        long follower = 302;
        long stranger = 303;
        long requester = 304;
        assertThat(send("PUT", "/v1/me/following/" + owner, token(follower)).statusCode()).isEqualTo(200);
        assertThat(send("PUT", "/v1/me/following/305", token(owner)).statusCode()).isEqualTo(200);
        HttpResponse<String> protect = send("PUT", "/v1/me/protection", token(owner));
        assertThat(protect.statusCode()).as(protect.body()).isEqualTo(200);
        assertThat(protect.body()).contains("\"userId\":301").contains("\"protected\":true");

        // The check service learns protected accounts from its poll of the account rows.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() ->
                send("GET", "/v1/users/" + owner + "/following", token(stranger)).statusCode() == 403);
        for (String path : new String[] {"/v1/users/301/following", "/v1/users/301/followers",
                "/v1/users/301/following/305", "/v1/users/303/common-following/301"}) {
            HttpResponse<String> hidden = send("GET", path, token(stranger));
            assertThat(hidden.statusCode()).as(path).isEqualTo(403);
            assertThat(hidden.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(hidden.body()).as(path).contains("https://socialgraph.dev/problems/protected-account")
                    .contains(path.contains("common") ? "\"parameter\":\"otherId\"" : "\"parameter\":\"id\"");
            assertThat(send("GET", path.replace("303", "302"), token(follower)).statusCode()).as("a follower: " + path)
                    .isEqualTo(200);
        }
        assertThat(send("GET", "/v1/users/301/following/305", token(owner)).body()).isEqualTo("{\"following\":true}");
        assertThat(send("GET", "/v1/users/301/counts", token(stranger)).statusCode()).as("counts stay visible")
                .isEqualTo(200);
        assertThat(send("GET", "/v1/users/301/relationship/305", token(stranger)).body())
                .as("the protected account's follow, left out").doesNotContain("\"following\"")
                .contains("\"followedBy\":false");
        assertThat(send("GET", "/v1/users/303/relationship/301", token(stranger)).body()).contains("\"protected\":true");

        HttpResponse<String> asked = send("PUT", "/v1/me/following/" + owner, token(requester));
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        assertThat(asked.body()).contains("\"requested\":true").contains("\"following\":false");
        assertThat(send("GET", "/v1/me/follow-requests?direction=outgoing", token(requester)).body())
                .contains("\"userId\":301").contains("requestedAt");
        try (ShardDataSources ds = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(
                SHARDS.username(), SHARDS.password(), 1, Duration.ofSeconds(5), "gateway-it"))) {
            FollowerRepository requests = new FollowerRepository(Relation.REQUEST);
            Transactions.inTransaction(ds.forUser(ShardGroup.FOLLOWER, owner), c -> requests.writeNextVersion(c,
                    requests.lockOrCreate(c, owner), new long[] {requester}, new long[] {7}, 1, false));
        }
        assertThat(send("GET", "/v1/me/follow-requests", token(owner)).body())
                .isEqualTo("{\"items\":[{\"userId\":304,\"requestedAt\":7}],\"nextCursor\":null}");
        assertThat(send("GET", "/v1/users/304/relationship/301", token(requester)).body())
                .contains("\"requested\":true").contains("\"protected\":true");

        HttpResponse<String> accepted = send("PUT", "/v1/me/follow-requests/" + requester, token(owner));
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(200);
        assertThat(accepted.body()).contains("\"followerId\":304").contains("\"following\":true");
        assertThat(send("GET", "/v1/users/301/following/305", token(requester)).body())
                .as("an accepted follower sees in").isEqualTo("{\"following\":true}");

        HttpResponse<String> badRequester = send("PUT", "/v1/me/follow-requests/abc", token(owner));
        assertThat(badRequester.statusCode()).isEqualTo(400);
        assertThat(badRequester.body()).contains("\"parameter\":\"requesterId\"");
        HttpResponse<String> badDirection = send("GET", "/v1/me/follow-requests?direction=sideways", token(owner));
        assertThat(badDirection.statusCode()).isEqualTo(400);
        assertThat(badDirection.body()).contains("\"parameter\":\"direction\"");
        HttpResponse<String> none = send("PUT", "/v1/me/follow-requests/" + stranger, token(owner));
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(none.body()).contains("\"parameter\":\"requesterId\"");

        HttpResponse<String> unprotect = send("DELETE", "/v1/me/protection", token(owner));
        assertThat(unprotect.body()).contains("\"protected\":false").contains("\"jobId\":\"301-2\"");
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() ->
                send("GET", "/v1/users/" + owner + "/following", token(stranger)).statusCode() == 200);
    }

    @Test
    void follow_writesAsTheTokensSubjectAndTheCheckSeesIt() throws Exception {
        HttpResponse<String> put = send("PUT", "/v1/me/following/202", token(101));
        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(put.body()).contains("\"followerId\":101").contains("\"followeeId\":202").contains("followToken");
        assertThat(put.headers().firstValue("X-Request-Id")).isPresent();
        assertThat(followingRow(101).orElseThrow().followingIds()).containsExactly(202);

        HttpResponse<String> check = send("GET", "/v1/users/101/following/202", token(999));
        assertThat(check.statusCode()).isEqualTo(200);
        assertThat(check.body()).isEqualTo("{\"following\":true}");

        HttpResponse<String> delete = send("DELETE", "/v1/me/following/202", token(101));
        assertThat(delete.statusCode()).isEqualTo(200);
        assertThat(followingRow(101).orElseThrow().followingIds()).isEmpty();
        // Read-your-writes: the follow token of the reply makes the check skip the in-process layers at once.
        java.util.regex.Matcher followToken = java.util.regex.Pattern.compile("\"followToken\":\"([^\"]+)\"")
                .matcher(delete.body());
        assertThat(followToken.find()).isTrue();
        HttpRequest recheck = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/users/101/following/202"))
                .header("Authorization", "Bearer " + token(101)).header("X-Follow-Token", followToken.group(1)).GET().build();
        assertThat(http.send(recheck, HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("{\"following\":false}");
    }

    @Test
    void removeFollower_isTheFollowersUnfollowOfTheSubject_idempotent() throws Exception {
        long follower = 130;
        long me = 131;
        assertThat(send("PUT", "/v1/me/following/" + me, token(follower)).statusCode()).isEqualTo(200);
        assertThat(send("PUT", "/v1/me/following/132", token(follower)).statusCode()).isEqualTo(200);

        HttpResponse<String> removed = send("DELETE", "/v1/me/followers/" + follower, token(me));
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        assertThat(removed.body()).contains("\"followerId\":130", "\"followeeId\":131", "\"following\":false",
                "followToken");
        assertThat(followingRow(follower).orElseThrow().followingIds()).as("only the caller's follow ends")
                .containsExactly(132);
        HttpResponse<String> again = send("DELETE", "/v1/me/followers/" + follower, token(me));
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).contains("\"following\":false");

        for (String id : new String[] {"131", "abc", "0", "007"}) {
            HttpResponse<String> bad = send("DELETE", "/v1/me/followers/" + id, token(me));
            assertThat(bad.statusCode()).as(id).isEqualTo(400);
            assertThat(bad.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(bad.body()).as(id).contains("\"parameter\":\"id\"", "\"instance\":\"/v1/me/followers/" + id);
        }
        assertThat(send("DELETE", "/v1/me/followers/" + follower, null).statusCode()).isEqualTo(401);
        assertThat(followingRow(follower).orElseThrow().followingIds()).containsExactly(132);
    }

    @Test
    void blocksAndMutes_areWrittenAsTheSubject_andPrivateToIt() throws Exception {
        long me = 120;
        long other = 121;
        long third = 122;
        assertThat(send("PUT", "/v1/me/following/" + other, token(me)).statusCode()).isEqualTo(200);
        HttpResponse<String> block = send("PUT", "/v1/me/blocking/" + other, token(me));
        assertThat(block.statusCode()).as(block.body()).isEqualTo(200);
        assertThat(block.body()).contains("\"userId\":120").contains("\"relation\":\"block\"")
                .contains("\"active\":true");
        assertThat(send("PUT", "/v1/me/muting/" + third, token(me)).statusCode()).isEqualTo(200);
        assertThat(followingRow(me).orElseThrow().followingIds()).isEmpty();

        HttpResponse<String> mine = send("GET", "/v1/me/blocking?limit=5", token(me));
        assertThat(mine.statusCode()).as(mine.body()).isEqualTo(200);
        assertThat(mine.body()).contains("\"userId\":121").contains("createdAt");
        assertThat(send("GET", "/v1/me/muting", token(me)).body()).contains("\"userId\":122");
        HttpResponse<String> badLimit = send("GET", "/v1/me/blocking?limit=0", token(me));
        assertThat(badLimit.statusCode()).as("the query string reaches the service").isEqualTo(400);
        assertThat(badLimit.body()).contains("\"parameter\":\"limit\"");
        assertThat(send("GET", "/v1/users/120/blocking", token(me)).statusCode()).isEqualTo(200);
        for (String path : new String[] {"/v1/users/120/blocking", "/v1/users/120/muting"}) {
            HttpResponse<String> theirs = send("GET", path, token(third));
            assertThat(theirs.statusCode()).as(path).isEqualTo(403);
            assertThat(theirs.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        }
        HttpResponse<String> hidden = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/v1/me/hidden"))
                .header("Authorization", "Bearer " + token(me)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ids\":[121,122,123]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(hidden.body()).isEqualTo("{\"blocking\":[121],\"blockedBy\":[],\"muting\":[122]}");

        assertThat(send("GET", "/v1/users/120/relationship/121", token(me)).body())
                .contains("\"blocking\":true").contains("\"muting\":false");
        assertThat(send("GET", "/v1/users/120/relationship/121", token(other)).body())
                .as("the other user sees the block, not the mute of user 120")
                .contains("\"blocking\":true").doesNotContain("muting");
        HttpRequest spoofed = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/v1/users/120/relationship/121"))
                .header("Authorization", "Bearer " + token(third)).header("X-Viewer-Id", "120").GET().build();
        assertThat(http.send(spoofed, HttpResponse.BodyHandlers.ofString()).body())
                .isEqualTo("{\"following\":false,\"followedBy\":false,\"protected\":false}");

        HttpResponse<String> blocked = send("PUT", "/v1/me/following/120", token(other));
        assertThat(blocked.statusCode()).isEqualTo(403);
        assertThat(blocked.body()).contains("https://socialgraph.dev/problems/blocked");
        assertThat(send("PUT", "/v1/me/blocking/abc", token(me)).body()).contains("targetId");
        assertThat(send("PUT", "/v1/me/muting/120", token(me)).statusCode()).isEqualTo(400);
    }

    @Test
    void requestsWithoutAValidToken_get401ProblemJsonAndReachNoService() throws Exception {
        String[] bad = {
                null,
                "not-a-jwt",
                token("103", Instant.now().minusSeconds(60), JWT_SECRET),                        // expired
                token("103", Instant.now().plusSeconds(60), "another-secret-0123456789-abcdefghijklm"), // forged
                token("0", Instant.now().plusSeconds(60), JWT_SECRET),                           // not a user id
                token("abc", Instant.now().plusSeconds(60), JWT_SECRET),
                sign(new JWTClaimsSet.Builder().subject("103").issueTime(new Date()).build()),    // no exp
                sign(new JWTClaimsSet.Builder().claim("sub", 103L)                               // numeric sub
                        .expirationTime(Date.from(Instant.now().plusSeconds(60))).build()),
        };
        for (String bearer : bad) {
            HttpResponse<String> r = send("PUT", "/v1/me/following/204", bearer);
            assertThat(r.statusCode()).as("token %s", bearer).isEqualTo(401);
            assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                    ct -> assertThat(ct).startsWith("application/problem+json"));
            assertThat(r.body()).contains("\"status\":401").contains("Authorization");
            assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
                    h -> assertThat(h).startsWith("Bearer"));
        }
        assertThat(followingRow(103)).isEmpty();
    }

    @Test
    void twoAuthorizationHeaders_get401ProblemJsonAndWriteNothing() throws Exception {
        for (String[] pair : new String[][] {{token(111), token(112)}, {token(111), "garbage"}, {"garbage", token(111)}}) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/me/following/113"))
                    .timeout(Duration.ofSeconds(10)).PUT(HttpRequest.BodyPublishers.noBody())
                    .header("Authorization", "Bearer " + pair[0]).header("Authorization", "Bearer " + pair[1]).build();
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(h -> assertThat(h).startsWith("Bearer"));
            assertThat(r.body()).contains("\"status\":401").contains("more than one Authorization header");
        }
        assertThat(followingRow(111)).isEmpty();
        assertThat(followingRow(112)).isEmpty();
        // Either token alone is good.
        assertThat(send("PUT", "/v1/me/following/113", token(111)).statusCode()).isEqualTo(200);
        assertThat(followingRow(111).orElseThrow().followingIds()).containsExactly(113);
    }

    @Test
    void internalPathsAreNotRoutedAndNoPathWritesAsAnotherUser() throws Exception {
        String bearer = token(105);
        HttpResponse<String> internal = send("PUT", "/internal/v1/users/106/following/107", bearer);
        assertThat(internal.statusCode()).isEqualTo(404);
        assertThat(internal.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        for (String path : new String[] {"/v1/users/106/following/107", "/v1/me/following/..%2F..%2F106%2Ffollowing%2F107",
                "/v1/me/following/%2e%2e", "/v1/me/following/107%3Fx"}) {
            HttpResponse<String> r = send("PUT", path, bearer);
            assertThat(r.statusCode()).as(path).isBetween(400, 499);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).as(path).startsWith("application/problem+json");
        }
        assertThat(followingRow(106)).isEmpty();
        assertThat(followingRow(105)).isEmpty();
    }

    @Test
    void badTargetIds_get400NamingTheField() throws Exception {
        for (String target : new String[] {"0", "-1", "abc", "9223372036854775808"}) {
            HttpResponse<String> r = send("PUT", "/v1/me/following/" + target, token(108));
            assertThat(r.statusCode()).as(target).isEqualTo(400);
            assertThat(r.body()).as(target).contains("targetId");
        }
        assertThat(followingRow(108)).isEmpty();
    }

    @Test
    void anIdAboveTwoToThe53_roundTripsAsAString_whenStringsAreAskedFor() throws Exception {
        long big = (1L << 53) + 1; // 9007199254740993: a JavaScript number would read 9007199254740992
        String bigText = Long.toString(big);
        HttpResponse<String> bad = send("PUT", "/v1/me/following/" + bigText + "?stringify_ids=yes", token(121));
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"parameter\":\"stringify_ids\"",
                "\"type\":\"" + ProblemType.INVALID_PARAMETER.uriText() + "\"");
        assertThat(followingRow(121)).as("a refused write writes nothing").isEmpty();

        HttpResponse<String> follow = send("PUT", "/v1/me/following/" + bigText + "?stringify_ids=true", token(121));
        assertThat(follow.statusCode()).isEqualTo(200);
        assertThat(follow.body()).contains("\"followerId\":\"121\"", "\"followeeId\":\"" + bigText + "\"",
                "\"following\":true");
        HttpResponse<String> strings = send("GET", "/v1/users/121/following?stringify_ids=true", token(121));
        assertThat(strings.statusCode()).isEqualTo(200);
        assertThat(strings.body()).contains("\"userId\":\"" + bigText + "\"");
        // Other numbers stay numbers; without the parameter, ids are numbers as before.
        assertThat(strings.body()).containsPattern("\"followedAt\":\\d+");
        HttpResponse<String> numbers = send("GET", "/v1/users/121/following", token(121));
        assertThat(numbers.body()).contains("\"userId\":" + bigText + ",");
        HttpResponse<String> check = send("GET", "/v1/users/121/following/" + bigText + "?stringify_ids=true",
                token(121));
        assertThat(check.body()).isEqualTo("{\"following\":true}");
        assertThat(send("GET", "/v1/users/121/following/" + bigText + "?stringify_ids=1", token(121)).statusCode())
                .isEqualTo(400);
    }

    @Test
    void serviceErrorsPassThroughAsProblemJson_ofTheOneVocabulary_namingTheCallersPath() throws Exception {
        // The write service's problem: its own path was /internal/v1/users/109/following/109.
        HttpResponse<String> self = send("PUT", "/v1/me/following/109", token(109));
        assertThat(self.statusCode()).isEqualTo(400);
        assertThat(self.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(self.body()).contains("\"type\":\"" + ProblemType.INVALID_PARAMETER.uriText() + "\"",
                "\"instance\":\"/v1/me/following/109\"", "\"parameter\":\"followeeId\"");
        // The check service's problem (reactive), likewise.
        HttpResponse<String> badLimit = send("GET", "/v1/users/109/following?limit=0", token(109));
        assertThat(badLimit.statusCode()).isEqualTo(400);
        assertThat(badLimit.body()).contains("\"type\":\"" + ProblemType.INVALID_PARAMETER.uriText() + "\"",
                "\"instance\":\"/v1/users/109/following\"", "\"parameter\":\"limit\"");
        // The gateway's own problems: no token, an unknown path.
        HttpResponse<String> noToken = send("GET", "/v1/users/109/following/110", null);
        assertThat(noToken.statusCode()).isEqualTo(401);
        assertThat(noToken.body()).contains("\"type\":\"" + ProblemType.UNAUTHORIZED.uriText() + "\"",
                "\"instance\":\"/v1/users/109/following/110\"");
        HttpResponse<String> unknown = send("GET", "/v1/users/109/nothing-here", token(109));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("\"type\":\"" + ProblemType.NOT_FOUND.uriText() + "\"");
        assertThat(unknown.body()).doesNotContain("about:blank", "/internal/");
    }

    @Test
    void openApiDocument_isServedWithoutATokenAndCoversThePublicApi() throws Exception {
        HttpResponse<String> r = send("GET", "/openapi.yaml", null);
        assertThat(r.statusCode()).isEqualTo(200);
        Map<String, Object> doc = new org.yaml.snakeyaml.Yaml().load(r.body());
        @SuppressWarnings("unchecked")
        Map<String, Object> paths = (Map<String, Object>) doc.get("paths");
        assertThat(paths).containsOnlyKeys("/v1/me/following/{targetId}", "/v1/me/followers/{id}",
                "/v1/users/{id}/following/{targetId}",
                "/v1/users/{id}/following/contains", "/v1/users/{id}/following", "/v1/users/{id}/followers",
                "/v1/users/{id}/followers/known",
                "/v1/users/{id}/counts", "/v1/users/{id}/common-following/{otherId}",
                "/v1/users/{id}/relationship/{otherId}", "/v1/users/{id}/suggestions",
                "/v1/me/blocking/{targetId}", "/v1/me/muting/{targetId}", "/v1/me/blocking", "/v1/me/muting",
                "/v1/me/hidden", "/v1/me/protection", "/v1/me/follow-requests",
                "/v1/me/follow-requests/{requesterId}", "/v1/users/{id}/blocking", "/v1/users/{id}/muting", "/v1/users/{id}/hidden",
                "/v1/me", "/v1/admin/users/{id}/deactivation", "/v1/admin/users/{id}", "/v1/admin/jobs/{jobId}",
                "/v1/changes", "/v1/changes/head", "/v1/me/changes", "/openapi.yaml");
    }

    /** At least 500 malformed requests; every reply is 4xx problem+json and the graph is unchanged. */
    @Test
    void fuzz_malformedRequestsGet4xxProblemJsonAndChangeNothing() throws Exception {
        assertThat(send("PUT", "/v1/me/following/302", token(301)).statusCode()).isEqualTo(200);
        String before = graphChecksum();
        java.util.List<HttpRequest> requests = malformedRequests(token(301));
        assertThat(requests).hasSizeGreaterThanOrEqualTo(500);
        // Each request's latency, so that a slow or hung answer names its request (the slowest are printed).
        long[] nanos = new long[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            HttpRequest request = requests.get(i);
            String what = i + ": " + request.method() + " " + request.uri()
                    + request.headers().firstValue("Content-Type").map(ct -> " (" + ct + ")").orElse("")
                    + request.headers().firstValue("Authorization")
                            .map(a -> a.startsWith("Bearer ey") ? "" : " [Authorization: " + a + "]")
                            .orElse(" [no Authorization]");
            long start = System.nanoTime();
            HttpResponse<String> r;
            try {
                r = http.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException e) {
                printSlowest(requests, nanos, i);
                throw new AssertionError("no answer to " + what + " after "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms", e);
            }
            nanos[i] = System.nanoTime() - start;
            assertProblem(what, r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
        }
        printSlowest(requests, nanos, requests.size());
        assertThat(graphChecksum()).isEqualTo(before);
    }

    /** A 4xx answer is problem+json: the content type, and a JSON object whose {@code status} is the answer's. */
    private static void assertProblem(String what, int status, String contentType, String body) {
        assertThat(status).as(what).isBetween(400, 499);
        assertThat(contentType).as(what + " -> " + status).startsWith("application/problem+json");
        tools.jackson.databind.JsonNode problem;
        try {
            problem = JSON.readTree(body);
        } catch (tools.jackson.core.JacksonException e) {
            throw new AssertionError(what + " -> " + status + " with a body that is not JSON: " + body, e);
        }
        assertThat(problem.isObject()).as(what + " -> " + body).isTrue();
        assertThat(problem.path("status").asInt()).as(what + " -> " + body).isEqualTo(status);
        assertThat(problem.path("detail").asString("")).as(what + " -> " + body).isNotBlank();
    }

    private static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder().build();

    /**
     * Requests refused below the application (by Netty's HTTP decoder, Spring's HTTP adapter or Spring Security's
     * firewall), sent as raw bytes since no HTTP client sends them as they are: every one gets a 4xx problem+json
     * naming the part at fault, and nothing changes.
     */
    @Test
    void malformedAtTheHttpLevel_get4xxProblemJsonNamingThePartAndChangeNothing() throws Exception {
        String before = graphChecksum();
        String bearer = "Authorization: Bearer " + token(303) + "\r\n";
        String host = "Host: 127.0.0.1:" + port + "\r\n";
        Map<String, String> requests = new java.util.LinkedHashMap<>(); // request -> the part the answer names
        for (String path : new String[] {"/v1/users/%zz/following", "/v1/users/5/following/%", "/v1/me/following/%g1",
                "/v1/users/5/counts%", "/v1/users/5/following?cursor=%zz"}) {
            requests.put("GET " + path + " HTTP/1.1\r\n" + host + bearer + "\r\n", "path");
        }
        requests.put("PUT /v1/me/following/%zz HTTP/1.1\r\n" + host + bearer + "Content-Length: 0\r\n\r\n", "path");
        for (String path : new String[] {"//v1/users/5/counts", "/v1/users/5//counts", "//internal/v1/users/5/counts",
                "/v1/users/5;a=b/counts", "/v1/users/5/counts;a=b", "/v1;a=b/users/5/counts", "/internal;a=b/v1",
                "/;a=b", "/v1/me/following/6;x=1", "/%2e%2e/v1/users/5/counts", "/a%2Fb", "/a%252Fb", "/a\\b"}) {
            requests.put("GET " + path + " HTTP/1.1\r\n" + host + bearer + "\r\n", "path");
            requests.put("PUT " + path + " HTTP/1.1\r\n" + host + bearer + "Content-Length: 0\r\n\r\n", "path");
        }
        for (String method : new String[] {"TRACE", "CONNECT", "FOO", "PROPFIND"}) {
            requests.put(method + " /v1/users/5/counts HTTP/1.1\r\n" + host + bearer + "\r\n", "method");
        }
        String longId = "1".repeat(5_000);
        requests.put("GET /v1/users/" + longId + "/following HTTP/1.1\r\n" + host + bearer + "\r\n", "uri");
        requests.put("PUT /v1/me/following/" + longId + " HTTP/1.1\r\n" + host + bearer + "\r\n", "uri");
        requests.put("GET /v1/users/5/following?cursor=" + "A".repeat(10_000) + " HTTP/1.1\r\n" + host + bearer
                + "\r\n", "uri");
        requests.put("GET /v1/users/5/counts HTTP/1.1\r\n" + host + bearer + "X-Big: " + "b".repeat(9 * 1024)
                + "\r\n\r\n", "headers");
        requests.put("GET /v1/users/5/counts HTTP/1.1\r\n" + host + "Authorization: Bearer " + "e".repeat(9 * 1024)
                + "\r\n\r\n", "headers");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            many.append("X-H").append(i).append(": ").append("v".repeat(40)).append("\r\n");
        }
        requests.put("GET /v1/users/5/counts HTTP/1.1\r\n" + host + bearer + many + "\r\n", "headers");
        requests.put("GET /v1/users/5/following/6 x HTTP/1.1\r\n" + host + bearer + "\r\n", "request");
        requests.put("GET /v1/users/5/counts HTTP/1.1\r\n" + host + bearer + "Bad Header: x\r\n\r\n", "request");
        requests.put("GET /v1/users/5/counts HTTP/1.1\r\n" + host + bearer + ": no name\r\n\r\n", "request");
        requests.put("POST /v1/users/5/following/contains HTTP/1.1\r\n" + host + bearer
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", "request");
        requests.put("POST /v1/users/5/following/contains HTTP/1.1\r\n" + host + bearer
                + "Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{\"ids\"", "request");
        org.assertj.core.api.SoftAssertions softly = new org.assertj.core.api.SoftAssertions();
        for (Map.Entry<String, String> entry : requests.entrySet()) {
            String request = entry.getKey();
            String what = request.substring(0, Math.min(request.indexOf('\r'), 100));
            RawHttp.Response r = RawHttp.exchange(port, request);
            softly.check(() -> assertProblem(what, r.status(), r.contentType(), r.body()));
            softly.check(() -> assertThat(JSON.readTree(r.body()).path("parameter").asString(""))
                    .as(what + " -> " + r.status() + " " + r.body()).isEqualTo(entry.getValue()));
        }
        softly.assertAll();
        assertThat(graphChecksum()).isEqualTo(before);
    }

    /** Prints the five slowest of the first {@code count} requests with their latency. */
    private static void printSlowest(java.util.List<HttpRequest> requests, long[] nanos, int count) {
        java.util.stream.IntStream.range(0, count).boxed()
                .sorted(java.util.Comparator.comparingLong(i -> -nanos[i])).limit(5)
                .forEach(i -> System.out.printf("fuzz: %.1f ms for %d: %s %s%n", nanos[i] / 1e6, i,
                        requests.get(i).method(), requests.get(i).uri()));
    }

    private java.util.List<HttpRequest> malformedRequests(String bearer) {
        String[] badIds = {"0", "-1", "-9223372036854775808", "9223372036854775808", "99999999999999999999", "abc",
                "1.5", "1e3", "0x10", "+1", "0001", "%20", "%00", "null", "true", "%2e%2e", "..", "1%2F2", "%E2%82%AC",
                "9223372036854775807x"};
        String[] badLimits = {"0", "-1", "1001", "99999999999", "abc", "1.5", "", "%00", "1e2", "NaN"};
        String[] badCursors = {"x", "AAAA", "!!!!", "%00", "eyJhbGciOiJub25lIn0", "A".repeat(56), "_".repeat(56),
                "-".repeat(500), "%2F%2F", "Zm9v"};
        String[] badBodies = {"", "{", "[]", "null", "{\"ids\":null}", "{\"ids\":\"1\"}", "{\"ids\":[0]}",
                "{\"ids\":[-5]}", "{\"ids\":[\"abc\"]}", "{\"ids\":[1.5]}", "{\"ids\":[99999999999999999999]}",
                "{\"ids\":[" + "1,".repeat(1000) + "1]}", "{\"ids\":{}}", "not json", "{\"ids\":[1]}}"};
        java.util.List<HttpRequest> out = new java.util.ArrayList<>();
        String base = "http://127.0.0.1:" + port;
        for (String id : badIds) {
            for (String method : new String[] {"PUT", "DELETE"}) {
                out.add(request(method, base + "/v1/me/following/" + id, bearer, null, null));
            }
            out.add(request("GET", base + "/v1/users/" + id + "/following/5", bearer, null, null));
            out.add(request("GET", base + "/v1/users/5/following/" + id, bearer, null, null));
            out.add(request("GET", base + "/v1/users/" + id + "/following", bearer, null, null));
            out.add(request("GET", base + "/v1/users/" + id + "/followers", bearer, null, null));
            out.add(request("GET", base + "/v1/users/" + id + "/counts", bearer, null, null));
            out.add(request("GET", base + "/v1/users/5/common-following/" + id, bearer, null, null));
            out.add(request("GET", base + "/v1/users/" + id + "/relationship/5", bearer, null, null));
            out.add(request("GET", base + "/v1/users/" + id + "/suggestions", bearer, null, null));
            out.add(request("POST", base + "/v1/users/" + id + "/following/contains", bearer, "application/json", "{\"ids\":[1]}"));
            out.add(request("GET", base + "/v1/users/5/relationship/" + id, bearer, null, null));
            out.add(request("GET", base + "/v1/users/" + id + "/common-following/5", bearer, null, null));
            out.add(request("DELETE", base + "/v1/users/" + id + "/following/5", bearer, null, null));
            out.add(request("PUT", base + "/v1/users/" + id + "/following/5", bearer, null, null));
            out.add(request("POST", base + "/v1/users/5/following/contains", bearer, "application/json",
                    "{\"ids\":[\"" + id + "\"]}"));
            out.add(request("GET", base + "/v1/users/5/followers?cursor=" + id, bearer, null, null));
            out.add(request("GET", base + "/v1/users/5/following?cursor=" + id, bearer, null, null));
        }
        for (String limit : badLimits) {
            for (String list : new String[] {"following", "followers", "suggestions"}) {
                out.add(request("GET", base + "/v1/users/5/" + list + "?limit=" + limit, bearer, null, null));
            }
            out.add(request("GET", base + "/v1/users/5/common-following/6?limit=" + limit, bearer, null, null));
        }
        for (String cursor : badCursors) {
            for (String list : new String[] {"following", "followers", "common-following/6"}) {
                out.add(request("GET", base + "/v1/users/5/" + list + "?cursor=" + cursor, bearer, null, null));
            }
        }
        for (String body : badBodies) {
            out.add(request("POST", base + "/v1/users/5/following/contains", bearer, "application/json", body));
        }
        for (String type : new String[] {"text/plain", "application/xml", "application/x-www-form-urlencoded", "foo/bar"}) {
            out.add(request("POST", base + "/v1/users/5/following/contains", bearer, type, "{\"ids\":[1]}"));
        }
        for (String method : new String[] {"PATCH", "POST", "GET", "OPTIONS"}) {
            out.add(request(method, base + "/v1/me/following/5", bearer, null, null));
        }
        for (String method : new String[] {"PUT", "DELETE", "PATCH"}) {
            out.add(request(method, base + "/v1/users/5/following/6", bearer, null, null));
            out.add(request(method, base + "/v1/users/5/counts", bearer, null, null));
        }
        for (String path : new String[] {"/v1", "/v1/", "/v1/me", "/v1/me/following", "/v1/users", "/v1/users/5",
                "/v1/users/5/unknown", "/v1/me/followers/5", "/internal/v1/users/5/counts", "/v1//users/5/counts",
                "/v1/users/5/following/6/7", "/v2/users/5/counts"}) {
            out.add(request("GET", base + path, bearer, null, null));
            out.add(request("PUT", base + path, bearer, null, null));
        }
        // Without or with broken credentials, every route once more.
        java.util.List<HttpRequest> unauthenticated = new java.util.ArrayList<>();
        for (String auth : new String[] {null, "garbage", "Bearer", "Bearer x.y.z", "Basic dXNlcjpwYXNz"}) {
            for (String path : new String[] {"/v1/me/following/5", "/v1/users/5/following/6", "/v1/users/5/counts"}) {
                for (String method : new String[] {"GET", "PUT", "DELETE"}) {
                    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                            .method(method, HttpRequest.BodyPublishers.noBody());
                    if (auth != null) {
                        b.header("Authorization", auth);
                    }
                    unauthenticated.add(b.build());
                }
            }
        }
        out.addAll(unauthenticated);
        return out;
    }

    private static HttpRequest request(String method, String url, String bearer, String contentType, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + bearer)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return b.build();
    }

    /** Row count and version sum of every following and follower row in every database. */
    private String graphChecksum() throws Exception {
        StringBuilder sb = new StringBuilder();
        try (ShardDataSources ds = new ShardDataSources(SHARDS.shardMap(), new ShardDataSources.PoolSettings(
                SHARDS.username(), SHARDS.password(), 1, Duration.ofSeconds(5), "gateway-fuzz"))) {
            for (var entry : ds.all().entrySet()) {
                try (var c = entry.getValue().getConnection(); var st = c.createStatement();
                     var rs = st.executeQuery("SELECT (SELECT count(*) || ':' || coalesce(sum(version), 0) FROM following_adjacency)"
                             + " || '/' || (SELECT count(*) || ':' || coalesce(sum(version), 0) FROM follower_adjacency)"
                             + " || '/' || (SELECT count(*) FROM follow_outbox)")) {
                    rs.next();
                    sb.append(entry.getKey()).append('=').append(rs.getString(1)).append(';');
                }
            }
        }
        return sb.toString();
    }
}
