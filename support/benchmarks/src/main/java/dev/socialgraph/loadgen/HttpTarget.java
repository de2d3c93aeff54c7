package dev.socialgraph.loadgen;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.client.FollowCheckClient;
import dev.socialgraph.loadgen.Operation.Kind;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.PublicApi;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hc.client5.http.classic.methods.HttpDelete;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpPut;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The fleet over HTTP/1.1: either directly, reads to follow-check-service's and writes to follow-write-service's
 * internal API, or through the gateway's public API with an HS256 JWT per request. The transport is graph-client's,
 * Apache HttpClient 5's classic client, each operation on a virtual thread of its own, so every HTTP target (direct,
 * gateway, bare gateway, hello, client) is measured with the same client, and the client's share of the machine's two
 * cores is as small as it is for {@link ClientTarget} (the JDK's asynchronous {@code HttpClient} took about 130 µs
 * more per call at one connection and about 40 µs more CPU per call at 32 here). At most as many connections are
 * open as the runner allows operations in flight. Direct requests carry
 * the fleet's service credential ({@code X-Service-Token}), which the services require; through the gateway the
 * gateway adds its own.
 *
 * <p>Gateway tokens: a write's token is its follower's (the gateway takes the actor from {@code sub}); a read's
 * token is one of {@link #VIEWERS} users in turn, so no single user's read bucket is drained by the benchmark
 * (429s are still counted, as errors). Tokens are minted once per user and cached.
 *
 * <p>A read counts as answered on status 200 only, a write on any 2xx; anything else is an error, and the first few
 * are printed to standard error. Read paths come from graph-wire's {@link PublicApi} (through the gateway) and
 * {@link InternalApi} (directly), so the benchmark asks what the services serve.
 */
final class HttpTarget implements Target {

    /** Distinct token subjects reads rotate over through the gateway. */
    static final int VIEWERS = 10_000;

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** Connections per target host: above any step's operations in flight. */
    private static final int MAX_CONNECTIONS = 10_000;

    /** The services' credential header (graph-client's {@code FollowCheckClient.SERVICE_TOKEN_HEADER}). */
    static final String SERVICE_TOKEN_HEADER = FollowCheckClient.SERVICE_TOKEN_HEADER;

    /** Where every per-user path of a service starts, below its base URI. */
    private static final String USERS = InternalApi.USERS + "/";

    /** A list's page size when the operation names none: the API's default. */
    static final int DEFAULT_LIMIT = 50;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String name;
    /** Scheme, host and port of the reads' server, without a trailing slash. */
    private final String readHost;
    private final String writeBase;
    private final boolean viaGateway;
    private final MACSigner signer;

    /** Sent as {@code X-Service-Token} on direct requests; {@code null} for none. */
    private final String serviceToken;
    private final List<ServerProcess> processes;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final CloseableHttpClient client;
    private final ConcurrentHashMap<Long, String> tokens = new ConcurrentHashMap<>();
    private final AtomicLong viewer = new AtomicLong();
    private final AtomicLong reported = new AtomicLong();
    private final long[] viewerIds;

    /** When set, every operation is a GET of this URI (a floor such as a hello-world endpoint). */
    private URI fixed;

    private HttpTarget(String name, String readHost, String writeBase, MACSigner signer, long[] viewerIds,
                       String serviceToken, List<ServerProcess> processes) {
        this.name = name;
        this.serviceToken = serviceToken;
        this.readHost = readHost;
        this.writeBase = writeBase;
        this.viaGateway = signer != null;
        this.signer = signer;
        this.viewerIds = viewerIds;
        this.processes = List.copyOf(processes);
        // No bound of the transport's own: the runner bounds the operations in flight, and so the connections.
        this.client = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnPerRoute(MAX_CONNECTIONS)
                        .setMaxConnTotal(MAX_CONNECTIONS)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.ofSeconds(2))
                                .setSocketTimeout(Timeout.of(REQUEST_TIMEOUT))
                                .build())
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(Timeout.of(REQUEST_TIMEOUT))
                        .setResponseTimeout(Timeout.of(REQUEST_TIMEOUT))
                        .build())
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableContentCompression()
                .build();
    }

    /**
     * The fleet's internal API: reads to {@code checkUri}, writes to {@code writeUri}, each request with
     * {@code X-Service-Token: serviceToken} ({@code null}: none, and the services answer 401).
     */
    static HttpTarget direct(URI checkUri, URI writeUri, String serviceToken, List<ServerProcess> fleet) {
        return new HttpTarget("fleet", strip(checkUri), strip(writeUri) + USERS,
                null, null, serviceToken, fleet);
    }

    /**
     * The internal read API of the check service at {@code checkUri} under another name, without a credential: e.g.
     * through HopBench's bare gateway floor ({@link FloorProcess#BARE_GATEWAY}), which forwards the internal check
     * path with no filter of the gateway's and adds the service credential itself.
     */
    static HttpTarget named(String name, URI checkUri, List<ServerProcess> fleet) {
        return new HttpTarget(name, strip(checkUri), strip(checkUri) + USERS,
                null, null, null, fleet);
    }

    /**
     * A floor: every operation, whatever its kind, is a GET of {@code uri} (HopBench's hello floor,
     * {@link FloorProcess#HELLO}: a constant body through the check service's server stack), with
     * {@code X-Service-Token: serviceToken} ({@code null}: none).
     */
    static HttpTarget fixed(String name, URI uri, String serviceToken, List<ServerProcess> fleet) {
        HttpTarget t = new HttpTarget(name, "", "", null, null, serviceToken, fleet);
        t.fixed = uri;
        return t;
    }

    /**
     * The public API behind the gateway at {@code gatewayUri}, tokens signed with {@code jwtSecret} (≥ 32 bytes);
     * read tokens rotate over the first {@link #VIEWERS} users of {@code graph}.
     */
    static HttpTarget gateway(URI gatewayUri, String jwtSecret, EdgeList graph, List<ServerProcess> fleet) {
        try {
            long[] viewers = new long[Math.min(VIEWERS, graph.userCount())];
            for (int i = 0; i < viewers.length; i++) {
                viewers[i] = graph.user((int) ((long) i * graph.userCount() / viewers.length));
            }
            return new HttpTarget("gateway", strip(gatewayUri), strip(gatewayUri) + "/v1/me/",
                    new MACSigner(jwtSecret.getBytes(StandardCharsets.UTF_8)), viewers, null, fleet);
        } catch (JOSEException e) {
            throw new IllegalArgumentException("the JWT secret must be at least 32 bytes", e);
        }
    }

    /** {@code uri} as text without a trailing slash, to append paths to. */
    static String strip(URI uri) {
        String s = uri.toString();
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean supports(Kind kind) {
        return true;
    }

    @Override
    public List<ServerProcess> processes() {
        return processes;
    }

    @Override
    public CompletableFuture<Outcome> execute(Operation op) {
        HttpUriRequestBase request;
        try {
            request = request(op);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Outcome.ERROR);
        }
        return CompletableFuture.supplyAsync(() -> {
            int status;
            try {
                status = client.execute(request, response -> {
                    EntityUtils.consume(response.getEntity()); // read to the end, so the connection is kept
                    return response.getCode();
                });
            } catch (Exception e) { // IOException: refused, reset, timed out
                reportFirst(request.getMethod() + " " + request.getRequestUri() + ": " + e);
                return Outcome.ERROR;
            }
            return outcome(op, request, status);
        }, executor);
    }

    /** OK for 200 to a read or 2xx to a write; the first few others are printed. */
    private Outcome outcome(Operation op, HttpUriRequestBase request, int status) {
        boolean ok = op.kind().isWrite() || fixed != null ? status / 100 == 2 : status == 200;
        if (!ok && status != 429) {
            reportFirst(request.getMethod() + " " + request.getRequestUri() + ": HTTP " + status);
        }
        return ok ? Outcome.OK : status == 429 ? Outcome.RATE_LIMITED : Outcome.ERROR;
    }

    /**
     * One list page, answered on the calling thread: how it ended and, when answered, its {@code nextCursor}.
     *
     * @param outcome    as {@link #execute}'s
     * @param nextCursor the cursor of the next page; {@code null} on the last page or when not answered
     */
    record PageAnswer(Outcome outcome, String nextCursor) { }

    /**
     * Sends the list read {@code op} (a page of following, followers or common following, with its cursor) and
     * waits for the answer, whose body is read for the next page's cursor: for walking a list page after page.
     * Never throws for a failed request: an unreadable body or a failure is {@link Outcome#ERROR}.
     */
    PageAnswer page(Operation op) {
        HttpUriRequestBase request;
        try {
            request = request(op);
        } catch (RuntimeException e) {
            return new PageAnswer(Outcome.ERROR, null);
        }
        try {
            return client.execute(request, response -> {
                Outcome outcome = outcome(op, request, response.getCode());
                if (outcome != Outcome.OK) {
                    EntityUtils.consume(response.getEntity());
                    return new PageAnswer(outcome, null);
                }
                return new PageAnswer(Outcome.OK, nextCursor(EntityUtils.toByteArray(response.getEntity())));
            });
        } catch (Exception e) { // IOException: refused, reset, timed out; JacksonException: not a page
            reportFirst(request.getMethod() + " " + request.getRequestUri() + ": " + e);
            return new PageAnswer(Outcome.ERROR, null);
        }
    }

    /**
     * The {@code nextCursor} of a page's JSON body ({@code docs/openapi.yaml}, {@code UserPage} and
     * {@code CommonPage}).
     *
     * @return the cursor of the next page; {@code null} on the last page
     * @throws JacksonException         when the body is not JSON
     * @throws IllegalArgumentException when it is JSON but not a page (no {@code items} or {@code nextCursor})
     */
    static String nextCursor(byte[] body) {
        JsonNode page = JSON.readTree(body);
        JsonNode next = page.get("nextCursor");
        if (next == null || !page.has("items")) {
            throw new IllegalArgumentException("not a page: no items or nextCursor");
        }
        return next.isNull() ? null : next.asString();
    }

    /** Prints the first few failures to standard error, so a misconfigured run explains itself. */
    private void reportFirst(String failure) {
        if (reported.getAndIncrement() < 5) {
            System.err.println(name + ": " + failure);
        }
    }

    /** The HTTP request for {@code op}; visible for tests. */
    HttpUriRequestBase request(Operation op) {
        if (fixed != null) {
            return withServiceToken(get(fixed.toString()));
        }
        HttpUriRequestBase r = switch (op.kind()) {
            case CHECK -> get(read(PublicApi.IS_FOLLOWING, InternalApi.CHECK, op.user(), op.other()));
            case BATCH_CHECK -> post(read(PublicApi.ARE_FOLLOWING, InternalApi.CONTAINS, op.user()),
                    batchBody(op.ids()));
            case FOLLOWING_PAGE -> get(page(read(PublicApi.LIST_FOLLOWING, InternalApi.FOLLOWING, op.user()), op));
            case FOLLOWERS_PAGE -> get(page(read(PublicApi.LIST_FOLLOWERS, InternalApi.FOLLOWERS, op.user()), op));
            case COMMON_FOLLOWING -> get(page(read(PublicApi.LIST_COMMON_FOLLOWING, InternalApi.COMMON_FOLLOWING,
                    op.user(), op.other()), op));
            case COUNTS -> get(read(PublicApi.COUNT_FOLLOWS, InternalApi.COUNTS, op.user()));
            case FOLLOW -> new HttpPut(writePath(op, "following"));
            case UNFOLLOW -> new HttpDelete(writePath(op, "following"));
            case BLOCK -> new HttpPut(writePath(op, "blocking"));
            case UNBLOCK -> new HttpDelete(writePath(op, "blocking"));
            case HIDDEN -> post(viaGateway ? writeBase + "hidden" : read(null, InternalApi.HIDDEN, op.user()),
                    batchBody(op.ids()));
        };
        if (viaGateway) {
            long subject = op.kind().actsAsUser()
                    ? op.user() : viewerIds[(int) (viewer.getAndIncrement() % viewerIds.length)];
            r.addHeader("Authorization", "Bearer " + token(subject));
        }
        return withServiceToken(r);
    }

    private HttpUriRequestBase withServiceToken(HttpUriRequestBase r) {
        if (serviceToken != null) {
            r.addHeader(SERVICE_TOKEN_HEADER, serviceToken);
        }
        return r;
    }

    /** The read's URI: {@code viaGateway}'s public endpoint, else the internal one, on the reads' server. */
    private String read(Endpoint viaGateway, Endpoint internal, Object... ids) {
        return readHost + (this.viaGateway ? viaGateway : internal).path(ids);
    }

    /** {@code path} with the page size of {@code op} (the API's default when it names none) and its cursor. */
    private static String page(String path, Operation op) {
        String uri = path + "?" + InternalApi.LIMIT + "=" + (op.limit() == 0 ? DEFAULT_LIMIT : op.limit());
        return op.cursor() == null ? uri
                : uri + "&" + InternalApi.CURSOR + "=" + URLEncoder.encode(op.cursor(), StandardCharsets.UTF_8);
    }

    /** {@code /v1/me/{list}/{other}} through the gateway, {@code /internal/v1/users/{user}/{list}/{other}} directly. */
    private String writePath(Operation op, String list) {
        return viaGateway ? writeBase + list + "/" + op.other() : writeBase + op.user() + "/" + list + "/" + op.other();
    }

    private static HttpUriRequestBase get(String uri) {
        HttpGet r = new HttpGet(uri);
        r.addHeader("Accept", "application/json");
        return r;
    }

    private static HttpUriRequestBase post(String uri, String json) {
        HttpPost r = new HttpPost(uri);
        r.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
        r.addHeader("Accept", "application/json");
        return r;
    }

    private static String batchBody(long[] ids) {
        StringBuilder s = new StringBuilder(ids.length * 12).append("{\"ids\":[");
        for (int i = 0; i < ids.length; i++) {
            s.append(i == 0 ? "" : ",").append(ids[i]);
        }
        return s.append("]}").toString();
    }

    /** An HS256 JWT with {@code sub} = {@code userId}, valid for 12 hours from its first use. */
    String token(long userId) {
        return tokens.computeIfAbsent(userId, id -> {
            Instant now = Instant.now();
            JWTClaimsSet claims = new JWTClaimsSet.Builder()
                    .subject(Long.toString(id))
                    .issueTime(Date.from(now))
                    .expirationTime(Date.from(now.plus(Duration.ofHours(12))))
                    .build();
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            try {
                jwt.sign(signer);
            } catch (JOSEException e) {
                throw new IllegalStateException("cannot sign a token", e);
            }
            return jwt.serialize();
        });
    }

    @Override
    public void close() {
        client.close(CloseMode.IMMEDIATE);
        executor.shutdownNow();
    }
}
