package dev.socialgraph.loadgen;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.client.FollowCheckClient;
import dev.socialgraph.loadgen.Operation.Kind;
import dev.socialgraph.wire.InternalApi;
import java.net.URI;
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

    private final String name;
    private final String readBase;
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

    private HttpTarget(String name, String readBase, String writeBase, MACSigner signer, long[] viewerIds,
                       String serviceToken, List<ServerProcess> processes) {
        this.name = name;
        this.serviceToken = serviceToken;
        this.readBase = readBase;
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
        return new HttpTarget("fleet", strip(checkUri) + USERS, strip(writeUri) + USERS,
                null, null, serviceToken, fleet);
    }

    /**
     * The internal read API of the check service at {@code checkUri} under another name, without a credential: e.g.
     * through HopBench's bare gateway floor ({@link FloorProcess#BARE_GATEWAY}), which forwards the internal check
     * path with no filter of the gateway's and adds the service credential itself.
     */
    static HttpTarget named(String name, URI checkUri, List<ServerProcess> fleet) {
        return new HttpTarget(name, strip(checkUri) + USERS, strip(checkUri) + USERS,
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
            return new HttpTarget("gateway", strip(gatewayUri) + "/v1/users/", strip(gatewayUri) + "/v1/me/",
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
            if (status / 100 != 2 && status != 429) {
                reportFirst(request.getMethod() + " " + request.getRequestUri() + ": HTTP " + status);
            }
            return status / 100 == 2 ? Outcome.OK : status == 429 ? Outcome.RATE_LIMITED : Outcome.ERROR;
        }, executor);
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
        String user = Long.toString(op.user());
        HttpUriRequestBase r = switch (op.kind()) {
            case CHECK -> get(readBase + user + "/following/" + op.other());
            case BATCH_CHECK -> post(readBase + user + "/following/contains", batchBody(op.ids()));
            case FOLLOWING_PAGE -> get(readBase + user + "/following?limit=50");
            case FOLLOWERS_PAGE -> get(readBase + user + "/followers?limit=50");
            case COUNTS -> get(readBase + user + "/counts");
            case FOLLOW -> new HttpPut(writePath(op, "following"));
            case UNFOLLOW -> new HttpDelete(writePath(op, "following"));
            case BLOCK -> new HttpPut(writePath(op, "blocking"));
            case UNBLOCK -> new HttpDelete(writePath(op, "blocking"));
            case HIDDEN -> post(viaGateway ? writeBase + "hidden" : readBase + user + "/hidden", batchBody(op.ids()));
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
