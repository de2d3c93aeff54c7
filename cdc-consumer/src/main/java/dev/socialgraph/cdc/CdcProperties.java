package dev.socialgraph.cdc;

import dev.socialgraph.cache.RedisMode;
import dev.socialgraph.common.keys.Topics;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the cdc-consumer, bound from {@code graph.cdc.*} (DESIGN.md 4, 10). Every value can be overridden by
 * environment variables through relaxed binding, e.g. {@code GRAPH_CDC_TOPIC} or {@code GRAPH_CDC_REDIS_URI}.
 *
 * <p>The Kafka listener reads {@code topic}, {@code group-id}, {@code max-poll-records} and {@code concurrency}
 * through property placeholders with the same defaults as below.
 *
 * @param topic              the topic of follow events, keyed by followee id
 * @param dltTopic           where poison records go, with the error in their headers
 * @param groupId            the consumer group (one per follower side, not per instance)
 * @param concurrency        listener threads per instance; each owns some partitions
 * @param maxPollRecords     records per poll, i.e. the upper bound of a batch
 * @param celebrityThreshold a followee whose follower count reaches this many moves to celebrity pages
 * @param pageSize           followers per celebrity page
 * @param redisUri           the Redis of the {@code following:{id}} cache, e.g. {@code redis://127.0.0.1:6379}; in
 *                           cluster mode the seed nodes, separated by commas
 * @param redisMode          {@code standalone} (default) or {@code cluster}
 * @param redisTimeout       bound of one Redis command; a slower command counts as failed (its set is dropped
 *                           instead, or the batch is retried)
 * @param cacheTtl           time to live of the version floor the cache script records for an uncached set
 * @param retryBackoff       pause before a failed batch (Redis or dead-letter topic error), or the events of a
 *                           follower database that is down, are first retried; doubled on each further failure
 * @param retryBackoffMax    longest pause between retries of a failed batch, and of a follower database's events
 *                           while the database is down
 * @param applyAttempts      attempts at applying an event that the follower side refuses for a reason other than
 *                           an outage (a constraint, a row the adjacency rules refuse) before it goes to the
 *                           dead-letter topic; the reconciler repairs its followee from the following side
 * @param maxParkedEvents    events held in memory for follower databases that are down; above this many the
 *                           consumer's partitions are paused until half of them are applied
 */
@Validated
@ConfigurationProperties("graph.cdc")
public record CdcProperties(
        @DefaultValue(Topics.FOLLOW_EVENTS) @NotBlank String topic,
        @DefaultValue(Topics.FOLLOW_EVENTS_DLT) @NotBlank String dltTopic,
        @DefaultValue("cdc-consumer") @NotBlank String groupId,
        @DefaultValue("1") @Min(1) @Max(256) int concurrency,
        @DefaultValue("500") @Min(1) @Max(10_000) int maxPollRecords,
        @DefaultValue("1000000") @Min(2) long celebrityThreshold,
        @DefaultValue("100000") @Min(1) @Max(1_000_000) int pageSize,
        @DefaultValue("redis://127.0.0.1:6379") @NotBlank String redisUri,
        @DefaultValue("standalone") @NotNull RedisMode redisMode,
        @DefaultValue("500ms") @NotNull Duration redisTimeout,
        @DefaultValue("3600s") @NotNull Duration cacheTtl,
        @DefaultValue("1s") @NotNull Duration retryBackoff,
        @DefaultValue("10s") @NotNull Duration retryBackoffMax,
        @DefaultValue("3") @Min(1) @Max(100) int applyAttempts,
        @DefaultValue("100000") @Min(1) int maxParkedEvents) {
}
