package dev.socialgraph.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.shard.ShardUnavailableException;
import java.io.EOFException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.postgresql.util.ServerErrorMessage;

class SqlErrorsTest {

    @Test
    void translate_anOutageIsShardUnavailable_andAnythingElseABug_bothWithTheCause() {
        SQLException outage = new SQLTransientConnectionException("no connection within 2000ms");
        RuntimeException down = SqlErrors.translate(outage, "shard database of user 12", "shard read for user 12");
        assertThat(down).isInstanceOf(ShardUnavailableException.class)
                .hasMessage("shard database of user 12 is unavailable").hasCause(outage);

        SQLException bug = new SQLException("column \"nope\" does not exist", "42703");
        RuntimeException failed = SqlErrors.translate(bug, "shard database of user 12", "shard read for user 12");
        assertThat(failed).isInstanceOf(IllegalStateException.class).hasMessage("shard read for user 12 failed")
                .hasCause(bug);
    }

    @Test
    void classify_serializationFailureAndDeadlock_retryTheTransaction() {
        assertThat(SqlErrors.classify("40001")).isEqualTo(SqlErrors.Kind.RETRY_TRANSACTION);
        assertThat(SqlErrors.classify("40P01")).isEqualTo(SqlErrors.Kind.RETRY_TRANSACTION);
        assertThat(SqlErrors.classify(new PSQLException("deadlock", PSQLState.DEADLOCK_DETECTED)))
                .isEqualTo(SqlErrors.Kind.RETRY_TRANSACTION);
    }

    /**
     * Connection failures (08xxx), too many connections (53300), disk full (53100), statement timeout or cancel
     * (57014), administrator or crash shutdown and start-up (57P01..57P03), idle-session timeout (57P05), lock
     * timeout (55P03), a read-only standby (25006), a server I/O error (58030).
     */
    @ParameterizedTest
    @ValueSource(strings = {"08000", "08001", "08003", "08006", "08P01", "53000", "53100", "53300", "57014", "57P01",
            "57P02", "57P03", "57P05", "55P03", "25006", "58030"})
    void classify_outageStates_areUnavailable(String sqlState) {
        assertThat(SqlErrors.classify(sqlState)).isEqualTo(SqlErrors.Kind.UNAVAILABLE);
        assertThat(SqlErrors.classify(serverError(sqlState, "server said " + sqlState)))
                .isEqualTo(SqlErrors.Kind.UNAVAILABLE);
    }

    @Test
    void classify_driverExceptionsOfAnOutage_areUnavailable() {
        // What pgjdbc throws when the socket times out (socketTimeout) or the server closes the connection.
        assertThat(SqlErrors.classify(new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE, new SocketTimeoutException("Read timed out"))))
                .isEqualTo(SqlErrors.Kind.UNAVAILABLE);
        assertThat(SqlErrors.classify(new PSQLException("This connection has been closed.",
                PSQLState.CONNECTION_DOES_NOT_EXIST))).isEqualTo(SqlErrors.Kind.UNAVAILABLE);
        assertThat(SqlErrors.classify(new PSQLException("ERROR: canceling statement due to statement timeout",
                PSQLState.QUERY_CANCELED))).isEqualTo(SqlErrors.Kind.UNAVAILABLE);
        // HikariCP: no connection within connectionTimeout.
        assertThat(SqlErrors.classify(new SQLTransientConnectionException("pool timeout")))
                .isEqualTo(SqlErrors.Kind.UNAVAILABLE);
        // A driver that did not wrap an I/O error with a SQLState.
        assertThat(SqlErrors.classify(new SQLException("read failed", new EOFException())))
                .isEqualTo(SqlErrors.Kind.UNAVAILABLE);
    }

    /**
     * HikariCP replaces a connection it found broken by a closed one whose methods throw {@code "Connection is
     * closed"} with no SQLState; the rollback after a terminated backend throws it. The real error must win.
     */
    @Test
    void classify_hikarisClosedConnectionAfterATerminatedBackend_isUnavailable() {
        SQLException closed = new SQLException("Connection is closed");
        assertThat(SqlErrors.classify(closed)).isEqualTo(SqlErrors.Kind.OTHER);

        PSQLException terminated = serverError("57P01", "terminating connection due to administrator command");
        terminated.addSuppressed(new SQLException("Connection is closed"));
        assertThat(SqlErrors.classify(terminated)).isEqualTo(SqlErrors.Kind.UNAVAILABLE);

        SQLException masking = new SQLException("Connection is closed");
        masking.addSuppressed(serverError("57P01", "terminating connection due to administrator command"));
        assertThat(SqlErrors.classify(masking)).isEqualTo(SqlErrors.Kind.UNAVAILABLE);
    }

    @Test
    void classify_findsTheStateInANextException() {
        SQLException batch = new SQLException("Batch entry 0 was aborted");
        batch.setNextException(serverError("53300", "sorry, too many clients already"));
        assertThat(SqlErrors.classify(batch)).isEqualTo(SqlErrors.Kind.UNAVAILABLE);
    }

    @Test
    void classify_authenticationIsFatalAndConstraintsAreConstraints() {
        assertThat(SqlErrors.classify("28P01")).isEqualTo(SqlErrors.Kind.FATAL);
        assertThat(SqlErrors.classify("23514")).isEqualTo(SqlErrors.Kind.CONSTRAINT);
        assertThat(SqlErrors.classify("22003")).isEqualTo(SqlErrors.Kind.OTHER);
        assertThat(SqlErrors.classify(serverError("42601", "syntax error")))
                .isEqualTo(SqlErrors.Kind.OTHER);
        assertThat(SqlErrors.classify(new PSQLException("check", PSQLState.CHECK_VIOLATION)))
                .isEqualTo(SqlErrors.Kind.CONSTRAINT);
    }

    /** What a CREATE of an existing database (the race of two instances creating shard databases), schema, ... gives. */
    @ParameterizedTest
    @ValueSource(strings = {"42P04", "42P06", "42P07", "42710"})
    void classify_createOfAnExistingObject_isAlreadyExists(String sqlState) {
        assertThat(SqlErrors.classify(sqlState)).isEqualTo(SqlErrors.Kind.ALREADY_EXISTS);
        assertThat(SqlErrors.classify(serverError(sqlState, "already exists")))
                .isEqualTo(SqlErrors.Kind.ALREADY_EXISTS);
    }

    @Test
    void classify_otherStatesOfClass42_areOther() {
        assertThat(SqlErrors.classify("42P01")).isEqualTo(SqlErrors.Kind.OTHER); // undefined_table
        assertThat(SqlErrors.classify("42703")).isEqualTo(SqlErrors.Kind.OTHER); // undefined_column
        assertThat(SqlErrors.classify("42501")).isEqualTo(SqlErrors.Kind.OTHER); // insufficient_privilege
    }

    @Test
    void classify_findsTheStateInACause() {
        SQLException wrapper = new SQLException("wrapper");
        wrapper.initCause(new SQLException("inner", "40P01"));
        assertThat(SqlErrors.classify(wrapper)).isEqualTo(SqlErrors.Kind.RETRY_TRANSACTION);
        assertThat(SqlErrors.classify(new SQLException("no state"))).isEqualTo(SqlErrors.Kind.OTHER);
    }

    @Test
    void classify_cyclicSuppression_terminates() {
        SQLException a = new SQLException("a");
        SQLException b = new SQLException("b");
        a.addSuppressed(b);
        b.addSuppressed(a);
        assertThat(SqlErrors.classify(a)).isEqualTo(SqlErrors.Kind.OTHER);
    }

    /** The exception pgjdbc raises for an ErrorResponse of the server with this SQLState (field C). */
    private static PSQLException serverError(String sqlState, String message) {
        return new PSQLException(new ServerErrorMessage("SFATAL\0C" + sqlState + "\0M" + message + "\0"));
    }
}
