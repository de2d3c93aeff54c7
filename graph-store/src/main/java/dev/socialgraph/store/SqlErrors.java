package dev.socialgraph.store;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * Classifies PostgreSQL errors by SQLState instead of guessing from messages (after Debezium's
 * {@code PostgresErrorHandler}). SQLState classes: PostgreSQL manual, Appendix A "PostgreSQL Error Codes".
 */
public final class SqlErrors {

    /** What a caller should do about an error. */
    public enum Kind {
        /** Serialization failure (40001) or deadlock (40P01): retry the whole transaction. */
        RETRY_TRANSACTION,
        /** The database is unreachable or the connection broke (08xxx, 57P0x, pool timeout): retryable later; 503. */
        UNAVAILABLE,
        /** Authentication or authorization failed (28xxx): configuration is wrong; retrying will not help. */
        FATAL,
        /** A constraint rejected the data (23xxx): a bug or bad input, not a transient fault. */
        CONSTRAINT,
        /** Anything else. */
        OTHER
    }

    private SqlErrors() {
    }

    /** Classifies {@code e} by the first SQLState found in it or its causes. */
    public static Kind classify(SQLException e) {
        if (e instanceof SQLTransientConnectionException) {
            return Kind.UNAVAILABLE; // HikariCP: no connection within connectionTimeout
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return classify(sql.getSQLState());
            }
        }
        return Kind.OTHER;
    }

    /** Classifies a five-character SQLState. */
    public static Kind classify(String sqlState) {
        if (sqlState.equals("40001") || sqlState.equals("40P01")) {
            return Kind.RETRY_TRANSACTION;
        }
        if (sqlState.startsWith("08") || sqlState.equals("57P01") || sqlState.equals("57P02")
                || sqlState.equals("57P03") || sqlState.equals("53300")) {
            return Kind.UNAVAILABLE;
        }
        if (sqlState.startsWith("28")) {
            return Kind.FATAL;
        }
        if (sqlState.startsWith("23")) {
            return Kind.CONSTRAINT;
        }
        return Kind.OTHER;
    }
}
