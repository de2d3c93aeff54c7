package dev.socialgraph.pipeline;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.e2e.Pipeline;
import dev.socialgraph.e2e.WriteClient;
import dev.socialgraph.localruntime.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * The write pipeline's benchmark program (not a test): starts e2e's {@link Pipeline} (follow-write-service and
 * cdc-consumer each in its own JVM from its exec jar, on test-support's servers: embedded by default, external
 * through {@code GRAPH_TEST_POSTGRES_URL}, {@code GRAPH_TEST_REDIS_URL}, {@code GRAPH_TEST_KAFKA_BOOTSTRAP}) and
 * measures:
 *
 * <ol>
 *   <li><b>ack → visible</b>: follows at a fixed rate, each to a fresh followee; the time from the write
 *       service's 200 to the edge being in the followee's follower row. One thread per follower database
 *       polls every pending followee in one query on a dedicated connection, pausing {@value #POLL_PAUSE_MICROS}
 *       µs between queries, so a sample is late by at most one query plus that pause. With
 *       {@code followee-followers} N above 0 each followee's follower row is written beforehand with N followers
 *       of its own (straight into the follower database, no events), so that every follow rewrites a row of N + 1
 *       entries as a follow of a popular ego-Twitter user does; the default 0 measures rows of one entry.</li>
 *   <li><b>sustained follows/s</b> of the one write-service instance: N closed-loop HTTP clients (one request
 *       in flight each) follow random pairs of 1..{@value #USERS} for a warm-up, then for the measured
 *       duration; throughput is the requests completed in the measured window over its length, latency is
 *       per request, client-side.</li>
 * </ol>
 *
 * <p>Options ({@code --name=value}): {@code clients} (comma-separated, default {@code 8,32}), {@code warmup}
 * (seconds, 5), {@code duration} (seconds, 20), {@code rate} (follows/s of the latency phase, 50),
 * {@code samples} (measured latency samples, 500), {@code relay-poll-interval} (ms, 200: the service default),
 * {@code followee-followers} (followers each followee has before its follow, 0; keep it below the celebrity
 * threshold, 1,000,000 here).
 * The clients and, by default, the Kafka broker run in this JVM, the two services in theirs; all share the
 * machine's CPUs. Run it from the {@code support/benchmarks} directory with {@code target/classpath.txt} (the
 * services' logs go to its {@code target/}); {@link Pipeline} finds the services' jars in the repository root's
 * {@code <module>/target}. Prints markdown tables on standard output; logs go to standard error through
 * slf4j-simple, the module's one binding, at WARN except this project's INFO (a {@code -Dorg.slf4j.simpleLogger.*}
 * on the command line wins).
 */
public final class PipelineBenchmark {

    static final long USERS = 1_000_000;
    static final long POLL_PAUSE_MICROS = 500;

    private PipelineBenchmark() {
    }

    /** Runs both phases and prints the tables; see the class comment for the options. */
    public static void main(String[] args) throws Exception {
        quietLogging();
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("options are --name=value, was " + arg);
            }
            options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        int[] clients = Arrays.stream(options.getOrDefault("clients", "8,32").split(","))
                .mapToInt(Integer::parseInt).toArray();
        int warmup = Integer.parseInt(options.getOrDefault("warmup", "5"));
        int duration = Integer.parseInt(options.getOrDefault("duration", "20"));
        int rate = Integer.parseInt(options.getOrDefault("rate", "50"));
        int samples = Integer.parseInt(options.getOrDefault("samples", "500"));
        long relayPoll = Long.parseLong(options.getOrDefault("relay-poll-interval", "200"));
        int followeeFollowers = Integer.parseInt(options.getOrDefault("followee-followers", "0"));

        Path root = RepositoryRoot.find();
        if (!Files.isDirectory(root.resolve("follow-write-service").resolve("target"))) {
            throw new IllegalStateException("package the services first (README): their jars are looked up in "
                    + root.resolve("<module>").resolve("target") + ", not found");
        }
        Pipeline.Settings settings = Pipeline.Settings.defaults("bench_pipeline")
                .withRelayPollInterval(Duration.ofMillis(relayPoll));
        try (Pipeline pipeline = Pipeline.start(settings)) {
            WriteClient client = new WriteClient(pipeline.writePort(), pipeline.serviceToken());
            StringBuilder out = new StringBuilder();
            out.append(String.format(Locale.ROOT, "%n## Write pipeline (cores: %d, relay poll interval %d ms)%n%n",
                    Runtime.getRuntime().availableProcessors(), relayPoll));

            // Latency first, while the consumer has no backlog; a short unmeasured run warms both services up.
            visibility(pipeline, client, rate, Math.max(50, samples / 5), 0, followeeFollowers);
            Histogram visible = visibility(pipeline, client, rate, samples, 1_000_000_000L, followeeFollowers);
            out.append("ack → visible on the follower side (follows at ").append(rate).append("/s, ")
                    .append(samples).append(" samples, fresh followee each with ").append(followeeFollowers)
                    .append(" followers before; ms):\n\n")
                    .append("| p50 | p90 | p99 | max |\n|---:|---:|---:|---:|\n")
                    .append(String.format(Locale.ROOT, "| %.1f | %.1f | %.1f | %.1f |%n%n",
                            ms(visible.getValueAtPercentile(50)), ms(visible.getValueAtPercentile(90)),
                            ms(visible.getValueAtPercentile(99)), ms(visible.getMaxValue())));

            out.append("Sustained follows/s of one write-service instance (closed loop, ").append(warmup)
                    .append(" s warm-up, ").append(duration).append(" s measured; latency ms):\n\n")
                    .append("| clients | follows/s | p50 | p90 | p99 | p99.9 | max | errors |\n")
                    .append("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (int c : clients) {
                out.append(throughput(client, c, warmup, duration));
            }
            System.out.println(out);
        }
        System.exit(0); // the shared servers stop in their shutdown hooks
    }

    /**
     * Lifecycle lines only: the in-process Kafka broker and the pools log every step at INFO. Set before the first
     * logger exists (slf4j-simple reads its settings once); the load generator in this module keeps its defaults.
     */
    private static void quietLogging() {
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.dev.socialgraph", "info");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    }

    private static double ms(long nanos) {
        return nanos / 1_000_000.0;
    }

    /** One closed-loop run; returns its table row. */
    static String throughput(WriteClient client, int clients, int warmupSeconds, int durationSeconds)
            throws InterruptedException {
        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long end = measureFrom + TimeUnit.SECONDS.toNanos(durationSeconds);
        Histogram[] latencies = new Histogram[clients];
        long[] completed = new long[clients];
        AtomicLong errors = new AtomicLong();
        CountDownLatch done = new CountDownLatch(clients);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        for (int t = 0; t < clients; t++) {
            int thread = t;
            latencies[t] = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            pool.execute(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                try {
                    long now;
                    while ((now = System.nanoTime()) < end) {
                        long follower = random.nextLong(1, USERS + 1);
                        long followee = random.nextLong(1, USERS + 1);
                        if (follower == followee) {
                            continue;
                        }
                        int status;
                        try {
                            status = client.follow(follower, followee).status();
                        } catch (RuntimeException e) {
                            status = -1; // counted as an error, like a non-200 reply
                        }
                        long after = System.nanoTime();
                        if (now >= measureFrom && after <= end) {
                            latencies[thread].recordValue(
                                    Math.min(after - now, latencies[thread].getHighestTrackableValue()));
                            completed[thread]++;
                            if (status != 200) {
                                errors.incrementAndGet();
                            }
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
        pool.shutdown();
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        long total = 0;
        for (int t = 0; t < clients; t++) {
            all.add(latencies[t]);
            total += completed[t];
        }
        return String.format(Locale.ROOT, "| %d | %,.0f | %.1f | %.1f | %.1f | %.1f | %.1f | %d |%n", clients,
                total / (double) durationSeconds, ms(all.getValueAtPercentile(50)), ms(all.getValueAtPercentile(90)),
                ms(all.getValueAtPercentile(99)), ms(all.getValueAtPercentile(99.9)), ms(all.getMaxValue()),
                errors.get());
    }

    /**
     * Follows {@code count} fresh (follower, followee) pairs at {@code rate}/s and measures ack → visible.
     *
     * @param idOffset          keeps the ids of separate runs apart
     * @param followeeFollowers followers each followee's row holds before its follow ({@link #seed})
     */
    static Histogram visibility(Pipeline pipeline, WriteClient client, int rate, int count, long idOffset,
                                int followeeFollowers) throws InterruptedException {
        Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
        long base = 2_000_000_000L + idOffset;
        if (followeeFollowers > 0) {
            seed(pipeline, base, count, followeeFollowers);
        }
        Map<DataSource, ConcurrentHashMap<Long, Long>> pendingByDatabase = new HashMap<>();
        for (DataSource ds : pipeline.dataSources().all().values()) {
            pendingByDatabase.put(ds, new ConcurrentHashMap<>());
        }
        AtomicLong remaining = new AtomicLong(count);
        List<Thread> pollers = new ArrayList<>();
        for (var entry : pendingByDatabase.entrySet()) {
            Thread poller = Thread.ofPlatform().name("visibility-poller").daemon(true).start(
                    () -> poll(entry.getKey(), entry.getValue(), followeeFollowers, histogram, remaining));
            pollers.add(poller);
        }
        ExecutorService senders = Executors.newFixedThreadPool(8);
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long next = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long follower = base + 2L * i;
            long followee = base + 2L * i + 1;
            LockSupport.parkNanos(next - System.nanoTime());
            next += interval;
            ConcurrentHashMap<Long, Long> pending =
                    pendingByDatabase.get(pipeline.dataSources().forUser(ShardGroup.FOLLOWER, followee));
            senders.execute(() -> {
                WriteClient.Reply reply = client.follow(follower, followee);
                if (reply.status() != 200) {
                    throw new IllegalStateException("follow failed: " + reply);
                }
                pending.put(followee, System.nanoTime());
            });
        }
        senders.shutdown();
        senders.awaitTermination(1, TimeUnit.MINUTES);
        for (Thread poller : pollers) {
            poller.join(TimeUnit.MINUTES.toMillis(2));
        }
        if (remaining.get() > 0) {
            throw new IllegalStateException(remaining.get() + " follows never became visible within 2 minutes");
        }
        return histogram;
    }

    private static final String VISIBLE = """
            SELECT followee_id FROM follower_adjacency WHERE followee_id = ANY(?) AND relation = 0 AND follower_count > ?
            """;

    /**
     * Rows of {@code followers} followers each, for the followees {@code base + 2i + 1} of {@code count} samples: ids
     * {@code 10,000,000,000 + j * 9,973 + i} (distinct in a row, never one of the samples' followers) followed at
     * ascending times years before now, so each sample's follow appends to its row. One statement per follower
     * database and 1,000 followees; the followers' own following rows are left out (nothing here reads them).
     */
    private static final String SEED = """
            INSERT INTO follower_adjacency (followee_id, relation, follower_ids, followed_at, follower_count, version)
            SELECT f, 0,
                   ARRAY(SELECT 10000000000 + j::bigint * 9973 + (f - ?) / 2 FROM generate_series(1, ?) j),
                   ARRAY(SELECT 1500000000000 + j::bigint * 1000 FROM generate_series(1, ?) j),
                   ?, 1
              FROM unnest(?::bigint[]) f
            """;

    private static void seed(Pipeline pipeline, long base, int count, int followers) {
        Map<DataSource, List<Long>> byDatabase = new HashMap<>();
        for (int i = 0; i < count; i++) {
            long followee = base + 2L * i + 1;
            byDatabase.computeIfAbsent(pipeline.dataSources().forUser(ShardGroup.FOLLOWER, followee),
                    ds -> new ArrayList<>()).add(followee);
        }
        for (var entry : byDatabase.entrySet()) {
            List<Long> followees = entry.getValue();
            try (Connection c = entry.getKey().getConnection(); PreparedStatement ps = c.prepareStatement(SEED)) {
                for (int from = 0; from < followees.size(); from += 1_000) {
                    Array ids = c.createArrayOf("bigint",
                            followees.subList(from, Math.min(followees.size(), from + 1_000)).toArray(Long[]::new));
                    ps.setLong(1, base + 1);
                    ps.setInt(2, followers);
                    ps.setInt(3, followers);
                    ps.setLong(4, followers);
                    ps.setArray(5, ids);
                    ps.executeUpdate();
                    ids.free();
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * Polls {@code pending} (followee → ack time in ns) on one dedicated connection until every sample has been
     * seen; each followee gains exactly one follower, so a row with more than {@code seeded} followers has that edge.
     */
    private static void poll(DataSource ds, ConcurrentHashMap<Long, Long> pending, int seeded, Histogram histogram,
                             AtomicLong remaining) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(VISIBLE)) {
            ps.setLong(2, seeded);
            while (remaining.get() > 0) {
                if (pending.isEmpty()) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(POLL_PAUSE_MICROS));
                    continue;
                }
                Long[] ids = pending.keySet().toArray(Long[]::new);
                Array array = c.createArrayOf("bigint", ids);
                ps.setArray(1, array);
                try (ResultSet rs = ps.executeQuery()) {
                    long seen = System.nanoTime();
                    while (rs.next()) {
                        Long ackedAt = pending.remove(rs.getLong(1));
                        synchronized (histogram) {
                            histogram.recordValue(Math.min(Math.max(0, seen - ackedAt),
                                    histogram.getHighestTrackableValue()));
                        }
                        remaining.decrementAndGet();
                    }
                }
                array.free();
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(POLL_PAUSE_MICROS));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
