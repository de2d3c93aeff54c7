package dev.socialgraph.store.sql;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs work in one JDBC transaction on one shard database, retrying serialization failures and deadlocks
 * ({@link SqlErrors.Kind#RETRY_TRANSACTION}) a bounded number of times. Other errors roll back and propagate.
 */
public final class Transactions {

    /** Work done inside a transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Attempts per call for retryable errors (first try included). */
    public static final int MAX_ATTEMPTS = 5;

    private Transactions() {
    }

    /**
     * Runs {@code work} in a transaction (auto-commit off, READ COMMITTED, row locks taken by the work), commits
     * and returns its result.
     *
     * @throws SQLException the last error when {@link #MAX_ATTEMPTS} attempts failed with a retryable error, or the
     *                      first non-retryable error; the transaction is rolled back in both cases
     */
    public static <T> T inTransaction(DataSource dataSource, Work<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                boolean autoCommit = connection.getAutoCommit();
                connection.setAutoCommit(false);
                T result;
                try {
                    result = work.run(connection);
                    connection.commit();
                } catch (SQLException | RuntimeException e) {
                    // Neither may replace e: on a connection the pool found broken both throw "Connection is
                    // closed" without a SQLState, and e is what tells an outage from a bug (SqlErrors).
                    rollbackQuietly(connection, e);
                    restoreQuietly(connection, autoCommit, e);
                    throw e;
                }
                connection.setAutoCommit(autoCommit);
                return result;
            } catch (SQLException e) {
                if (attempt >= MAX_ATTEMPTS || SqlErrors.classify(e) != SqlErrors.Kind.RETRY_TRANSACTION) {
                    throw e;
                }
            }
        }
    }

    /**
     * Runs read-only {@code work} on {@code connection} in one snapshot (a {@code REPEATABLE READ} transaction), for
     * reads that must agree with each other (a row and its pages, a count and a membership), and leaves the
     * connection in auto-commit and {@code READ COMMITTED} again. No retry: a snapshot of reads fails only on an
     * outage.
     *
     * @param connection a connection in auto-commit
     * @param work       the reads
     * @return the work's result
     * @throws SQLException as the database reported it; the snapshot is ended first, and a failure to end it (a
     *                      connection the pool found broken) is suppressed into it rather than replacing it
     */
    public static <T> T inSnapshot(Connection connection, Work<T> work) throws SQLException {
        connection.setAutoCommit(false);
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        T result;
        try {
            result = work.run(connection);
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            // End the snapshot before the connection returns (HikariCP resets isolation and auto-commit). On a
            // connection the pool found broken the rollback throws "Connection is closed" without a SQLState; it
            // must not replace e, which tells an outage from a bug (SqlErrors).
            rollbackQuietly(connection, e);
            throw e;
        }
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        connection.setAutoCommit(true);
        return result;
    }

    private static void restoreQuietly(Connection connection, boolean autoCommit, Exception cause) {
        try {
            connection.setAutoCommit(autoCommit);
        } catch (SQLException restoreFailure) {
            cause.addSuppressed(restoreFailure);
        }
    }

    private static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            cause.addSuppressed(rollbackFailure);
        }
    }
}
