package dev.socialgraph.reconciler.config;

import dev.socialgraph.common.keys.Topics;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the reconciler, bound from {@code graph.reconciler.*} (DESIGN.md 7: repair divergence older than
 * 30 s). Every value can be overridden by environment variables, e.g. {@code GRAPH_RECONCILER_SCAN_RATELIMIT}.
 *
 * @param repairThreshold an edge whose follow (or unfollow) is younger than this is still in flight through
 *                        Kafka and the cdc-consumer, and is never repaired; default 30 s
 * @param scan            full scans
 * @param sampling        recent-edge sampling from the outbox
 * @param admin           the admin endpoints
 * @param bloom           bloom filter snapshots for the check service
 */
@Validated
@ConfigurationProperties("graph.reconciler")
public record ReconcilerProperties(
        @DefaultValue("30s") @NotNull Duration repairThreshold,
        @DefaultValue @NotNull @Valid Scan scan,
        @DefaultValue @NotNull @Valid Sampling sampling,
        @DefaultValue @NotNull @Valid Admin admin,
        @DefaultValue @NotNull @Valid Bloom bloom) {

    /**
     * Full scans of the following group against the follower group.
     *
     * @param pageSize          rows read per query, and per progress checkpoint
     * @param rateLimit         rows per second read from the shards, both groups together (Guava {@code RateLimiter});
     *                          bounds the load a scan puts on production databases
     * @param scheduled         whether a full scan of every logical shard is started every {@code scheduledInterval}
     *                          (default on: divergence older than the outbox's retention is found by nothing else)
     * @param scheduledInterval time between the start of scheduled full scans, counted from the last full scan's
     *                          start (kept in {@code reconciler_scan}, so restarts do not postpone it); a scan still
     *                          running when the next is due makes the schedule skip that one
     * @param retryDelay        pause before a scan stopped by an unavailable database resumes from its checkpoint
     */
    public record Scan(
            @DefaultValue("500") @Min(1) @Max(10_000) int pageSize,
            @DefaultValue("5000") @DecimalMin(value = "0.1") double rateLimit,
            @DefaultValue("true") boolean scheduled,
            @DefaultValue("24h") @NotNull Duration scheduledInterval,
            @DefaultValue("10s") @NotNull Duration retryDelay) {
    }

    /**
     * Sampling of recent edges: outbox rows older than the repair threshold are checked on the follower side.
     *
     * @param enabled   whether the sampler runs on its schedule
     * @param interval  time between two sampling rounds
     * @param batchSize   outbox rows read per query
     * @param maxPerRound outbox rows checked per following database per round at most; a round reads batches until
     *                    it reaches a row in flight or this many (the sampler keeps up with this many writes per
     *                    database per {@code interval})
     */
    public record Sampling(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("10s") @NotNull Duration interval,
            @DefaultValue("500") @Min(1) @Max(10_000) int batchSize,
            @DefaultValue("20000") @Min(1) @Max(10_000_000) int maxPerRound) {
    }

    /**
     * Admin endpoints ({@code /admin/**} on the service port).
     *
     * @param enabled      whether the endpoints are served
     * @param scanThreads  scans that may run at the same time; more requests queue
     */
    public record Admin(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("1") @Min(1) @Max(16) int scanThreads) {
    }

    /**
     * Bloom snapshots (DESIGN.md 5 step 1): the edge filter of a logical shard range, with the {@code follow-events}
     * end offsets read before the shards were scanned, in graph-bloom's format.
     *
     * @param scheduled            build a snapshot of every logical shard every {@code interval}
     * @param interval             time between scheduled builds (6 h)
     * @param snapshotDir          where snapshots are written; the check service's {@code graph.check.bloom.snapshot-dir}
     * @param keep                 newest snapshots kept per shard range
     * @param fpp                  target false-positive probability (0.001: ~14.4 bits per edge)
     * @param growth               headroom over the edge count, for follows until the next rebuild
     * @param minimumExpectedEdges smallest filter size
     * @param kafkaBootstrap       brokers of {@code follow-events}
     * @param topic                the event topic whose offsets a snapshot records
     * @param kafkaTimeout         how long reading the end offsets may take
     */
    public record Bloom(
            @DefaultValue("true") boolean scheduled,
            @DefaultValue("6h") @NotNull Duration interval,
            @DefaultValue("/var/tmp/graph-bloom-snapshots") @NotBlank String snapshotDir,
            @DefaultValue("3") @Min(1) @Max(1000) int keep,
            @DefaultValue("0.001") @DecimalMin("0.0000001") @DecimalMax("0.5") double fpp,
            @DefaultValue("1.5") @DecimalMin("1.0") @DecimalMax("100.0") double growth,
            @DefaultValue("1000000") @Min(1) long minimumExpectedEdges,
            @DefaultValue("127.0.0.1:9092") @NotBlank String kafkaBootstrap,
            @DefaultValue(Topics.FOLLOW_EVENTS) @NotBlank String topic,
            @DefaultValue("30s") @NotNull Duration kafkaTimeout) {
    }
}
