package dev.socialgraph.testsupport;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fresh shard topology for one test class: two physical databases per group (DESIGN.md 10), so that routing
 * bugs show up, created on {@link TestServers#postgres()} with unique names. The schema is not applied here:
 * callers migrate with {@code ShardMigrations.migrateAll} (graph-store), or let the write service do it.
 *
 * <p>Logical shards 0..127 go to the first database of each group, 128..255 to the second.
 */
public final class TestShards implements AutoCloseable {

    /** Logical shards of every test topology. */
    public static final int LOGICAL_SHARDS = 256;

    private final PostgresServer postgres;
    private final ShardMap shardMap;
    private final List<String> databases;

    private TestShards(PostgresServer postgres, ShardMap shardMap, List<String> databases) {
        this.postgres = postgres;
        this.shardMap = shardMap;
        this.databases = databases;
    }

    /**
     * Creates four empty databases ({@code <prefix>_following_0/1}, {@code <prefix>_follower_0/1} plus a unique
     * suffix) and the shard map over them.
     *
     * @param prefix lower-case letters, digits and underscores; names the test in the database names
     */
    public static TestShards create(String prefix) {
        PostgresServer postgres = TestServers.postgres();
        List<ShardRange> ranges = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (ShardGroup group : ShardGroup.values()) {
            String groupName = group.name().toLowerCase();
            for (int half = 0; half < 2; half++) {
                String db = postgres.createDatabase(prefix + "_" + groupName + "_" + half);
                names.add(db);
                ranges.add(new ShardRange(group, half * 128, half * 128 + 127, db, postgres.jdbcUrl(db)));
            }
        }
        return new TestShards(postgres, ShardMap.of(LOGICAL_SHARDS, ranges), List.copyOf(names));
    }

    /** The shard map over the fresh databases. */
    public ShardMap shardMap() {
        return shardMap;
    }

    /** Database user. */
    public String username() {
        return postgres.username();
    }

    /** Database password, possibly empty. */
    public String password() {
        return postgres.password();
    }

    /**
     * The {@code graph.shards.*} Spring properties of this topology, for {@code @DynamicPropertySource}.
     * Migrations and database creation are left to the service's own settings.
     */
    public Map<String, String> springProperties() {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("graph.shards.logical-shard-count", Integer.toString(LOGICAL_SHARDS));
        props.put("graph.shards.username", username());
        props.put("graph.shards.password", password());
        props.put("graph.shards.create-databases", "false");
        int i = 0;
        for (ShardGroup group : ShardGroup.values()) {
            for (ShardRange r : shardMap.ranges(group)) {
                String p = "graph.shards.ranges[" + i++ + "].";
                props.put(p + "group", group.name().toLowerCase());
                props.put(p + "first-shard", Integer.toString(r.firstShard()));
                props.put(p + "last-shard", Integer.toString(r.lastShard()));
                props.put(p + "database", r.database());
                props.put(p + "jdbc-url", r.jdbcUrl());
            }
        }
        return props;
    }

    /** Drops the databases. */
    @Override
    public void close() {
        databases.forEach(postgres::dropDatabase);
    }
}
