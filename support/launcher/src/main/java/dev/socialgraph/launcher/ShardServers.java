package dev.socialgraph.launcher;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a local fleet's PostgreSQL servers holds each of the four shard databases of the local topology
 * (graph-store's {@code graph-shards-local.yml}). With one server, all four are on it, as before; with more, the
 * databases are dealt out in the order following 0, follower 0, following 1, follower 1, so that the following and
 * the follower database of the same shard range (the two sides one follow writes, through the outbox) are never on
 * the same server: a server that goes down then takes one side of a range, not both.
 */
final class ShardServers {

    /** The local topology's databases, in the order they are dealt out; the names of graph-shards-local.yml. */
    static final List<String> DATABASES = List.of("graph_following_0", "graph_follower_0", "graph_following_1",
            "graph_follower_1");

    private ShardServers() {
    }

    /**
     * Spreads the databases over {@code servers} servers, round robin.
     *
     * @param servers 1..{@link PortPlan#MAX_POSTGRES_SERVERS}
     * @return database → index of its server (0-based), in {@link #DATABASES} order
     * @throws IllegalArgumentException outside 1..4
     */
    static Map<String, Integer> spread(int servers) {
        if (servers < 1 || servers > PortPlan.MAX_POSTGRES_SERVERS) {
            throw new IllegalArgumentException("--postgres-servers must be within 1.." + PortPlan.MAX_POSTGRES_SERVERS
                    + " (the local topology has four databases), was " + servers);
        }
        Map<String, Integer> placement = new LinkedHashMap<>();
        for (int i = 0; i < DATABASES.size(); i++) {
            placement.put(DATABASES.get(i), i % servers);
        }
        return placement;
    }
}
