package dev.socialgraph.store.shard;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The versioned shard map of a deployment (docs/shard-moves.md), in a small directory database of its own:
 * {@code shard_map_versions} holds every version ever published (never updated, so a reader never sees half a
 * map), {@code shard_map_readers} the version each service instance last applied, so a mover knows when every
 * reader has switched. Version 1 is the deployment's configured map; each shard move publishes the next.
 *
 * <p>Publishing is a compare-and-set on the version (its primary key): two movers cannot both publish version
 * {@code n + 1}. Times are epoch milliseconds. Thread-safe.
 */
public final class ShardDirectory {

    /** A published shard map and its version, {@code >= 1}. */
    public record Versioned(long version, ShardMap map) {
    }

    /** A service instance that reads the map, the version it applied last and when it said so. */
    public record Reader(String reader, long version, long seenAt) {
    }

    private static final String DDL = """
            CREATE TABLE IF NOT EXISTS shard_map_versions (
                version        BIGINT PRIMARY KEY CHECK (version >= 1),
                logical_shards INT    NOT NULL CHECK (logical_shards >= 1),
                ranges         TEXT   NOT NULL,
                published_at   BIGINT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS shard_map_readers (
                reader   TEXT   PRIMARY KEY,
                version  BIGINT NOT NULL,
                seen_at  BIGINT NOT NULL
            )""";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final DataSource directory;

    /** @param directory the directory database's pool */
    public ShardDirectory(DataSource directory) {
        this.directory = directory;
    }

    /**
     * Creates the directory's tables when missing.
     *
     * @throws SQLException on a database error
     */
    public void install() throws SQLException {
        try (Connection c = directory.getConnection(); Statement st = c.createStatement()) {
            st.execute(DDL);
        }
    }

    /**
     * Publishes {@code initial} as version 1 unless a version exists, and returns the newest version.
     *
     * @param initial the configured map
     * @return the newest map: {@code initial} on a new directory, else whatever moves made of it
     * @throws SQLException on a database error
     */
    public Versioned bootstrap(ShardMap initial) throws SQLException {
        try (Connection c = directory.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO shard_map_versions (version, logical_shards, ranges, published_at) VALUES (1, ?, ?, ?)
                ON CONFLICT (version) DO NOTHING""")) {
            ps.setInt(1, initial.logicalShardCount());
            ps.setString(2, toJson(initial));
            ps.setLong(3, System.currentTimeMillis());
            ps.executeUpdate();
        }
        return latest();
    }

    /**
     * The newest published map.
     *
     * @return it, or {@code null} on an empty directory
     * @throws SQLException on a database error
     */
    public Versioned latest() throws SQLException {
        try (Connection c = directory.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT version, logical_shards, ranges FROM shard_map_versions ORDER BY version DESC LIMIT 1");
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return null;
            }
            return new Versioned(rs.getLong(1), fromJson(rs.getInt(2), rs.getString(3)));
        }
    }

    /**
     * Publishes {@code next} as version {@code expected + 1}.
     *
     * @param expected the version {@code next} was derived from
     * @param next     the new map
     * @return {@code false} when another version {@code expected + 1} exists (a concurrent publisher won)
     * @throws SQLException on a database error
     */
    public boolean publish(long expected, ShardMap next) throws SQLException {
        try (Connection c = directory.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO shard_map_versions (version, logical_shards, ranges, published_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (version) DO NOTHING""")) {
            ps.setLong(1, expected + 1);
            ps.setInt(2, next.logicalShardCount());
            ps.setString(3, toJson(next));
            ps.setLong(4, System.currentTimeMillis());
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Records that {@code reader} applies {@code version} now.
     *
     * @param reader  a stable name of the service instance, e.g. {@code follow-check-service@host:pid}
     * @param version the version it routes by
     * @throws SQLException on a database error
     */
    public void report(String reader, long version) throws SQLException {
        try (Connection c = directory.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO shard_map_readers (reader, version, seen_at) VALUES (?, ?, ?)
                ON CONFLICT (reader) DO UPDATE SET version = EXCLUDED.version, seen_at = EXCLUDED.seen_at""")) {
            ps.setString(1, reader);
            ps.setLong(2, version);
            ps.setLong(3, System.currentTimeMillis());
            ps.executeUpdate();
        }
    }

    /**
     * Every reader that reported since {@code since}.
     *
     * @param since epoch milliseconds
     * @return the readers, by name
     * @throws SQLException on a database error
     */
    public List<Reader> readers(long since) throws SQLException {
        List<Reader> out = new ArrayList<>();
        try (Connection c = directory.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT reader, version, seen_at FROM shard_map_readers WHERE seen_at >= ? ORDER BY reader")) {
            ps.setLong(1, since);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Reader(rs.getString(1), rs.getLong(2), rs.getLong(3)));
                }
            }
        }
        return out;
    }

    /**
     * The map as stored: {@code [{"group":"following","first":0,"last":127,"database":..,"jdbcUrl":..},..]}.
     *
     * @param map a map
     * @return its ranges as JSON
     */
    public static String toJson(ShardMap map) {
        ArrayNode ranges = JSON.createArrayNode();
        for (ShardGroup group : ShardGroup.values()) {
            for (ShardRange r : map.ranges(group)) {
                ObjectNode node = ranges.addObject();
                node.put("group", group.name().toLowerCase());
                node.put("first", r.firstShard());
                node.put("last", r.lastShard());
                node.put("database", r.database());
                node.put("jdbcUrl", r.jdbcUrl());
            }
        }
        return JSON.writeValueAsString(ranges);
    }

    /**
     * The inverse of {@link #toJson}.
     *
     * @param logicalShards the map's logical shard count
     * @param json          its ranges
     * @return the validated map
     * @throws IllegalArgumentException when the ranges do not form a valid map
     */
    public static ShardMap fromJson(int logicalShards, String json) {
        List<ShardRange> ranges = new ArrayList<>();
        for (JsonNode node : JSON.readTree(json)) {
            ranges.add(new ShardRange(ShardGroup.valueOf(node.get("group").asString().toUpperCase()),
                    node.get("first").asInt(), node.get("last").asInt(), node.get("database").asString(),
                    node.get("jdbcUrl").asString()));
        }
        return ShardMap.of(logicalShards, ranges);
    }
}
