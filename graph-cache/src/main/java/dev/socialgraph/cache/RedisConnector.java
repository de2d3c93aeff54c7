package dev.socialgraph.cache;

import dev.socialgraph.common.breaker.BreakerSettings;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Lettuce connection to the following cache's Redis, standalone or cluster ({@link RedisEndpoint}), opened
 * lazily and shared: Lettuce pipelines concurrent commands on it. The commands interfaces it hands out are the ones
 * a standalone server and a cluster have in common ({@link RedisClusterCommands}), so the code above it is the same
 * for both; in cluster mode every command goes to the master of its key's slot (reads included: a replica may lag,
 * and the cache's answers must be as fresh as its writes).
 *
 * <p>Built for a cache that must never hold its callers up:
 * <ul>
 *   <li>every command is bounded by the endpoint's command timeout, and while a connection is down commands fail at
 *       once instead of queueing behind it ({@link ClientOptions.DisconnectedBehavior#REJECT_COMMANDS});</li>
 *   <li>the first connect is lazy, so a service starts without Redis; after a failed connect, callers fail fast for
 *       {@link #CONNECT_RETRY} instead of each waiting for a connect timeout in turn;</li>
 *   <li>once connected, Lettuce reconnects by itself, within {@link #MAX_RECONNECT_DELAY} (its default back-off grows
 *       to 30 s, a long time to answer everything from the shards after a Redis restart);</li>
 *   <li>in cluster mode the slot map is refreshed every {@link #TOPOLOGY_REFRESH} and on every adaptive trigger
 *       (MOVED and ASK redirects, repeated reconnects), so a replica promoted after its master died serves its slots
 *       within about a second of the promotion;</li>
 *   <li>a Redis that hangs (its socket open, nothing answered) is skipped after its first timeouts and probed until
 *       it answers again: every caller sends its commands through the connector's {@link RedisBreaker}.</li>
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class RedisConnector implements AutoCloseable {

    /** How long callers fail fast after a failed connect before the next caller tries again. */
    public static final Duration CONNECT_RETRY = Duration.ofSeconds(1);
    /** The longest pause between reconnect attempts of an established connection. */
    public static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);
    /** The periodic refresh of a cluster's slot map, on top of the adaptive triggers. */
    public static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);

    private final RedisEndpoint endpoint;
    private final RedisBreaker breaker;
    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final Object connectLock = new Object();
    private volatile StatefulConnection<String, String> connection;
    private volatile RedisClusterCommands<String, String> sync;
    private volatile RedisClusterAsyncCommands<String, String> async;
    private volatile long nextConnectNanos = System.nanoTime();

    /**
     * Creates the client with the default breaker ({@link RedisBreaker#DEFAULTS}); no connection is made until
     * the first command.
     *
     * @param endpoint where Redis is and the timeouts
     */
    public RedisConnector(RedisEndpoint endpoint) {
        this(endpoint, RedisBreaker.DEFAULTS);
    }

    /**
     * Creates the client; no connection is made until the first command.
     *
     * @param endpoint where Redis is and the timeouts
     * @param breaker  when to stop asking a Redis that fails or hangs, and how to probe it
     */
    public RedisConnector(RedisEndpoint endpoint, BreakerSettings breaker) {
        this.endpoint = endpoint;
        this.breaker = new RedisBreaker(breaker);
        this.resources = DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(50), MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS))
                .build();
        List<RedisURI> seeds = endpoint.seeds().stream().map(seed -> {
            RedisURI copy = RedisURI.builder(seed).build();
            copy.setTimeout(endpoint.commandTimeout());
            return copy;
        }).toList();
        TimeoutOptions timeouts = TimeoutOptions.enabled(endpoint.commandTimeout());
        SocketOptions sockets = SocketOptions.builder().connectTimeout(endpoint.connectTimeout()).build();
        if (endpoint.mode() == RedisMode.CLUSTER) {
            RedisClusterClient cluster = RedisClusterClient.create(resources, seeds);
            cluster.setOptions(ClusterClientOptions.builder()
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                            .enableAllAdaptiveRefreshTriggers()
                            .build())
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(timeouts)
                    .socketOptions(sockets)
                    .build());
            this.client = cluster;
        } else {
            RedisClient standalone = RedisClient.create(resources, seeds.getFirst());
            standalone.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(timeouts)
                    .socketOptions(sockets)
                    .build());
            this.client = standalone;
        }
    }

    /** @return standalone or cluster, as configured */
    public RedisMode mode() {
        return endpoint.mode();
    }

    /** @return the endpoint this connector was built from */
    public RedisEndpoint endpoint() {
        return endpoint;
    }

    /**
     * The breaker every command of this connection goes through: {@code breaker().call(() -> sync().get(key))}.
     *
     * @return the breaker
     */
    public RedisBreaker breaker() {
        return breaker;
    }

    /**
     * The synchronous commands, connecting first if needed.
     *
     * @return commands bounded by the command timeout
     * @throws io.lettuce.core.RedisException when not connected and connecting failed now or less than
     *                                        {@link #CONNECT_RETRY} ago
     */
    public RedisClusterCommands<String, String> sync() {
        connect();
        return sync;
    }

    /**
     * The asynchronous commands, for pipelining a batch; connecting first if needed.
     *
     * @return commands whose futures complete within the command timeout
     * @throws io.lettuce.core.RedisException as {@link #sync()}
     */
    public RedisClusterAsyncCommands<String, String> async() {
        connect();
        return async;
    }

    private void connect() {
        if (connection != null) {
            return;
        }
        if (System.nanoTime() - nextConnectNanos < 0) {
            throw new io.lettuce.core.RedisConnectionException("Redis is not connected; next connect attempt in under "
                    + CONNECT_RETRY.toMillis() + " ms");
        }
        synchronized (connectLock) {
            if (connection != null) {
                return;
            }
            try {
                if (client instanceof RedisClusterClient cluster) {
                    StatefulRedisClusterConnection<String, String> c = cluster.connect();
                    sync = c.sync();
                    async = c.async();
                    connection = c;
                } else {
                    StatefulRedisConnection<String, String> c = ((RedisClient) client).connect();
                    sync = c.sync();
                    async = c.async();
                    connection = c;
                }
                log.info("Connected to Redis ({}, {})", endpoint.mode().name().toLowerCase(), endpoint.seeds());
            } catch (RuntimeException e) {
                nextConnectNanos = System.nanoTime() + CONNECT_RETRY.toNanos();
                throw e;
            }
        }
    }

    /** Closes the connection, the client and its threads. */
    @Override
    public void close() {
        StatefulConnection<String, String> c = connection;
        if (c != null) {
            c.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
