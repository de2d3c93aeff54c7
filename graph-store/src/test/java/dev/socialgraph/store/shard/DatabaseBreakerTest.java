package dev.socialgraph.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.breaker.BreakerSettings;
import dev.socialgraph.store.sql.SqlErrors;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** A database's breaker over a plain fake pool: what opens it, what it answers while open, how it closes. */
class DatabaseBreakerTest {

    /** A pool that hands out a dummy connection, or throws what {@link #error} holds. */
    private final AtomicReference<SQLException> error = new AtomicReference<>();
    private final AtomicInteger asked = new AtomicInteger();
    private final DataSource pool = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                if (!method.getName().equals("getConnection")) {
                    throw new UnsupportedOperationException(method.getName());
                }
                asked.incrementAndGet();
                SQLException e = error.get();
                if (e != null) {
                    throw e;
                }
                return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                        (c, m, a) -> {
                            if (m.getName().equals("setNetworkTimeout")) {
                                this.networkTimeouts.add((Integer) a[1]);
                            }
                            return m.getName().equals("prepareStatement") ? statement() : null;
                        });
            });

    /** The network timeouts set on the pool's connections, in order. */
    private final List<Integer> networkTimeouts = new CopyOnWriteArrayList<>();

    /** What every statement of the pool's connections throws when executed. */
    private final AtomicReference<SQLException> statementError = new AtomicReference<>();

    private PreparedStatement statement() {
        return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (s, m, a) -> {
                    if (m.getName().startsWith("execute")) {
                        throw statementError.get();
                    }
                    return null;
                });
    }

    private static final SQLException TIMED_OUT = new SQLTransientConnectionException(
            "shard-graph_following_0 - Connection is not available, request timed out after 500ms", "08001");

    private final CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();

    private DatabaseBreaker breaker(int window, int minimumCalls, Duration openWait) {
        return new DatabaseBreaker(pool, "graph_following_0",
                new BreakerSettings(true, 50, window, minimumCalls, openWait, 1), registry);
    }

    @Test
    void getConnection_afterTheMinimumOfWaitsTimedOut_throwsAnOutageAtOnce_withoutAskingThePool() throws SQLException {
        DatabaseBreaker breaker = breaker(10, 3, Duration.ofHours(1));
        error.set(TIMED_OUT);
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(breaker::getConnection).isSameAs(TIMED_OUT);
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        int before = asked.get();

        assertThatThrownBy(breaker::getConnection).isInstanceOf(SQLTransientConnectionException.class)
                .hasMessageContaining("graph_following_0")
                .satisfies(e -> assertThat(SqlErrors.classify((SQLException) e)).isEqualTo(SqlErrors.Kind.UNAVAILABLE));
        assertThat(asked.get()).as("the pool is not asked while open").isEqualTo(before);
    }

    @Test
    void aStatementThatTimedOut_onAConnectionGivenBackAlive_isOneFailure_butAnErrorThatIsNoOutageIsASuccess()
            throws SQLException {
        DatabaseBreaker breaker = breaker(4, 4, Duration.ofHours(1));
        statementError.set(new SQLException("duplicate key value violates unique constraint", "23505"));
        for (int i = 0; i < 2; i++) {
            useAndGiveBack(breaker);
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        statementError.set(new SQLException("ERROR: canceling statement due to statement timeout", "57014"));
        useAndGiveBack(breaker);
        assertThat(breaker.state()).as("3 of 4 outcomes so far").isEqualTo(CircuitBreaker.State.CLOSED);
        useAndGiveBack(breaker);
        // Counted as a failure and a success each, two timed-out uses would leave 2 of 6 outcomes failed: closed.
        assertThat(registry.circuitBreaker("shard:graph_following_0").getMetrics().getNumberOfFailedCalls()).isEqualTo(2);
        assertThat(breaker.state()).as("2 of 4 uses timed out").isEqualTo(CircuitBreaker.State.OPEN);
    }

    private static void useAndGiveBack(DatabaseBreaker breaker) throws SQLException {
        try (Connection c = breaker.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void getConnection_afterTheOpenWait_probes_andClosesWhenTheDatabaseAnswers() throws SQLException {
        // A 1 s open wait: the half-open state then lasts at most 2 s, which a loaded machine's pause between the probe
        // and the assertions below must not exceed (at 50 ms it once did, and the breaker was open again).
        DatabaseBreaker breaker = breaker(2, 2, Duration.ofSeconds(1));
        error.set(TIMED_OUT);
        assertThatThrownBy(breaker::getConnection).isSameAs(TIMED_OUT);
        assertThatThrownBy(breaker::getConnection).isSameAs(TIMED_OUT);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        error.set(null);

        Connection probe = await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(breaker::getConnection,
                c -> c != null);
        assertThat(breaker.state()).as("judged when given back").isEqualTo(CircuitBreaker.State.HALF_OPEN);
        probe.close();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void aNetworkTimeout_isSetOnEachConnectionHandedOut_breakerOrNot() throws SQLException {
        new DatabaseBreaker(pool, "graph_following_0", new BreakerSettings(true, 50, 20, 5, Duration.ofSeconds(1), 1),
                registry, Duration.ofMillis(900)).getConnection().close();
        new DatabaseBreaker(pool, "graph_following_1", DatabaseBreaker.DISABLED, registry, Duration.ofMillis(900))
                .getConnection().close();
        breaker(20, 5, Duration.ofSeconds(1)).getConnection().close(); // none given: the driver's own

        assertThat(networkTimeouts).containsExactly(900, 900);
        assertThatThrownBy(() -> new DatabaseBreaker(pool, "x", DatabaseBreaker.DISABLED, registry,
                Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void getConnection_whenDisabled_alwaysAsksThePool() {
        DatabaseBreaker breaker = new DatabaseBreaker(pool, "graph_following_0", DatabaseBreaker.DISABLED,
                CircuitBreakerRegistry.ofDefaults());
        error.set(TIMED_OUT);
        for (int i = 0; i < 30; i++) {
            assertThatThrownBy(breaker::getConnection).isSameAs(TIMED_OUT);
        }
        assertThat(asked.get()).isEqualTo(30);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }
}
