package dev.socialgraph.write;

import dev.socialgraph.cache.RedisMode;
import dev.socialgraph.common.keys.Topics;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the write service, bound from {@code graph.write.*} (DESIGN.md 3, 10). Every value can be
 * overridden by environment variables through relaxed binding, e.g. {@code GRAPH_WRITE_FOLLOWING_CAP}.
 *
 * @param followingCap the most users one user may follow (DESIGN.md 10: 10,000; the table's CHECK allows no more)
 * @param tokenSecret  HMAC secret of follow tokens, at least 32 bytes, shared with the check service; no default:
 *                     start-up fails naming {@code GRAPH_TOKEN_SECRET} without it
 * @param topic        the Kafka topic the outbox relay publishes to ({@code follow-events})
 * @param redis        the L1 cache connection
 * @param relay        the outbox relay
 * @param accounts     the account lifecycle's job runner (docs/account-lifecycle.md)
 */
@Validated
@ConfigurationProperties("graph.write")
public record WriteProperties(
        @DefaultValue("10000") @Min(1) @Max(10000) int followingCap,
        @NotBlank(message = "must be set (environment GRAPH_TOKEN_SECRET, shared with the check service)")
        @Size(min = 32, message = "must be at least 32 bytes (GRAPH_TOKEN_SECRET)") String tokenSecret,
        @DefaultValue(Topics.FOLLOW_EVENTS) @NotBlank String topic,
        @DefaultValue @Valid Redis redis,
        @DefaultValue @Valid Relay relay,
        @DefaultValue @Valid Accounts accounts) {

    /**
     * The Redis connection of the write-through to {@code following:{id}}.
     *
     * @param uri      Lettuce URI, e.g. {@code redis://127.0.0.1:6379/0}; in cluster mode the seed nodes, separated by
     *                 commas
     * @param mode     {@code standalone} (default) or {@code cluster}
     * @param timeout  bound on connecting and on each command; a dead Redis delays a write by at most this
     * @param cacheTtl time to live of a version floor written for an uncached user (DESIGN.md 2.3: 3600 s)
     */
    public record Redis(
            @DefaultValue("redis://127.0.0.1:6379") @NotBlank String uri,
            @DefaultValue("standalone") @NotNull RedisMode mode,
            @DefaultValue("250ms") @NotNull Duration timeout,
            @DefaultValue("3600s") @NotNull Duration cacheTtl) {
    }

    /**
     * The outbox relay: one active publisher per physical following database (DESIGN.md 3 step 5).
     *
     * @param enabled          whether this instance runs relays (every instance may; one per database is active)
     * @param bootstrapServers Kafka bootstrap servers
     * @param batchSize        outbox rows read and published per round
     * @param pollInterval     pause after a round that found less than a batch, unless a commit of this instance
     *                         nudges the relay sooner ({@code outbox.OutboxCommits}); and between attempts at the
     *                         lock while standing by
     * @param sendTimeout      bound on one batch's publication (also the producer's {@code max.block.ms})
     * @param retention        how long published rows are kept before they are pruned
     */
    public record Relay(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("127.0.0.1:9092") @NotBlank String bootstrapServers,
            @DefaultValue("500") @Min(1) @Max(10000) int batchSize,
            @DefaultValue("200ms") @NotNull Duration pollInterval,
            @DefaultValue("10s") @NotNull Duration sendTimeout,
            @DefaultValue("7d") @NotNull Duration retention) {
    }

    /**
     * The runner of account jobs (deactivate, reactivate, erase: docs/account-lifecycle.md, "The jobs"): it leases the
     * queued jobs of the following databases and walks the user's edges.
     *
     * @param enabled        whether this instance runs jobs (every instance may; leases keep one worker per job)
     * @param edgesPerSecond how many edges all jobs of this instance walk per second at most, so live writes keep
     *                       their latency; a batch is a quarter second of it (at most 500 edges)
     * @param lease          how long a job's lease holds without renewal: a worker killed mid-job is replaced after
     *                       this long; renewed after every batch
     * @param pollInterval   pause after a round over every following database that found no job
     * @param startDelay     how long a job waits after its state change (5 s), longer than the propagation bound
     *                       (2 s): the follows of the user committed before the change have reached the follower side
     *                       the job walks, and every reader's view of inactive accounts knows of the change (the
     *                       cdc-consumer then writes no event of an erased user back after the job removed it)
     */
    public record Accounts(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("1000") @Min(1) @Max(1000000) int edgesPerSecond,
            @DefaultValue("10s") @NotNull Duration lease,
            @DefaultValue("500ms") @NotNull Duration pollInterval,
            @DefaultValue("5s") @NotNull Duration startDelay) {

        /** Edges per batch: a quarter second at the rate limit, 1..500. */
        public int batchSize() {
            return Math.max(1, Math.min(500, edgesPerSecond / 4));
        }
    }
}
