package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.shard.ShardAffineRouter;
import dev.socialgraph.common.token.ServiceCredential;
import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeSet;
import java.util.Map;
import java.util.Objects;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Follow checks against follow-check-service's internal API ({@code /internal/v1/users/...}) for server-side callers
 * (feed fan-out, notification eligibility, button state), without the public gateway's hop.
 *
 * <p><b>Instance choice.</b> A request about user {@code u} goes to the check instance that owns {@code u}'s logical
 * shard, {@code floorMod(u, logicalShardCount)}, by the same {@link ShardAffineRouter} the gateway's load balancer
 * uses, so it lands on the instance whose bloom filter and caches hold {@code u}'s slice. The instances are a fixed
 * list of (id, base URI); the ids must be the check instances' {@code graph.check.affinity.instance-id}s and the
 * list their {@code graph.check.affinity.instances} (as for the gateway).
 *
 * <p><b>Fail-over.</b> A connection failure, a timeout or HTTP 503 is retried (Resilience4j {@link Retry}) on the next
 * instance in rendezvous order for that shard, which is the instance that takes the shard over when the owner
 * leaves the list; after {@link Builder#maxAttempts} attempts the call throws {@link CheckServiceException}. Every
 * other status, in particular every 4xx, is thrown at once and never retried. All calls are reads, so a retry after
 * a request that did reach the server is harmless.
 *
 * <p><b>Connections and timeouts.</b> Apache HttpClient 5's classic client: HTTP/1.1 on keep-alive connections,
 * at most {@link Builder#maxConnectionsPerInstance} per instance, idle ones closed after {@value #IDLE_SECONDS} s. A
 * call runs on the calling thread from request to answer, with no hand-off (the JDK's {@code HttpClient} passes
 * each request to its selector thread and each answer on to an executor, which cost about 130 µs per call at one
 * connection here). Each attempt is bounded by
 * {@link Builder#connectTimeout} twice, to wait for a pooled connection when all of the instance's are busy and to
 * open a new one, and by {@link Builder#requestTimeout} for the answer (the longest silence while it is awaited,
 * which for the service's small answers is the time to the answer). A call therefore takes at most about
 * {@code maxAttempts × (2 × connectTimeout + requestTimeout)} plus {@link Builder#retryWait} between attempts.
 *
 * <p><b>Service credential.</b> With {@link Builder#serviceToken}, every request carries
 * {@value #SERVICE_TOKEN_HEADER}{@code : <token>}, a header of its own so it never collides with a user's
 * {@code Authorization} header that the gateway forwards.
 *
 * <p><b>Ids.</b> User ids are positive 64-bit numbers; a zero or negative id is a bug of the caller and throws
 * {@link IllegalArgumentException} before any request is sent.
 *
 * <p>Thread-safe; build one per process and share it. Calls block the calling thread (virtual threads are fine).
 */
public final class FollowCheckClient implements AutoCloseable {

    /** The header carrying the service credential. */
    public static final String SERVICE_TOKEN_HEADER = ServiceCredential.HEADER;
    /** The header carrying a follow token (read-your-writes, see {@link #isFollowing(long, long, String)}). */
    public static final String FOLLOW_TOKEN_HEADER = "X-Follow-Token";

    private static final String USERS = "/internal/v1/users/";
    private static final byte[] TRUE = "{\"following\":true}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "{\"following\":false}".getBytes(StandardCharsets.US_ASCII);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Idle time after which a pooled connection is closed: below the services' and proxies' usual idle timeouts. */
    static final int IDLE_SECONDS = 30;
    /**
     * Idle time after which a pooled connection is checked before reuse: a connection the server closed while idle
     * would otherwise fail the next call's first attempt.
     */
    private static final TimeValue VALIDATE_AFTER_IDLE = TimeValue.ofSeconds(2);

    private final ShardAffineRouter router;
    /** {@code <base URI>/internal/v1/users/} of each instance, indexed as the router's instance ids. */
    private final String[] usersBase;
    private final CloseableHttpClient http;
    private final Retry retry;
    private final String serviceToken;
    private final int batchSize;

    private FollowCheckClient(Builder b) {
        List<String> ids = new ArrayList<>(b.instances.keySet());
        this.router = new ShardAffineRouter(ids, b.logicalShardCount);
        this.usersBase = new String[ids.size()];
        for (int i = 0; i < usersBase.length; i++) {
            String base = b.instances.get(ids.get(i)).toString();
            usersBase[i] = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + USERS;
        }
        PoolingHttpClientConnectionManager connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(b.maxConnectionsPerInstance)
                .setMaxConnTotal(b.maxConnectionsPerInstance * ids.size())
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(b.connectTimeout))
                        .setSocketTimeout(Timeout.of(b.requestTimeout))
                        .setValidateAfterInactivity(VALIDATE_AFTER_IDLE)
                        .build())
                .build();
        this.http = HttpClients.custom()
                .setConnectionManager(connections)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(Timeout.of(b.connectTimeout))
                        .setResponseTimeout(Timeout.of(b.requestTimeout))
                        .build())
                .evictIdleConnections(TimeValue.ofSeconds(IDLE_SECONDS))
                // Fail-over is the Retry's, to another instance; the transport's own retries would repeat the same one.
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .build();
        this.retry = Retry.of("follow-check", RetryConfig.custom()
                .maxAttempts(b.maxAttempts)
                .waitDuration(b.retryWait)
                .retryOnException(FollowCheckClient::retryable)
                .build());
        this.serviceToken = b.serviceToken;
        this.batchSize = b.batchSize;
    }

    /**
     * A builder; at least one {@link Builder#instance} is required.
     *
     * @return a new builder with the defaults given on each setting
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Does {@code follower} follow {@code followee}? Answered by the check service's layers (bloom filter, caches,
     * shard), as fresh as its follow-events stream: a follow acknowledged a moment ago may still read {@code false};
     * pass its follow token to {@link #isFollowing(long, long, String)} when that matters.
     *
     * @param follower a user id, positive
     * @param followee a user id, positive
     * @return whether the edge exists
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws CheckServiceException    when no instance answered, or one refused the request
     */
    public boolean isFollowing(long follower, long followee) {
        return isFollowing(follower, followee, null);
    }

    /**
     * Does {@code follower} follow {@code followee}, reading the shard when {@code followToken} says the follower
     * wrote since (read-your-writes)?
     *
     * @param follower    a user id, positive
     * @param followee    a user id, positive
     * @param followToken the follow token the write service returned to the follower's last follow or unfollow, sent
     *                    as {@value #FOLLOW_TOKEN_HEADER}; {@code null} for none. A token that does not verify is
     *                    ignored by the service.
     * @return whether the edge exists
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws CheckServiceException    when no instance answered, or one refused the request
     */
    public boolean isFollowing(long follower, long followee, String followToken) {
        UserIds.requirePositive(follower, "follower");
        UserIds.requirePositive(followee, "followee");
        String path = follower + "/following/" + followee;
        return call(follower, instance -> {
            HttpUriRequestBase r = request(new HttpGet(usersBase[instance] + path));
            if (followToken != null) {
                r.addHeader(FOLLOW_TOKEN_HEADER, followToken);
            }
            byte[] body = send(r);
            // The two answers are pre-encoded by the service; anything else is parsed.
            if (Arrays.equals(body, TRUE)) {
                return true;
            }
            if (Arrays.equals(body, FALSE)) {
                return false;
            }
            return field(body, "following").asBoolean();
        });
    }

    /**
     * Which of {@code followees} does {@code follower} follow? One request per {@link Builder#batchSize} ids, all to
     * {@code follower}'s instance. Follow tokens are not taken: the service's batch check does not read them.
     *
     * @param follower  a user id, positive
     * @param followees user ids, each positive; any order, repeats allowed; not modified
     * @return a new array of {@code followees.length} answers, {@code answers[i]} for {@code followees[i]}
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws CheckServiceException    when no instance answered, or one refused the request
     */
    public boolean[] areFollowing(long follower, long[] followees) {
        UserIds.requirePositive(follower, "follower");
        for (int i = 0; i < followees.length; i++) {
            UserIds.requirePositive(followees[i], "followees[" + i + "]");
        }
        boolean[] answers = new boolean[followees.length];
        String path = follower + "/following/contains";
        for (int from = 0; from < followees.length; from += batchSize) {
            int to = Math.min(followees.length, from + batchSize);
            String json = idsBody(followees, from, to);
            long[] following = call(follower, instance -> {
                HttpUriRequestBase r = request(post(usersBase[instance] + path, json));
                return ascending(field(send(r), "following"));
            });
            for (int i = from; i < to; i++) {
                answers[i] = Arrays.binarySearch(following, followees[i]) >= 0;
            }
        }
        return answers;
    }

    /**
     * Which of {@code authors} does {@code viewer} block, is blocked by, or mute? The check a feed makes before
     * rendering, for the same cost class as {@link #areFollowing}: one request per {@link Builder#batchSize} ids, all
     * to {@code viewer}'s instance, answered there mostly in process. Pass the viewer's follow token (from its block
     * or mute reply) to see that write at once; {@code null} otherwise.
     *
     * @param viewer      a user id, positive
     * @param authors     user ids, each positive; any order, repeats allowed; not modified
     * @param followToken the viewer's {@code X-Follow-Token}, or {@code null}
     * @return the three subsets of {@code authors}, each ascending and without repeats
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws CheckServiceException    when no instance answered, or one refused the request
     */
    public Hidden hidden(long viewer, long[] authors, String followToken) {
        UserIds.requirePositive(viewer, "viewer");
        for (int i = 0; i < authors.length; i++) {
            UserIds.requirePositive(authors[i], "authors[" + i + "]");
        }
        String path = viewer + "/hidden";
        TreeSet<Long> blocking = new TreeSet<>();
        TreeSet<Long> blockedBy = new TreeSet<>();
        TreeSet<Long> muting = new TreeSet<>();
        for (int from = 0; from < authors.length; from += batchSize) {
            String json = idsBody(authors, from, Math.min(authors.length, from + batchSize));
            JsonNode body = call(viewer, instance -> {
                HttpUriRequestBase r = request(post(usersBase[instance] + path, json));
                if (followToken != null) {
                    r.addHeader(FOLLOW_TOKEN_HEADER, followToken);
                }
                return parse(send(r));
            });
            for (long id : ascending(required(body, "blocking"))) {
                blocking.add(id);
            }
            for (long id : ascending(required(body, "blockedBy"))) {
                blockedBy.add(id);
            }
            for (long id : ascending(required(body, "muting"))) {
                muting.add(id);
            }
        }
        return new Hidden(toArray(blocking), toArray(blockedBy), toArray(muting));
    }

    private static long[] toArray(TreeSet<Long> ids) {
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Which authors are hidden from a viewer.
     *
     * @param blocking  authors the viewer blocks, ascending
     * @param blockedBy authors who block the viewer, ascending
     * @param muting    authors the viewer mutes, ascending
     */
    public record Hidden(long[] blocking, long[] blockedBy, long[] muting) {

        /** Whether nobody is hidden. */
        public boolean isEmpty() {
            return blocking.length == 0 && blockedBy.length == 0 && muting.length == 0;
        }
    }

    /**
     * Both directions between two users.
     *
     * @param a a user id, positive
     * @param b a user id, positive
     * @return whether {@code a} follows {@code b} and whether {@code b} follows {@code a}
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws CheckServiceException    when no instance answered, or one refused the request
     */
    public Relationship relationship(long a, long b) {
        UserIds.requirePositive(a, "a");
        UserIds.requirePositive(b, "b");
        String path = a + "/relationship/" + b;
        return call(a, instance -> {
            JsonNode body = parse(send(request(new HttpGet(usersBase[instance] + path))));
            return new Relationship(required(body, "following").asBoolean(), required(body, "followedBy").asBoolean());
        });
    }

    /**
     * A user's follower and following counts.
     *
     * @param user a user id, positive
     * @return the counts, each {@code >= 0}
     * @throws IllegalArgumentException when the id is not positive (no request is sent)
     * @throws CheckServiceException    when no instance answered, or one refused the request
     */
    public Counts counts(long user) {
        UserIds.requirePositive(user, "user");
        String path = user + "/counts";
        return call(user, instance -> {
            JsonNode body = parse(send(request(new HttpGet(usersBase[instance] + path))));
            return new Counts(required(body, "followers").asLong(), required(body, "following").asLong());
        });
    }

    /**
     * The instance ids, in the order given to the builder.
     *
     * @return the ids the router chooses among
     */
    public List<String> instanceIds() {
        return router.instanceIds();
    }

    /**
     * The instance a request about {@code user} goes to on attempt {@code attempt} (0 first): the owner of its logical
     * shard, then the next instances in rendezvous order. The same choice as the gateway's.
     *
     * @param user    a user id
     * @param attempt {@code >= 0}
     * @return one of {@link #instanceIds()}
     */
    public String instanceFor(long user, int attempt) {
        return router.instanceIds().get(router.candidate(user, attempt));
    }

    /** Closes the pooled connections at once; calls after this fail. */
    @Override
    public void close() {
        http.close(CloseMode.IMMEDIATE);
    }

    /** Both directions between users {@code a} and {@code b}.
     *
     * @param following  whether {@code a} follows {@code b}
     * @param followedBy whether {@code b} follows {@code a}
     */
    public record Relationship(boolean following, boolean followedBy) {
    }

    /**
     * A user's counts.
     *
     * @param followers how many users follow the user
     * @param following how many users the user follows
     */
    public record Counts(long followers, long following) {
    }

    /** One attempt against one instance. */
    @FunctionalInterface
    private interface Attempt<T> {
        T run(int instance) throws IOException;
    }

    /** Runs {@code attempt} on {@code user}'s instances in rendezvous order, as the retry policy allows. */
    private <T> T call(long user, Attempt<T> attempt) {
        int[] next = {0};
        CheckedSupplier<T> onNextInstance = () -> attempt.run(router.candidate(user, next[0]++));
        try {
            return retry.executeCheckedSupplier(onNextInstance);
        } catch (CheckServiceException e) {
            throw e;
        } catch (IOException e) {
            throw new CheckServiceException(CheckServiceException.NO_RESPONSE,
                    "no check instance answered after " + next[0] + " attempt(s), last " + e, e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Connection failures and timeouts (every {@link IOException} of the transport: refused, reset, no response, connect,
     * pool and response timeouts) and 503; nothing once the calling thread is interrupted (the transport reports an
     * interrupt as an {@code InterruptedIOException}, which must end the call, not move it to the next instance).
     */
    private static boolean retryable(Throwable e) {
        if (Thread.currentThread().isInterrupted()) {
            return false;
        }
        return e instanceof IOException || e instanceof CheckServiceException c && c.status() == 503;
    }

    /** {@code r} with the headers every request carries. */
    private HttpUriRequestBase request(HttpUriRequestBase r) {
        r.addHeader("Accept", "application/json");
        if (serviceToken != null) {
            r.addHeader(SERVICE_TOKEN_HEADER, serviceToken);
        }
        return r;
    }

    private static HttpPost post(String uri, String json) {
        HttpPost r = new HttpPost(uri);
        r.setEntity(new ByteArrayEntity(json.getBytes(StandardCharsets.US_ASCII), ContentType.APPLICATION_JSON));
        return r;
    }

    /** The body of a 2xx answer; other statuses throw {@link CheckServiceException}. */
    private byte[] send(HttpUriRequestBase r) throws IOException {
        // The handler reads the whole body, so the connection goes back to the pool before this returns.
        Answer answer = http.execute(r, response -> new Answer(response.getCode(),
                response.getEntity() == null ? new byte[0] : EntityUtils.toByteArray(response.getEntity())));
        if (answer.status / 100 != 2) {
            String text = new String(answer.body, 0, Math.min(answer.body.length, 300), StandardCharsets.UTF_8);
            throw new CheckServiceException(answer.status,
                    r.getMethod() + " " + r.getRequestUri() + ": HTTP " + answer.status + " " + text, null);
        }
        return answer.body;
    }

    /** A status and the body that came with it. */
    private record Answer(int status, byte[] body) { }

    private static JsonNode parse(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (JacksonException e) {
            throw new CheckServiceException(200, "unreadable answer: " + e.getOriginalMessage(), e);
        }
    }

    private static JsonNode field(byte[] body, String name) {
        return required(parse(body), name);
    }

    private static JsonNode required(JsonNode node, String name) {
        JsonNode v = node == null ? null : node.get(name);
        if (v == null || v.isNull()) {
            throw new CheckServiceException(200, "answer without '" + name + "'", null);
        }
        return v;
    }

    /** The ids of a JSON array, sorted ascending (the service sends them so; sorting again is cheap insurance). */
    private static long[] ascending(JsonNode array) {
        if (!array.isArray()) {
            throw new CheckServiceException(200, "'following' is not an array", null);
        }
        long[] ids = new long[array.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = array.get(i).asLong();
        }
        Arrays.sort(ids);
        return ids;
    }

    private static String idsBody(long[] ids, int from, int to) {
        StringBuilder s = new StringBuilder(12 + (to - from) * 12).append("{\"ids\":[");
        for (int i = from; i < to; i++) {
            s.append(i == from ? "" : ",").append(ids[i]);
        }
        return s.append("]}").toString();
    }

    /**
     * Settings of a {@link FollowCheckClient}. Not thread-safe; {@link #build} validates.
     */
    public static final class Builder {

        private final Map<String, URI> instances = new LinkedHashMap<>();
        private int logicalShardCount = 256;
        private Duration connectTimeout = Duration.ofMillis(500);
        private Duration requestTimeout = Duration.ofSeconds(1);
        private int maxConnectionsPerInstance = 64;
        private int maxAttempts = 2;
        private Duration retryWait = Duration.ZERO;
        private String serviceToken;
        private int batchSize = 1000;

        private Builder() {
        }

        /**
         * Adds a check instance.
         *
         * @param id      its {@code graph.check.affinity.instance-id} (the launcher's are {@code check-0},
         *                {@code check-1}; in Kubernetes the pod name); unique, non-blank
         * @param baseUri its base URI, {@code http://host:port} (a path prefix is kept)
         * @return this builder
         * @throws IllegalArgumentException when the id is blank or already added, or the URI is not absolute http(s)
         */
        public Builder instance(String id, URI baseUri) {
            Objects.requireNonNull(baseUri, "baseUri");
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("instance id must not be blank");
            }
            if (!("http".equals(baseUri.getScheme()) || "https".equals(baseUri.getScheme())) || baseUri.getHost() == null) {
                throw new IllegalArgumentException("instance " + id + ": base URI must be http(s)://host[:port], was "
                        + baseUri);
            }
            if (instances.putIfAbsent(id, baseUri) != null) {
                throw new IllegalArgumentException("instance id '" + id + "' added twice");
            }
            return this;
        }

        /**
         * The deployment's logical shard count, the services' {@code graph.shards.logical-shard-count} and the
         * gateway's {@code graph.gateway.routing.logical-shard-count}.
         *
         * @param count {@code >= 1}; default 256
         * @return this builder
         */
        public Builder logicalShardCount(int count) {
            this.logicalShardCount = count;
            return this;
        }

        /**
         * Time to get a connection to one instance, bounding each of: the wait for a pooled one when all of
         * {@link #maxConnectionsPerInstance} are busy, and opening a new one.
         *
         * @param timeout positive; default 500 ms
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /**
         * Time for one attempt's answer: the longest wait for the response's next bytes once the request is sent.
         *
         * @param timeout positive; default 1 s
         * @return this builder
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * Most connections kept to one instance: as many calls to it can be in flight at once, and the next waits up
         * to {@link #connectTimeout} for one to come free (then fails over like a connection failure).
         *
         * @param connections {@code 1..10000}; default 64
         * @return this builder
         */
        public Builder maxConnectionsPerInstance(int connections) {
            this.maxConnectionsPerInstance = connections;
            return this;
        }

        /**
         * Attempts per call, the first included: attempt {@code k} goes to the {@code k}-th instance in rendezvous
         * order for the user's shard (again the owner after the last instance).
         *
         * @param attempts {@code >= 1}; default 2 (the owner, then the instance that takes its shards over)
         * @return this builder
         */
        public Builder maxAttempts(int attempts) {
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * Pause before each retry.
         *
         * @param wait {@code >= 0}; default 0: the next attempt goes to another instance, so there is nothing to wait
         *             for
         * @return this builder
         */
        public Builder retryWait(Duration wait) {
            this.retryWait = wait;
            return this;
        }

        /**
         * The service credential sent as {@value FollowCheckClient#SERVICE_TOKEN_HEADER} on every request.
         *
         * @param token the shared secret issued to this caller; {@code null} (the default) sends none
         * @return this builder
         */
        public Builder serviceToken(String token) {
            this.serviceToken = token;
            return this;
        }

        /**
         * Most ids in one batch-check request; larger batches are split.
         *
         * @param size {@code 1..10000}, at most the service's {@code graph.check.batch-max}; default 1000 (the
         *             service's default)
         * @return this builder
         */
        public Builder batchSize(int size) {
            this.batchSize = size;
            return this;
        }

        /**
         * Builds the client and its connection pool.
         *
         * @return a new client
         * @throws IllegalArgumentException naming the first bad setting
         */
        public FollowCheckClient build() {
            if (instances.isEmpty()) {
                throw new IllegalArgumentException("at least one check instance is required");
            }
            if (logicalShardCount < 1) {
                throw new IllegalArgumentException("logicalShardCount must be >= 1, was " + logicalShardCount);
            }
            requirePositive(connectTimeout, "connectTimeout");
            requirePositive(requestTimeout, "requestTimeout");
            if (maxConnectionsPerInstance < 1 || maxConnectionsPerInstance > 10_000) {
                throw new IllegalArgumentException("maxConnectionsPerInstance must be in 1..10000, was "
                        + maxConnectionsPerInstance);
            }
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
            }
            if (retryWait == null || retryWait.isNegative()) {
                throw new IllegalArgumentException("retryWait must be >= 0, was " + retryWait);
            }
            if (serviceToken != null && (serviceToken.isBlank() || !serviceToken.strip().equals(serviceToken))) {
                throw new IllegalArgumentException("serviceToken must not be blank or padded with spaces");
            }
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("batchSize must be in 1..10000, was " + batchSize);
            }
            return new FollowCheckClient(this);
        }

        private static void requirePositive(Duration d, String name) {
            if (d == null || d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
        }
    }
}
