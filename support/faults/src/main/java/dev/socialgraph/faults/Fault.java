package dev.socialgraph.faults;

import dev.socialgraph.launcher.LocalBroker;
import dev.socialgraph.launcher.PortPlan;
import io.lettuce.core.KillArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One fault the suite injects into a running {@link Fleet}, and which services it kills on purpose (so that a
 * restart of any other service counts as a crash).
 *
 * @param name     what it is, for the report
 * @param killed   the services this fault kills itself
 * @param action   injects the fault and returns once it is over (the fleet may still be recovering)
 */
public record Fault(String name, Set<String> killed, Action action) {

    /** Injects a fault into a fleet. */
    @FunctionalInterface
    public interface Action {
        /**
         * @param fleet the running fleet
         * @throws Exception when the fault could not be injected
         */
        void inject(Fleet fleet) throws Exception;
    }

    /**
     * One cycle of every fault the suite knows, in the order they run.
     *
     * @param hold how long a pause, a refusal or a hang lasts
     * @return the faults
     */
    public static List<Fault> all(Duration hold) {
        List<Fault> faults = new ArrayList<>();
        for (String process : Fleet.SUPERVISED) {
            faults.add(new Fault("kill -9 " + process, Set.of(process), fleet -> kill(fleet, process)));
        }
        faults.add(new Fault("broker paused (SIGSTOP)", Set.of(), fleet -> pause(fleet, LocalBroker.NAME, hold)));
        faults.add(new Fault("Redis FLUSHALL", Set.of(), fleet -> fleet.redis().sync().flushall()));
        faults.add(new Fault(REDIS_HUNG, Set.of(), fleet -> pauseTree(fleet, PortPlan.REDIS, hold)));
        faults.add(new Fault("Redis clients disconnected, data kept", Set.of(), fleet -> disconnectRedisClients(fleet, hold)));
        faults.add(new Fault("cdc-consumer paused, then Redis down (SIGSTOP) while it catches up", Set.of(),
                fleet -> pauseConsumerWithRedisDown(fleet, hold)));
        faults.add(new Fault("following database refusing connections", Set.of(),
                fleet -> refuseConnections(fleet, "graph_following_0", hold)));
        faults.add(new Fault("follower database refusing connections", Set.of(),
                fleet -> refuseConnections(fleet, "graph_follower_0", hold)));
        faults.add(new Fault("following database hung (tables locked)", Set.of(),
                fleet -> hang(fleet, "graph_following_0", hold)));
        faults.add(new Fault("follower database hung (tables locked)", Set.of(),
                fleet -> hang(fleet, "graph_follower_0", hold)));
        faults.add(new Fault(DATABASE_HUNG, Set.of(), fleet -> {
            fleet.proxy().hang();
            try {
                Thread.sleep(hold);
            } finally {
                fleet.proxy().release();
            }
        }));
        faults.add(new Fault(POSTGRES_HUNG, Set.of(), fleet -> pauseTree(fleet, PortPlan.POSTGRES, hold)));
        return faults;
    }

    /** Redis hung: its process stopped, every client's connection open and unanswered. */
    public static final String REDIS_HUNG = "Redis paused (SIGSTOP)";
    /**
     * One shard database hung while the others answer: the proxy in front of {@link Fleet#PROXIED_DATABASE} holds
     * every byte (the local fleet's databases share one PostgreSQL server, whose stop would hang them all).
     */
    public static final String DATABASE_HUNG = "following database hung (proxy stops forwarding)";
    /** The PostgreSQL server hung: the postmaster and every backend stopped, so every shard database hangs. */
    public static final String POSTGRES_HUNG = "PostgreSQL hung (SIGSTOP of the server and its backends)";

    /**
     * Whether a fault is a store that hangs (nothing refused, nothing answered) and then continues: the campaign
     * reports the workload's rates and latencies around it.
     */
    static boolean hangs(String name) {
        return name.contains("SIGSTOP") || name.contains("hung");
    }

    /**
     * Stops a process and all its descendants (a PostgreSQL server's backends, checkpointer, WAL writer...) for
     * {@code hold}, then continues them, children last stopped first continued.
     */
    static void pauseTree(Fleet fleet, String name, Duration hold) throws IOException, InterruptedException {
        long pid = fleet.pid(name).orElseThrow(() -> new IllegalStateException(name + " is not running"));
        List<Long> tree = new ArrayList<>();
        tree.add(pid);
        ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> tree.add(d.pid())));
        List<Long> stopped = new ArrayList<>();
        try {
            for (long p : tree) {
                if (ProcessHandle.of(p).isPresent()) {
                    signal("STOP", p);
                    stopped.add(p);
                }
            }
            // A backend forked between the listing and the postmaster's stop is stopped too.
            ProcessHandle.of(pid).ifPresent(p -> p.descendants().filter(d -> !stopped.contains(d.pid())).forEach(d -> {
                try {
                    signal("STOP", d.pid());
                    stopped.add(d.pid());
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
            Thread.sleep(hold);
        } finally {
            for (int i = stopped.size() - 1; i >= 0; i--) {
                if (ProcessHandle.of(stopped.get(i)).isPresent()) {
                    signal("CONT", stopped.get(i));
                }
            }
        }
    }

    static void kill(Fleet fleet, String service) {
        OptionalLong pid = fleet.pid(service);
        if (pid.isEmpty()) {
            throw new IllegalStateException(service + " is not running");
        }
        ProcessHandle.of(pid.getAsLong()).ifPresent(ProcessHandle::destroyForcibly);
    }

    static void pause(Fleet fleet, String name, Duration hold) throws IOException, InterruptedException {
        long pid = fleet.pid(name).orElseThrow(() -> new IllegalStateException(name + " is not running"));
        signal("STOP", pid);
        try {
            Thread.sleep(hold);
        } finally {
            signal("CONT", pid);
        }
    }

    /**
     * Redis hung ({@code SIGSTOP}: down for every client, and not restarted, since its process lives) while the
     * cdc-consumer is paused for {@code hold} and then catches up for another {@code hold}: the follower side must
     * go on converging without Redis. Notes, for the report (a benchmark result, never asserted): the rate of writes
     * the fleet acknowledged that changed an edge over {@code hold} before the fault (everything up) and while the
     * consumer was paused, and the consumer's catch-up rate
     * from its own counter ({@code graph_cdc_events_applied_total}) from its resumption until it has applied as many
     * events as the outbox relays published while it was paused ({@code graph_outbox_published_total}).
     */
    static void pauseConsumerWithRedisDown(Fleet fleet, Duration hold) throws IOException, InterruptedException {
        long redis = fleet.pid(PortPlan.REDIS).orElseThrow(() -> new IllegalStateException("Redis is not running"));
        long consumer = fleet.pid(PortPlan.CDC).orElseThrow(() -> new IllegalStateException("cdc is not running"));
        // The write rate of the whole fleet first, Redis up: the rate the catch-up is compared with.
        long before = System.nanoTime();
        double writtenBefore = written(fleet);
        Thread.sleep(hold);
        double rateUp = (written(fleet) - writtenBefore) / ((System.nanoTime() - before) / 1e9);
        signal("STOP", redis);
        try {
            long t0 = System.nanoTime();
            double written0 = written(fleet);
            // Scraped before the pause: a paused consumer applies nothing and cannot answer a scrape.
            double applied1 = fleet.metric(PortPlan.CDC, "graph_cdc_events_applied_total");
            // Counters start at a process' start, and the write service and the consumer start at different times:
            // compare increments only.
            double published0 = fleet.metric(PortPlan.WRITE, "graph_outbox_published_total");
            signal("STOP", consumer);
            double written1;
            double published1;
            long t1;
            try {
                Thread.sleep(hold);
                t1 = System.nanoTime();
                written1 = written(fleet);
                published1 = fleet.metric(PortPlan.WRITE, "graph_outbox_published_total");
            } finally {
                signal("CONT", consumer);
            }
            long end = t1 + hold.toNanos();
            String caughtUp = null;
            while (System.nanoTime() < end) {
                Thread.sleep(100);
                double applied = fleet.metric(PortPlan.CDC, "graph_cdc_events_applied_total");
                if (caughtUp == null && applied - applied1 >= published1 - published0) {
                    double seconds = (System.nanoTime() - t1) / 1e9;
                    caughtUp = "caught up %.0f events in %.1f s, %.0f events/s".formatted(applied - applied1, seconds,
                            (applied - applied1) / seconds);
                }
            }
            double writeRate = (written1 - written0) / ((t1 - t0) / 1e9);
            double applied = fleet.metric(PortPlan.CDC, "graph_cdc_events_applied_total");
            fleet.note(("writes changing an edge %.0f/s with Redis up, %.0f/s while paused without Redis; backlog at "
                    + "resumption %.0f events; %s").formatted(rateUp, writeRate, published1 - published0, caughtUp != null ? caughtUp
                            : "not caught up within %d s without Redis (%.0f applied)".formatted(hold.toSeconds(),
                                    applied - applied1)));
        } finally {
            signal("CONT", redis);
        }
    }

    private static double written(Fleet fleet) throws IOException, InterruptedException {
        return fleet.metric(PortPlan.WRITE, "graph_write_results_total", "outcome=\"followed\"")
                + fleet.metric(PortPlan.WRITE, "graph_write_results_total", "outcome=\"unfollowed\"");
    }

    static void disconnectRedisClients(Fleet fleet, Duration hold) throws InterruptedException {
        RedisCommands<String, String> redis = fleet.redis().sync();
        long end = System.nanoTime() + hold.toNanos();
        while (System.nanoTime() < end) {
            // SKIPME (the default) keeps this connection; every service's connection is cut, repeatedly.
            redis.clientKill(KillArgs.Builder.typeNormal());
            Thread.sleep(100);
        }
    }

    static void refuseConnections(Fleet fleet, String database, Duration hold) throws SQLException, InterruptedException {
        try (Connection admin = fleet.jdbc("postgres"); Statement s = admin.createStatement()) {
            s.execute("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS false");
            try {
                s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database
                        + "' AND pid <> pg_backend_pid()");
                Thread.sleep(hold);
            } finally {
                s.execute("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
            }
        }
    }

    static void hang(Fleet fleet, String database, Duration hold) throws SQLException, InterruptedException {
        try (Connection c = fleet.jdbc(database); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            // Every read and write of the database's tables waits on these locks until the rollback.
            s.execute("LOCK TABLE following_adjacency, follower_adjacency, celebrity_followers_page, follow_outbox"
                    + " IN ACCESS EXCLUSIVE MODE");
            Thread.sleep(hold);
            c.rollback();
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " failed");
        }
    }
}
