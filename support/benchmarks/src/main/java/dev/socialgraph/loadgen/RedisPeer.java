package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Operation.Kind;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Peer (a): the floor any Redis-backed design pays. The graph's edges as plain Redis sets, {@code bench:following:{id}}
 * holding the ids {@code id} follows as decimal strings; a check is one {@code SISMEMBER}, a batch check one
 * {@code SMISMEMBER}, a follow {@code SADD}, an unfollow {@code SREM}. No lists or counts (a set has no order).
 *
 * <p>Lettuce, one connection per allowed operation in flight (the same client concurrency as the fleet runs), used
 * round-robin; the runner bounds operations in flight. Its server's CPU is read from {@code INFO server}'s
 * {@code process_id}, so the server must run on this machine.
 */
final class RedisPeer implements Target {

    static final String KEY_PREFIX = "bench:following:";
    static final String LOADED_KEY = "bench:loaded";

    private final RedisClient client;
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final long serverPid;

    private RedisPeer(RedisClient client, int connectionCount) {
        this.client = client;
        for (int i = 0; i < connectionCount; i++) {
            connections.add(client.connect(StringCodec.UTF8));
        }
        String info = connections.getFirst().sync().info("server");
        long pid = -1;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("process_id:")) {
                pid = Long.parseLong(line.substring("process_id:".length()).trim());
            }
        }
        this.serverPid = pid;
    }

    /**
     * Connects to {@code uri} (its database index selects where the sets live) with {@code connectionCount}
     * connections, loading {@code graph} first unless {@code bench:loaded} says this graph is already there.
     */
    static RedisPeer open(String uri, int connectionCount, EdgeList graph) {
        RedisClient client = RedisClient.create(RedisURI.create(uri));
        client.setOptions(io.lettuce.core.ClientOptions.builder()
                .timeoutOptions(io.lettuce.core.TimeoutOptions.enabled(Duration.ofSeconds(30))).build());
        RedisPeer peer = new RedisPeer(client, Math.max(1, connectionCount));
        peer.loadIfNeeded(graph);
        return peer;
    }

    private void loadIfNeeded(EdgeList graph) {
        RedisAsyncCommands<String, String> async = connections.getFirst().async();
        String marker = graph.edgeCount() + " edges, " + graph.userCount() + " users";
        if (marker.equals(connections.getFirst().sync().get(LOADED_KEY))) {
            return;
        }
        connections.getFirst().sync().flushdb();
        List<RedisFuture<?>> pending = new ArrayList<>();
        for (int u = 0; u < graph.userCount(); u++) {
            int start = graph.rowStart(u);
            int end = graph.rowEnd(u);
            for (int chunk = start; chunk < end; chunk += 1000) {
                String[] members = new String[Math.min(1000, end - chunk)];
                for (int i = 0; i < members.length; i++) {
                    members[i] = Long.toString(graph.followee(chunk + i));
                }
                pending.add(async.sadd(KEY_PREFIX + graph.user(u), members));
            }
            if (pending.size() >= 2000) {
                await(pending);
            }
        }
        await(pending);
        connections.getFirst().sync().set(LOADED_KEY, marker);
    }

    private static void await(List<RedisFuture<?>> pending) {
        if (!LettuceFutures.awaitAll(Duration.ofMinutes(1), pending.toArray(new RedisFuture<?>[0]))) {
            throw new IllegalStateException("Redis did not acknowledge the load within a minute");
        }
        pending.clear();
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public boolean supports(Kind kind) {
        return switch (kind) {
            case CHECK, BATCH_CHECK, FOLLOW, UNFOLLOW -> true;
            case FOLLOWING_PAGE, FOLLOWERS_PAGE, COUNTS, HIDDEN, BLOCK, UNBLOCK, COMMON_FOLLOWING -> false;
        };
    }

    @Override
    public List<ServerProcess> processes() {
        return serverPid > 0 ? List.of(new ServerProcess("redis-peer", serverPid)) : List.of();
    }

    @Override
    public CompletableFuture<Outcome> execute(Operation op) {
        RedisAsyncCommands<String, String> redis =
                connections.get(Math.floorMod(next.getAndIncrement(), connections.size())).async();
        String key = KEY_PREFIX + op.user();
        RedisFuture<?> future = switch (op.kind()) {
            case CHECK -> redis.sismember(key, Long.toString(op.other()));
            case BATCH_CHECK -> {
                String[] members = new String[op.ids().length];
                for (int i = 0; i < members.length; i++) {
                    members[i] = Long.toString(op.ids()[i]);
                }
                yield redis.smismember(key, members);
            }
            case FOLLOW -> redis.sadd(key, Long.toString(op.other()));
            case UNFOLLOW -> redis.srem(key, Long.toString(op.other()));
            default -> throw new IllegalArgumentException("unsupported: " + op.kind());
        };
        return future.toCompletableFuture().handle((answer, failure) -> failure == null ? Outcome.OK : Outcome.ERROR);
    }

    /** Whether {@code follower} follows {@code followee} in the peer's sets; for tests. */
    boolean contains(long follower, long followee) {
        return connections.getFirst().sync().sismember(KEY_PREFIX + follower, Long.toString(followee));
    }

    @Override
    public void close() {
        connections.forEach(StatefulRedisConnection::close);
        client.shutdown();
    }
}
