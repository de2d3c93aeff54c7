package dev.socialgraph.reconciler;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
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
 */
@Validated
@ConfigurationProperties("graph.reconciler")
public record ReconcilerProperties(
        @DefaultValue("30s") @NotNull Duration repairThreshold,
        @DefaultValue @NotNull @Valid Scan scan,
        @DefaultValue @NotNull @Valid Sampling sampling,
        @DefaultValue @NotNull @Valid Admin admin) {

    /**
     * Full scans of the following group against the follower group.
     *
     * @param pageSize          rows read per query, and per progress checkpoint
     * @param rateLimit         rows per second read from the shards, both groups together (Guava {@code RateLimiter});
     *                          bounds the load a scan puts on production databases
     * @param scheduled         whether a full scan of every logical shard is started every {@code scheduledInterval}
     * @param scheduledInterval time between the start of scheduled full scans
     * @param retryDelay        pause before a scan stopped by an unavailable database resumes from its checkpoint
     */
    public record Scan(
            @DefaultValue("500") @Min(1) @Max(10_000) int pageSize,
            @DefaultValue("5000") @DecimalMin(value = "0.1") double rateLimit,
            @DefaultValue("false") boolean scheduled,
            @DefaultValue("24h") @NotNull Duration scheduledInterval,
            @DefaultValue("10s") @NotNull Duration retryDelay) {
    }

    /**
     * Sampling of recent edges: outbox rows older than the repair threshold are checked on the follower side.
     *
     * @param enabled   whether the sampler runs on its schedule
     * @param interval  time between two sampling rounds
     * @param batchSize outbox rows read per following database per round
     */
    public record Sampling(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("10s") @NotNull Duration interval,
            @DefaultValue("500") @Min(1) @Max(10_000) int batchSize) {
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
}
