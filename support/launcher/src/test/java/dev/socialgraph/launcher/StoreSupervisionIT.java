package dev.socialgraph.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.localruntime.Directories;
import dev.socialgraph.localruntime.FreePorts;
import dev.socialgraph.localruntime.RedisProcess;
import dev.socialgraph.launcher.Supervisor.ServiceState;
import dev.socialgraph.launcher.Supervisor.State;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The launcher's supervisor keeps the embedded stores running: a PostgreSQL server or a Redis process killed with
 * {@code SIGKILL} is started again on the same port and data, with the services' restart policy, and its state,
 * restarts and last exit are published as a service's are. Real servers: zonky's PostgreSQL, the machine's
 * {@code redis-server}.
 */
class StoreSupervisionIT {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<List<ServiceState>> published = new CopyOnWriteArrayList<>();
    private Supervisor supervisor;
    private SupervisedStore store;
    private Path directory;

    @AfterEach
    void stop() throws Exception {
        if (supervisor != null) {
            supervisor.stop();
        }
        timer.shutdownNow();
        if (store != null) {
            store.close();
        }
        if (directory != null) {
            Directories.deleteRecursively(directory);
        }
    }

    @Test
    void postgresKilled_isStartedAgainOnTheSameData_withEveryCommittedRow() throws Exception {
        directory = Files.createTempDirectory("store-supervision-pg");
        int port = FreePorts.pick();
        LocalPostgres postgres = LocalPostgres.start("postgres", port, directory.resolve("data"),
                directory.resolve("postgres.log"), Stores.postgresSettings());
        store = postgres;
        try (Connection c = connect(port); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acknowledged(id int PRIMARY KEY)");
            s.execute("INSERT INTO acknowledged SELECT generate_series(1, 1000)");
        }
        supervise(postgres);
        long firstPid = postgres.child().pid();

        ProcessHandle.of(firstPid).orElseThrow().destroyForcibly();

        ServiceState restarted = awaitReadyAgain("postgres", firstPid);
        assertThat(restarted.restarts()).isEqualTo(1);
        assertThat(restarted.lastExitCode()).isEqualTo(ProcessWatch.UNKNOWN_EXIT);
        try (Connection c = connect(port); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM acknowledged")) {
            rs.next();
            assertThat(rs.getInt(1)).as("every committed row after crash recovery").isEqualTo(1000);
        }
    }

    @Test
    void redisKilled_isStartedAgainOnItsPort_empty() throws Exception {
        directory = Files.createTempDirectory("store-supervision-redis");
        RedisProcess redis = RedisProcess.builder().directory(directory).logFile(directory.resolve("redis.log"))
                .build().start();
        LocalRedis local = new LocalRedis("redis", redis);
        store = local;
        RedisProcess.command("127.0.0.1", redis.port(), "SET", "following:{1}", "cached");
        supervise(local);
        long firstPid = local.child().pid();

        ProcessHandle.of(firstPid).orElseThrow().destroyForcibly();

        ServiceState restarted = awaitReadyAgain("redis", firstPid);
        assertThat(restarted.restarts()).isEqualTo(1);
        assertThat(RedisProcess.command("127.0.0.1", redis.port(), "EXISTS", "following:{1}"))
                .as("a cache starts empty").isEqualTo(":0\r\n");
    }

    private void supervise(SupervisedStore supervised) {
        Supervisor.Services parts = new Supervisor.Services() {
            @Override
            public Supervisor.Child start(ServiceFleet.Spec spec) throws java.io.IOException {
                return supervised.restart();
            }

            @Override
            public boolean ready(ServiceFleet.Spec spec) {
                return supervised.ready();
            }
        };
        supervisor = new Supervisor(parts, (task, delay) -> timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS),
                Clock.systemUTC(), RestartPolicy::standard, published::add);
        supervisor.watch(supervised.spec(), supervised.child());
    }

    private ServiceState awaitReadyAgain(String name, long killedPid) {
        await().atMost(Duration.ofSeconds(120)).until(() -> {
            ServiceState s = state(name);
            return s.state() == State.READY && s.pid() != killedPid;
        });
        assertThat(published).anySatisfy(states -> assertThat(states).anySatisfy(s -> {
            assertThat(s.name()).isEqualTo(name);
            assertThat(s.state()).isEqualTo(State.RESTARTING);
        }));
        return state(name);
    }

    private ServiceState state(String name) {
        return supervisor.states().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    private static Connection connect(int port) throws java.sql.SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
    }
}
