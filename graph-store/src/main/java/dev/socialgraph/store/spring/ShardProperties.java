package dev.socialgraph.store.spring;

import dev.socialgraph.common.breaker.BreakerSettings;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.shard.DatabaseBreaker;
import dev.socialgraph.store.shard.ShardDataSources;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The shard map and pool settings, bound from {@code graph.shards.*} (DESIGN.md 2.1, 10). Every value can be
 * overridden by environment variables through relaxed binding, e.g. {@code GRAPH_SHARDS_USERNAME} or
 * {@code GRAPH_SHARDS_RANGES_0_JDBCURL}.
 *
 * @param logicalShardCount  logical shards, fixed for a deployment's life (default 256)
 * @param ranges             the ranges of both groups; must cover {@code 0..logicalShardCount-1} once per group
 * @param username           database user for every shard database
 * @param password           database password, may be empty
 * @param poolSize           HikariCP connections per physical database
 * @param connectionTimeout  how long a request waits for a pooled connection before it fails with 503 (HikariCP)
 * @param connectTimeout     how long opening a database connection may take (driver {@code connectTimeout}; whole
 *                           seconds, 0 = the driver's 10 s)
 * @param socketTimeout      how long the driver waits for any answer of a database that sends nothing (a hung host
 *                           or network) before it drops the connection (milliseconds precision: the driver's
 *                           {@code socketTimeout} gets it rounded up to whole seconds, each connection handed out the
 *                           exact value; 0 = forever); longer than {@code statementTimeout}
 * @param statementTimeout   the sessions' {@code statement_timeout}: the server cancels a statement, lock waits
 *                           included, after this long (0 = never); the request then fails with 503
 * @param migrateOnStartup   apply the Flyway shard schema to every database at start-up (the write service owns it)
 * @param createDatabases    create missing databases first (local and test topologies only)
 * @param directory          the versioned shard map's database, if shards may move while services run
 * @param breaker            each database's circuit breaker ({@code DatabaseBreaker}): after its first timeouts a
 *                           hung database's users get 503 at once, and it is probed until it answers
 */
@Validated
@ConfigurationProperties("graph.shards")
public record ShardProperties(
        @DefaultValue("256") @Min(1) @Max(65536) int logicalShardCount,
        @NotEmpty List<@Valid Range> ranges,
        @DefaultValue("postgres") @NotBlank String username,
        @DefaultValue("") String password,
        @DefaultValue("10") @Min(1) @Max(500) int poolSize,
        @DefaultValue("2s") @NotNull Duration connectionTimeout,
        @DefaultValue("2s") @NotNull Duration connectTimeout,
        @DefaultValue("10s") @NotNull Duration socketTimeout,
        @DefaultValue("5s") @NotNull Duration statementTimeout,
        @DefaultValue("false") boolean migrateOnStartup,
        @DefaultValue("false") boolean createDatabases,
        @DefaultValue @Valid Directory directory,
        @DefaultValue @Valid Breaker breaker) {

    /**
     * Each shard database's circuit breaker, {@code graph.shards.breaker.*}.
     *
     * @param enabled              {@code false}: no breaker (every caller waits for the pool)
     * @param failureRateThreshold percent of failed waits (no connection in time, a socket timeout, a lost connection)
     *                             among the latest that opens it
     * @param window               how many of the latest outcomes count
     * @param minimumCalls         outcomes needed before it may open
     * @param openWait             how long it stays open before probing
     * @param halfOpenCalls        callers let through as probes
     */
    public record Breaker(@DefaultValue("true") boolean enabled,
                          @DefaultValue("50") @Min(1) @Max(100) int failureRateThreshold,
                          @DefaultValue("20") @Min(1) int window,
                          @DefaultValue("5") @Min(1) int minimumCalls,
                          @DefaultValue("1s") @NotNull Duration openWait,
                          @DefaultValue("1") @Min(1) int halfOpenCalls) {

        /** @return the settings for {@code DatabaseBreaker}; throws naming a value out of range */
        public BreakerSettings settings() {
            return new BreakerSettings(enabled, failureRateThreshold, window, minimumCalls, openWait,
                    halfOpenCalls);
        }
    }

    /**
     * The shard directory: where the versioned shard map lives when shards can move (docs/shard-moves.md).
     *
     * @param jdbcUrl      JDBC URL of the directory database; empty (the default) routes by the configured map for the
     *                     service's whole life
     * @param pollInterval how often the newest map is read (a database that reports a move makes it read at once)
     */
    public record Directory(@DefaultValue("") String jdbcUrl, @DefaultValue("1s") @NotNull Duration pollInterval) {

        /** @return whether a directory is configured */
        public boolean enabled() {
            return jdbcUrl != null && !jdbcUrl.isBlank();
        }
    }

    /**
     * One range of the shard map.
     *
     * @param group      {@code following} or {@code follower}
     * @param firstShard first logical shard, inclusive
     * @param lastShard  last logical shard, inclusive
     * @param database   short name of the physical database (logs, metric tags)
     * @param jdbcUrl    JDBC URL of the physical database
     */
    public record Range(@NotNull ShardGroup group, @Min(0) int firstShard, @Min(0) int lastShard,
                        @NotBlank String database, @NotBlank String jdbcUrl) {
    }

    /** The validated shard map; throws {@link IllegalArgumentException} naming a gap or overlap. */
    public ShardMap toShardMap() {
        return ShardMap.of(logicalShardCount, ranges.stream()
                .map(r -> new ShardRange(r.group(), r.firstShard(), r.lastShard(), r.database(), r.jdbcUrl()))
                .toList());
    }

    /** Pool settings for {@link ShardDataSources}. */
    public ShardDataSources.PoolSettings poolSettings(String poolNamePrefix) {
        return new ShardDataSources.PoolSettings(username, password, poolSize, connectionTimeout, poolNamePrefix,
                connectTimeout, socketTimeout, statementTimeout);
    }
}
