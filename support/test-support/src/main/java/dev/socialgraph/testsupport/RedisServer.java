package dev.socialgraph.testsupport;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * A running Redis server shared by the tests of one JVM. Tests keep out of each other's way by
 * taking a {@link #freshDatabase() fresh logical database} each.
 *
 * <p>Obtain it from {@link TestServers#redis()}; {@link TestServers#privateRedis()} returns a
 * {@link PrivateRedisServer} that a test may stop and start.
 *
 * <pre>{@code
 * RedisServer redis = TestServers.redis();
 * String uri = redis.uri(redis.freshDatabase());  // "redis://127.0.0.1:41917/3", empty
 * }</pre>
 */
public sealed class RedisServer permits PrivateRedisServer {

    /** Logical databases a Redis server has unless configured otherwise: 0..15. */
    static final int DATABASES = 16;

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private final Source source;
    private final String scheme;
    private final String userInfo;
    private final String host;
    private final int port;
    private final AutoCloseable resource;
    private final AtomicInteger nextDatabase = new AtomicInteger();

    private RedisClient client;

    RedisServer(Source source, String scheme, String userInfo, String host, int port, AutoCloseable resource) {
        this.source = source;
        this.scheme = scheme;
        this.userInfo = userInfo;
        this.host = host;
        this.port = port;
        this.resource = resource;
    }

    /**
     * Describes an external server from a URI such as {@code redis://127.0.0.1:6379} or {@code
     * rediss://:secret@cache.internal:6380}; a database in the path is ignored.
     *
     * @throws IllegalArgumentException if the URI is not a redis or rediss URI with a host
     */
    static RedisServer fromUri(Source source, String uri, AutoCloseable resource) {
        URI parsed;
        try {
            parsed = new URI(uri.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("Not a Redis URI: " + uri, e);
        }
        String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("redis") && !scheme.equals("rediss") || parsed.getHost() == null) {
            throw new IllegalArgumentException("Not a redis:// or rediss:// URI with a host: " + uri);
        }
        int port = parsed.getPort() == -1 ? 6379 : parsed.getPort();
        return new RedisServer(source, scheme, parsed.getRawUserInfo(), parsed.getHost(), port, resource);
    }

    /**
     * The host the server listens on.
     *
     * @return a host name or IP address, {@code 127.0.0.1} for an embedded server
     */
    public String host() {
        return host;
    }

    /**
     * The port the server listens on.
     *
     * @return a TCP port
     */
    public int port() {
        return port;
    }

    /**
     * The server's URI without a database, so clients use database 0.
     *
     * @return e.g. {@code redis://127.0.0.1:6379}, with credentials if the server needs them
     */
    public String uri() {
        String credentials = userInfo == null ? "" : userInfo + "@";
        String hostPart = host.contains(":") ? "[" + host + "]" : host;
        return scheme + "://" + credentials + hostPart + ":" + port;
    }

    /**
     * The server's URI selecting one logical database, in the form Lettuce and Spring Data Redis
     * accept.
     *
     * @param database 0..15
     * @return e.g. {@code redis://127.0.0.1:6379/3}
     * @throws IllegalArgumentException if the database is out of range
     */
    public String uri(int database) {
        checkDatabase(database);
        return uri() + "/" + database;
    }

    /**
     * Takes the next logical database, 1..15 round-robin (0 is left to clients that do not choose),
     * and empties it with {@code FLUSHDB} before returning, so a test class starts with no keys. With
     * more than 15 test classes in one JVM an index is handed out again; only the latest taker may
     * rely on it then, which holds while test classes run one after another.
     *
     * @return a database index in 1..15
     * @throws io.lettuce.core.RedisException if the server cannot be reached
     */
    public int freshDatabase() {
        int database = 1 + Math.floorMod(nextDatabase.getAndIncrement(), DATABASES - 1);
        RedisURI target = RedisURI.create(uri(database));
        target.setTimeout(COMMAND_TIMEOUT);
        try (StatefulRedisConnection<String, String> connection = client().connect(target)) {
            connection.sync().flushdb();
        }
        return database;
    }

    Source source() {
        return source;
    }

    void close() throws Exception {
        RedisClient open;
        synchronized (this) {
            open = client;
            client = null;
        }
        if (open != null) {
            open.shutdown();
        }
        if (resource != null) {
            resource.close();
        }
    }

    @Override
    public String toString() {
        return "Redis " + host + ":" + port + " (" + source.name().toLowerCase(Locale.ROOT) + ")";
    }

    private synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create();
        }
        return client;
    }

    private static void checkDatabase(int database) {
        if (database < 0 || database >= DATABASES) {
            throw new IllegalArgumentException("Redis database must be 0.." + (DATABASES - 1) + ": " + database);
        }
    }
}
