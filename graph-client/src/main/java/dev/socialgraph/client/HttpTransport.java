package dev.socialgraph.client;

import dev.socialgraph.common.shard.ShardAffineRouter;
import dev.socialgraph.wire.Headers;
import io.github.resilience4j.core.functions.CheckedSupplier;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHeaders;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The {@link Transport} over HTTP: Apache HttpClient 5's classic client, shard-affine choice of the check instance,
 * fail-over by Resilience4j {@link Retry}, the service credential, and non-2xx answers turned into exceptions by
 * {@link Problems}.
 *
 * <p><b>Instances.</b> A read about user {@code u} goes to the check instance that owns {@code u}'s logical shard,
 * {@code floorMod(u, logicalShardCount)}, by the same {@link ShardAffineRouter} the gateway's load balancer uses, so it
 * lands where the bloom filter and caches hold {@code u}'s slice; attempt {@code k} goes to the {@code k}-th instance
 * in rendezvous order for that shard, the one that takes the shard over when the owner leaves. A read about no user
 * (the change stream's: every instance serves it alike, from any cursor) starts at the next check instance in turn.
 * A write starts at the write instance {@link WriteBalancing} picks and moves on to the next ones.
 *
 * <p><b>Retries.</b> A connection failure, a timeout or HTTP 503 is retried on the next instance, up to
 * {@code maxAttempts}, then thrown ({@link UnavailableException}); every other status is thrown at once. Writes are
 * idempotent {@code PUT}/{@code DELETE}s, so repeating one that did reach the service leaves the same state.
 *
 * <p><b>Connections and timeouts.</b> HTTP/1.1 on keep-alive connections, at most {@code maxConnectionsPerInstance}
 * per instance, idle ones closed after {@value #IDLE_SECONDS} s. A call runs on the calling thread from request to
 * answer with no hand-off (the JDK's {@code HttpClient} passes each request to its selector thread and each answer on
 * to an executor, which cost about 130 µs per call at one connection here). Each attempt is bounded by
 * {@code connectTimeout} twice (to wait for a pooled connection when all are busy, and to open one) and by
 * {@code requestTimeout} for the answer, plus the request's {@link Request#patience()} for a long-poll. Thread-safe.
 */
final class HttpTransport implements Transport, AutoCloseable {

    /** Idle time after which a pooled connection is closed: below the services' and proxies' usual idle timeouts. */
    static final int IDLE_SECONDS = 30;
    /**
     * Idle time after which a pooled connection is checked before reuse: a connection the server closed while idle
     * would otherwise fail the next call's first attempt.
     */
    private static final TimeValue VALIDATE_AFTER_IDLE = TimeValue.ofSeconds(2);
    private static final String ACCEPT = "application/json, application/problem+json";

    /** {@code null} without check instances. */
    private final ShardAffineRouter router;
    /** The base URI (no trailing {@code /}) of each check instance, indexed as the router's instance ids. */
    private final String[] checkBase;
    /** The same of each write instance, in the builder's order. */
    private final String[] writeBase;
    private final WriteBalancing writeBalancing;
    private final AtomicInteger nextWrite = new AtomicInteger();
    /** Where the next {@link #readAny} starts: spreads the change stream's watchers over the check instances. */
    private final AtomicInteger nextRead = new AtomicInteger();
    private final CloseableHttpClient http;
    private final Retry readRetry;
    private final Retry writeRetry;
    private final String serviceToken;
    /** The requests' defaults; a request with {@link Request#patience()} gets a copy with a longer response timeout. */
    private final RequestConfig requestConfig;
    private final Duration requestTimeout;

    HttpTransport(Settings s) {
        List<String> ids = new ArrayList<>(s.instances().keySet());
        this.router = ids.isEmpty() ? null : new ShardAffineRouter(ids, s.logicalShardCount());
        this.checkBase = ids.stream().map(id -> base(s.instances().get(id))).toArray(String[]::new);
        this.writeBase = s.writeInstances().stream().map(HttpTransport::base).toArray(String[]::new);
        this.writeBalancing = s.writeBalancing();
        int routes = checkBase.length + writeBase.length;
        PoolingHttpClientConnectionManager connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnPerRoute(s.maxConnectionsPerInstance())
                .setMaxConnTotal(s.maxConnectionsPerInstance() * routes)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(s.connectTimeout()))
                        .setSocketTimeout(Timeout.of(s.requestTimeout()))
                        .setValidateAfterInactivity(VALIDATE_AFTER_IDLE)
                        .build())
                .build();
        this.requestTimeout = s.requestTimeout();
        this.requestConfig = RequestConfig.custom()
                .setConnectionRequestTimeout(Timeout.of(s.connectTimeout()))
                .setResponseTimeout(Timeout.of(s.requestTimeout()))
                .build();
        this.http = HttpClients.custom()
                .setConnectionManager(connections)
                .setDefaultRequestConfig(requestConfig)
                .evictIdleConnections(TimeValue.ofSeconds(IDLE_SECONDS))
                // Fail-over is the Retry's, to another instance; the transport's own retries would repeat the same one.
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .build();
        RetryConfig retries = RetryConfig.custom()
                .maxAttempts(s.maxAttempts())
                .waitDuration(s.retryWait())
                .retryOnException(HttpTransport::retryable)
                .build();
        this.readRetry = Retry.of("graph-client-reads", retries);
        this.writeRetry = Retry.of("graph-client-writes", retries);
        this.serviceToken = s.serviceToken();
    }

    @Override
    public byte[] read(long user, Request request) {
        ShardAffineRouter r = router();
        return execute(readRetry, "check instance", k -> r.candidate(user, k),
                instance -> send(checkBase[instance], request));
    }

    @Override
    public byte[] readAny(Request request) {
        int instances = router().instanceIds().size();
        int start = Math.floorMod(nextRead.getAndIncrement(), instances);
        return execute(readRetry, "check instance", k -> (start + k) % instances,
                instance -> send(checkBase[instance], request));
    }

    @Override
    public byte[] write(Request request) {
        if (writeBase.length == 0) {
            throw new IllegalStateException("no write instance: add one with Builder.writeInstance");
        }
        int start = writeBalancing == WriteBalancing.ROUND_ROBIN
                ? Math.floorMod(nextWrite.getAndIncrement(), writeBase.length) : 0;
        return execute(writeRetry, "write instance", k -> (start + k) % writeBase.length,
                instance -> send(writeBase[instance], request));
    }

    /** The check instance ids, in the builder's order; empty without check instances. */
    List<String> instanceIds() {
        return router == null ? List.of() : router.instanceIds();
    }

    /** The check instance attempt {@code attempt} of a read about {@code user} goes to. */
    String instanceFor(long user, int attempt) {
        return router().instanceIds().get(router().candidate(user, attempt));
    }

    /** Closes the pooled connections at once; calls after this fail. */
    @Override
    public void close() {
        http.close(CloseMode.IMMEDIATE);
    }

    /** A base URI as requests are appended to it: its text without a trailing {@code /} (a path prefix is kept). */
    static String base(URI uri) {
        String base = uri.toString();
        return base.charAt(base.length() - 1) == '/' ? base.substring(0, base.length() - 1) : base;
    }

    /**
     * Connection failures and timeouts (every {@link IOException} of the transport: refused, reset, no response,
     * connect, pool and response timeouts) and 503; nothing once the calling thread is interrupted (the transport
     * reports an interrupt as an {@code InterruptedIOException}, which must end the call, not move it to the next
     * instance).
     */
    static boolean retryable(Throwable e) {
        if (Thread.currentThread().isInterrupted()) {
            return false;
        }
        return e instanceof IOException || e instanceof UnavailableException u && u.status() == 503;
    }

    private ShardAffineRouter router() {
        if (router == null) {
            throw new IllegalStateException("no check instance: add one with Builder.instance");
        }
        return router;
    }

    /** One attempt against one instance. */
    @FunctionalInterface
    private interface Attempt {
        byte[] run(int instance) throws IOException;
    }

    /** Runs {@code attempt} on instance {@code candidate(k)} for attempt {@code k = 0, 1, ...}. */
    private static byte[] execute(Retry retry, String what, IntUnaryOperator candidate, Attempt attempt) {
        int[] next = {0};
        CheckedSupplier<byte[]> onNextInstance = () -> attempt.run(candidate.applyAsInt(next[0]++));
        try {
            return retry.executeCheckedSupplier(onNextInstance);
        } catch (GraphClientException e) {
            throw e;
        } catch (IOException e) {
            throw Problems.noResponse("no " + what + " answered after " + next[0] + " attempt(s), last " + e, e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** The body of a 2xx answer from {@code base}; other statuses throw {@link Problems}' exception. */
    private byte[] send(String base, Request request) throws IOException {
        HttpUriRequestBase r = new HttpUriRequestBase(request.method().name(), URI.create(base + request.target()));
        r.addHeader(HttpHeaders.ACCEPT, ACCEPT);
        if (serviceToken != null) {
            r.addHeader(Headers.SERVICE_TOKEN, serviceToken);
        }
        for (Map.Entry<String, String> header : request.headers().entrySet()) {
            r.addHeader(header.getKey(), header.getValue());
        }
        if (request.patience().isPositive()) {
            // A long-poll: the service holds the answer back up to its wait, so the silence allowed grows by as much;
            // the connection's socket timeout follows the request's response timeout (HttpClient sets it per request).
            r.setConfig(RequestConfig.copy(requestConfig)
                    .setResponseTimeout(Timeout.of(requestTimeout.plus(request.patience()))).build());
        }
        if (request.body() != null) {
            r.setEntity(new ByteArrayEntity(request.body(), ContentType.APPLICATION_JSON));
        }
        // The handler reads the whole body, so the connection goes back to the pool before this returns.
        Answer answer = http.execute(r, response -> {
            Header retryAfter = response.getFirstHeader(HttpHeaders.RETRY_AFTER);
            return new Answer(response.getCode(),
                    response.getEntity() == null ? new byte[0] : EntityUtils.toByteArray(response.getEntity()),
                    retryAfter == null ? null : retryAfter.getValue());
        });
        if (answer.status / 100 != 2) {
            throw Problems.of(r.getMethod() + " " + r.getRequestUri(), answer.status, answer.body, answer.retryAfter,
                    Instant.now());
        }
        return answer.body;
    }

    /** A status, the body that came with it, and its {@code Retry-After} header. */
    private record Answer(int status, byte[] body, String retryAfter) { }
}
