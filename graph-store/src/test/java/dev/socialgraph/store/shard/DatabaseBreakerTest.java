package dev.socialgraph.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.store.sql.SqlErrors;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
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
                        (c, m, a) -> null);
            });

    private static final SQLException TIMED_OUT = new SQLTransientConnectionException(
            "shard-graph_following_0 - Connection is not available, request timed out after 500ms", "08001");

    private DatabaseBreaker breaker(int window, int minimumCalls, Duration openWait) {
        return new DatabaseBreaker(pool, "graph_following_0",
                new DatabaseBreaker.Settings(true, 50, window, minimumCalls, openWait, 1),
                CircuitBreakerRegistry.ofDefaults());
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
    void failed_ofWorkThatLostItsDatabase_counts_butAnErrorThatIsNoOutageDoesNot() throws SQLException {
        DatabaseBreaker breaker = breaker(4, 4, Duration.ofHours(1));
        for (int i = 0; i < 2; i++) {
            breaker.getConnection().close();
        }
        breaker.failed(new SQLException("duplicate key value violates unique constraint", "23505"));
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        breaker.failed(new SQLException("An I/O error occurred while sending to the backend.", "08006"));
        breaker.failed(new SQLException("An I/O error occurred while sending to the backend.", "08006"));
        assertThat(breaker.state()).as("2 of 4 outcomes were outages").isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void getConnection_afterTheOpenWait_probes_andClosesWhenTheDatabaseAnswers() throws SQLException {
        DatabaseBreaker breaker = breaker(2, 2, Duration.ofMillis(50));
        error.set(TIMED_OUT);
        assertThatThrownBy(breaker::getConnection).isSameAs(TIMED_OUT);
        assertThatThrownBy(breaker::getConnection).isSameAs(TIMED_OUT);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        error.set(null);

        Connection probe = await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(breaker::getConnection,
                c -> c != null);
        assertThat(breaker.state()).as("judged when given back").isEqualTo(CircuitBreaker.State.HALF_OPEN);
        probe.close();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void getConnection_whenDisabled_alwaysAsksThePool() {
        DatabaseBreaker breaker = new DatabaseBreaker(pool, "graph_following_0", DatabaseBreaker.Settings.DISABLED,
                CircuitBreakerRegistry.ofDefaults());
        error.set(TIMED_OUT);
        for (int i = 0; i < 30; i++) {
            assertThatThrownBy(breaker::getConnection).isSameAs(TIMED_OUT);
        }
        assertThat(asked.get()).isEqualTo(30);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }
}
