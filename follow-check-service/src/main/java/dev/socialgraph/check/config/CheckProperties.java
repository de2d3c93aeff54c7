package dev.socialgraph.check.config;

import dev.socialgraph.cache.RedisMode;
import dev.socialgraph.common.keys.Topics;
import dev.socialgraph.common.shard.ShardAffinity;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.Duration;
import java.util.List;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the read path, {@code graph.check.*} (DESIGN.md 5 and 10). A bad value stops start-up naming it.
 *
 * @param redisUri            the L1 cache server, e.g. {@code redis://127.0.0.1:6379/0}; in cluster mode the seed
 *                            nodes, separated by commas
 * @param redisMode           {@code standalone} (default) or {@code cluster}
 * @param redisTimeout        per-command timeout; a dead Redis costs at most this before the shard answers, a hung
 *                            one only until its breaker opens ({@code graph.redis-breaker.*})
 * @param redisTrustDelay     how long after Redis's breaker closed again its sets still do not answer (the shard
 *                            does): the cdc-consumer's drops of the sets whose updates were skipped meanwhile land
 *                            within its retry interval (1 s) and its own breaker's open wait (1 s); default 3 s
 * @param cacheTtl            time to live of a {@code following:{id}} set filled from the shard (3600 s)
 * @param localCacheBudget    byte budget of the exact in-process following cache (16 bytes per cached edge, its id
 *                            and follow time, plus 144 per follower; ego-Twitter's 1.77M edges and 81K users take
 *                            about 40 MB)
 * @param admissionQueue      most followers waiting to be read from the shard into the in-process cache after a
 *                            miss answered by Redis; past it a miss is not queued (the next one tries again)
 * @param tokenSecret         HMAC secret of follow tokens, shared with the write service (>= 32 bytes; no default:
 *                            start-up fails naming {@code GRAPH_TOKEN_SECRET} without it)
 * @param tokenMaxAge         how long a follow token lets a check skip the local cache (5 s)
 * @param cursorKey           HMAC key of list cursors, shared by every check instance (>= 32 bytes; no default:
 *                            start-up fails naming {@code GRAPH_CURSOR_KEY} without it)
 * @param defaultLimit        list page size when {@code limit} is absent (50)
 * @param maxLimit            largest accepted {@code limit} (1000)
 * @param batchMax            most ids in one batch check (1000)
 * @param readBatchMax        most reads in one {@code POST /internal/v1/reads} (32, 1 to 1,000); start-up fails when
 *                            that many reads as the gateway may write them (at most
 *                            {@link dev.socialgraph.wire.ReadBatch#MAX_READ_BYTES} each) may not fit the body limit
 * @param suggestionsTtl      time to live of cached suggestions (15 min)
 * @param suggestionsFanOut   most recent followings followed per node of the depth-2 walk (500)
 * @param suggestionsMax      most suggestions computed and cached (1000)
 * @param blockingThreads     most threads for reads that may wait for Redis or a shard database (64); checks the
 *                            in-process layers answer never leave the server's I/O threads
 * @param blockingQueue       most reads waiting for one of those threads (10,000); past it a read is answered
 *                            503 with {@code Retry-After}
 * @param pairTimeout         longest wait for one pair of {@code POST /internal/v1/following/pairs} that memory cannot
 *                            answer, from when it is handed to the blocking threads (3 s, 1 ms to 4 s): past it that
 *                            pair alone is answered (503 {@code shard-unavailable} while its read is under way, the overload 503
 *                            while it waits for a thread) and the others get their answers, so a pair on a hung
 *                            database does not hold the gateway's whole batch until the store's own timeouts (5 s for
 *                            a statement, 10 s for a silent socket). 3 s, over the pool's 2 s connection timeout, so
 *                            that a database refusing connections gives its own 503 as the single check does, and
 *                            because 1 s failed cold reads of a freshly started fleet on a loaded 2-core machine. Under the gateway's 5 s response timeout,
 *                            which would answer every caller of the batch 504
 * @param bloom               the L0 edge bloom filter and its event feed
 * @param feed                the feed-lag guard of the in-process layers
 * @param affinity            which logical shards this instance owns (shard-affine reads)
 * @param accounts            the view of inactive accounts (docs/account-lifecycle.md)
 * @param followerSide        the in-process cache of followers' first pages and counts
 * @param changes             the change stream ({@code GET /internal/v1/changes})
 */
@Validated
@ConfigurationProperties("graph.check")
public record CheckProperties(
        @NotBlank @DefaultValue("redis://127.0.0.1:6379") String redisUri,
        @NotNull @DefaultValue("standalone") RedisMode redisMode,
        @NotNull @DefaultValue("100ms") Duration redisTimeout,
        @NotNull @DefaultValue("3s") Duration redisTrustDelay,
        @NotNull @DefaultValue("3600s") Duration cacheTtl,
        @NotNull @DefaultValue("256MB") DataSize localCacheBudget,
        @Min(1) @Max(1_000_000) @DefaultValue("4096") int admissionQueue,
        @NotBlank(message = "must be set (environment GRAPH_TOKEN_SECRET, the write service's follow-token secret)")
        @Size(min = 32, message = "must be at least 32 bytes (GRAPH_TOKEN_SECRET)") String tokenSecret,
        @NotNull @DefaultValue("5s") Duration tokenMaxAge,
        @NotBlank(message = "must be set (environment GRAPH_CURSOR_KEY, the same on every check instance)")
        @Size(min = 32, message = "must be at least 32 bytes (GRAPH_CURSOR_KEY)") String cursorKey,
        @Min(1) @Max(1000) @DefaultValue("50") int defaultLimit,
        @Min(1) @Max(10000) @DefaultValue("1000") int maxLimit,
        @Min(1) @Max(10000) @DefaultValue("1000") int batchMax,
        @Min(1) @Max(1000) @DefaultValue("32") int readBatchMax,
        @NotNull @DefaultValue("15m") Duration suggestionsTtl,
        @Min(1) @Max(10000) @DefaultValue("500") int suggestionsFanOut,
        @Min(1) @Max(10000) @DefaultValue("1000") int suggestionsMax,
        @Min(1) @Max(10000) @DefaultValue("64") int blockingThreads,
        @Min(1) @Max(1_000_000) @DefaultValue("10000") int blockingQueue,
        @NotNull @DurationMin(millis = 1) @DurationMax(seconds = 4) @DefaultValue("3s") Duration pairTimeout,
        @Valid @NotNull @DefaultValue Bloom bloom,
        @Valid @NotNull @DefaultValue Feed feed,
        @Valid @NotNull @DefaultValue Affinity affinity,
        @Valid @NotNull @DefaultValue Accounts accounts,
        @Valid @NotNull @DefaultValue FollowerSide followerSide,
        @Valid @NotNull @DefaultValue Changes changes) {

    /**
     * The change stream, {@code graph.check.changes.*} (docs/decisions/0063-the-change-stream.md).
     *
     * @param window             records of {@code follow-events} kept in memory per partition (20,000; about 250
     *                           bytes each, so 60 MB for the local topic's 12 partitions): watchers whose cursor
     *                           is within it are served from memory, older cursors from the topic
     * @param maxScan            most records one read looks at (10,000), whatever its filter passes: a watcher with a
     *                           narrow filter gets its cursor moved past them and reads on, bounded work per read
     * @param catchUpReaders     most reads of the topic at once (4): each holds a Kafka consumer while it reads
     * @param catchUpTimeout     longest read of the topic for one answer (2 s): a hung broker answers what came
     * @param checkpointInterval most time between two events of a server-sent stream (5 s): a {@code checkpoint}
     *                           carries the cursor when the filter passes nothing
     * @param retention          how far back the topic keeps events, as the 410 for an older cursor states it (7 d,
     *                           the topic's {@code retention.ms} in DESIGN.md 2.4)
     */
    public record Changes(
            @Min(1) @Max(10_000_000) @DefaultValue("20000") int window,
            @Min(1000) @Max(1_000_000) @DefaultValue("10000") int maxScan,
            @Min(1) @Max(64) @DefaultValue("4") int catchUpReaders,
            @NotNull @DurationMin(millis = 100) @DurationMax(seconds = 10) @DefaultValue("2s") Duration catchUpTimeout,
            @NotNull @DurationMin(millis = 100) @DurationMax(seconds = 60) @DefaultValue("5s") Duration checkpointInterval,
            @NotNull @DefaultValue("7d") Duration retention) {
    }

    /**
     * The in-process cache of the follower side, {@code graph.check.follower-side.*}
     * (docs/decisions/0059-lists-and-counts-from-memory.md).
     *
     * @param enabled           {@code false} reads every followers page and follower count from the shard
     * @param windowSize        followers held per cached followee, newest first: the largest first page served from
     *                          memory (100, the largest page a product asks for)
     * @param deepWindowSize    followers held for a followee once a walk of its list (page after page with the
     *                          cursor) reached the end of its window: 5,000, a hundred pages of 50 (80 KB, weighed in
     *                          the budget); at least {@code windowSize}
     * @param windowBudget      byte budget of the windows (16 bytes per follower held plus 136 per followee: 64 MB
     *                          hold about 38,000 full windows)
     * @param countEntries      most follower counts held (88 bytes each)
     * @param staleBound        how long after a followee's follow event its old entries are still served while the
     *                          cdc-consumer applies the event (1 s; the design allows other readers 2 s)
     * @param windowMaxAge      how long a window lives at most (10 min): a bound for what no event announces, though
     *                          nothing is known to need it (inactive users are taken out of a page, and of a count
     *                          made from a whole window, when it is read)
     * @param countMaxAge       how long a count lives at most (10 min, as a window): a bound for what no event
     *                          announces (a reconciler's repair); follow events and the account jobs' recounts drop
     *                          a count when it moves
     * @param cdcGroup          the cdc-consumer's consumer group, whose committed offsets say which events the
     *                          follower side holds
     * @param watermarkInterval how often those offsets are read (100 ms)
     */
    public record FollowerSide(
            @DefaultValue("true") boolean enabled,
            @Min(1) @Max(1000) @DefaultValue("100") int windowSize,
            @Min(1) @Max(100_000) @DefaultValue("5000") int deepWindowSize,
            @NotNull @DefaultValue("64MB") DataSize windowBudget,
            @Min(1) @Max(100_000_000) @DefaultValue("200000") long countEntries,
            @NotNull @DurationMin(millis = 1) @DurationMax(seconds = 2) @DefaultValue("1s") Duration staleBound,
            @NotNull @DurationMin(millis = 100) @DefaultValue("10m") Duration windowMaxAge,
            @NotNull @DurationMin(millis = 100) @DefaultValue("10m") Duration countMaxAge,
            @NotBlank @DefaultValue("cdc-consumer") String cdcGroup,
            @NotNull @DurationMin(millis = 10) @DefaultValue("100ms") Duration watermarkInterval) {
    }


    /**
     * The in-process view of deactivated and erased accounts, {@code graph.check.accounts.*}
     * ({@link dev.socialgraph.store.account.AccountStateFeed}).
     *
     * @param enabled      whether reads consult the view (default {@code true}); {@code false} only to measure the
     *                     view's cost, since inactive users are then visible
     * @param pollInterval time between polls of the state rows (250 ms): a state change is visible within about it
     * @param overlap      how far a poll looks back past the previous one (5 s), longer than any state change's
     *                     transaction
     */
    public record Accounts(
            @DefaultValue("true") boolean enabled,
            @NotNull @DefaultValue("250ms") Duration pollInterval,
            @NotNull @DefaultValue("5s") Duration overlap) {
    }

    /**
     * Shard-affine reads, {@code graph.check.affinity.*}: the gateway sends every request about follower
     * {@code a} to the instance that owns {@code a}'s logical shard by rendezvous hashing over {@code instances}
     * ({@link dev.socialgraph.common.shard.ShardAffinity}), so this instance's bloom filter holds only the edges of
     * followers in its own shards. The gateway must list the same ids.
     *
     * @param instanceId this instance's id, one of {@code instances} when that is set (default: env
     *                   {@code HOSTNAME}, the pod name of a StatefulSet; {@code local} without one); answered in
     *                   the {@code X-Served-By} header
     * @param instances  the ids of every check instance; empty (the default): this instance owns every logical
     *                   shard
     * @throws IllegalArgumentException when {@code instances} has blank or repeated ids or lacks {@code instanceId}
     */
    public record Affinity(
            @NotBlank @DefaultValue("local") String instanceId,
            @NotNull @DefaultValue List<String> instances) {

        public Affinity {
            instances = List.copyOf(instances);
            if (!instances.isEmpty()) {
                ShardAffinity.validate(instances);
                if (instanceId == null || !instances.contains(instanceId)) {
                    throw new IllegalArgumentException("graph.check.affinity.instance-id '" + instanceId
                            + "' is not one of graph.check.affinity.instances " + instances);
                }
            }
        }
    }

    /**
     * The feed-lag guard (DESIGN.md 5 step 3, 7), {@code graph.check.feed.*}: the bloom filter and the in-process
     * following cache answer only while this instance has applied every follow committed more than {@code maxLag}
     * ago ({@link dev.socialgraph.check.feed.FeedLag}).
     *
     * @param maxLag        the propagation bound (2 s, DESIGN.md 1); past it checks answer from Redis or the shards
     * @param probeInterval how often the outboxes and the partitions' end offsets are probed; the lag seen in a
     *                      healthy fleet is about this plus the relay's poll interval
     * @param probeTimeout  longest wait for one end-offsets request (a hung broker)
     */
    public record Feed(
            @NotNull @DefaultValue("2s") Duration maxLag,
            @NotNull @DefaultValue("250ms") Duration probeInterval,
            @NotNull @DefaultValue("1s") Duration probeTimeout) {

        public Feed {
            if (maxLag != null && probeInterval != null && probeInterval.compareTo(maxLag) >= 0) {
                throw new IllegalArgumentException("graph.check.feed.probe-interval (" + probeInterval
                        + ") must be shorter than graph.check.feed.max-lag (" + maxLag + ")");
            }
        }
    }

    /**
     * The L0 bloom filter over follow edges (DESIGN.md 5 step 1), {@code graph.check.bloom.*}.
     *
     * @param enabled              build and consult it
     * @param fpp                  target false-positive probability (0.001: ~14.4 bits per edge)
     * @param growth               headroom over the edge count found at start-up, for follows until the rebuild
     * @param minimumExpectedEdges smallest size, so that a young deployment does not saturate a tiny filter
     * @param kafkaBootstrap       brokers of {@code follow-events}
     * @param topic                the event topic
     * @param groupPrefix          consumer group prefix; each instance adds a random suffix (its own group)
     * @param startTimeout         how long start-up waits for Kafka before leaving the filter off
     * @param snapshotDir          directory of bloom snapshots (graph-bloom format) written by the reconciler; the
     *                             newest valid one covering every shard is loaded at start-up and by
     *                             {@code POST /internal/v1/bloom/swap}; none there: the shards are scanned
     * @param replayTimeout        longest replay of {@code follow-events} from a snapshot's offsets; past it the
     *                             snapshot is abandoned (at start-up: the shards are scanned instead)
     * @param swapCheckInterval    how often the directory is checked for a snapshot newer than the live filter's,
     *                             which is then swapped in; {@code 0s} turns the check off
     */
    public record Bloom(
            @DefaultValue("true") boolean enabled,
            @DecimalMin("0.0000001") @DecimalMax("0.5") @DefaultValue("0.001") double fpp,
            @DecimalMin("1.0") @DecimalMax("100.0") @DefaultValue("1.5") double growth,
            @Min(1) @DefaultValue("1000000") long minimumExpectedEdges,
            @NotBlank @DefaultValue("127.0.0.1:9092") String kafkaBootstrap,
            @NotBlank @DefaultValue(Topics.FOLLOW_EVENTS) String topic,
            @NotBlank @DefaultValue("follow-check") String groupPrefix,
            @NotNull @DefaultValue("10s") Duration startTimeout,
            @NotBlank @DefaultValue("/var/tmp/graph-bloom-snapshots") String snapshotDir,
            @NotNull @DefaultValue("5m") Duration replayTimeout,
            @NotNull @DefaultValue("10m") Duration swapCheckInterval) {
    }
}
