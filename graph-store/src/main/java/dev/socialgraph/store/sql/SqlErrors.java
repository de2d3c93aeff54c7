package dev.socialgraph.store.sql;

import dev.socialgraph.common.shard.ShardUnavailableException;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Classifies PostgreSQL errors by SQLState and by the exception types of JDBC, HikariCP and the PostgreSQL driver,
 * instead of guessing from messages (after Debezium's {@code PostgresErrorHandler}). The one place the services
 * decide whether a database error is an outage (503 with {@code Retry-After}) or a bug (500), and the one place product
 * code reads a SQLState. SQLState classes: PostgreSQL manual, Appendix A "PostgreSQL Error Codes".
 *
 * <p>The whole exception graph is searched, breadth first: causes, {@link SQLException#getNextException() next
 * exceptions} and suppressed exceptions. That matters because HikariCP replaces a connection it found broken with
 * a closed one whose every method throws {@code SQLException("Connection is closed")} without a SQLState: the
 * rollback or reset after the real error (57P01, 08006, ...) throws that, and only the suppressed or earlier
 * exception tells what happened.
 */
public final class SqlErrors {

    /** What a caller should do about an error. */
    public enum Kind {
        /** Serialization failure (40001) or deadlock (40P01): retry the whole transaction. */
        RETRY_TRANSACTION,
        /**
         * The database cannot serve the request now: unreachable or the connection broke (08xxx, I/O errors),
         * shut down or restarting (57P01..57P03), out of resources (53xxx: too many connections, disk full),
         * too slow (57014: statement timeout or cancel; 55P03: lock timeout), read-only (25006: a primary that
         * became a standby), or no pooled connection within the pool's timeout. Retryable later; 503.
         */
        UNAVAILABLE,
        /** Authentication or authorization failed (28xxx): configuration is wrong; retrying will not help. */
        FATAL,
        /** A constraint rejected the data (23xxx): a bug or bad input, not a transient fault. */
        CONSTRAINT,
        /**
         * What a {@code CREATE} creates exists already (42P04 duplicate_database, 42P06 duplicate_schema, 42P07
         * duplicate_table, 42710 duplicate_object): another creator won a race; the object is there.
         */
        ALREADY_EXISTS,
        /** Anything else. */
        OTHER
    }

    /** Bound of the exceptions looked at: the graph is small, but a cyclic or deep chain must not loop. */
    private static final int MAX_VISITED = 64;

    private SqlErrors() {
    }

    /**
     * The one translation of a failed shard read or write into what the services answer: a database that cannot be
     * reached (or is shutting down, or timed out) is {@link ShardUnavailableException} (503 with {@code Retry-After},
     * DESIGN.md 7); any other database error is a bug, {@link IllegalStateException} (500).
     *
     * @param e        the error
     * @param database names the database in the message, e.g. {@code "shard database of user 12"}
     * @param failed   names the operation in the message, e.g. {@code "shard read for user 12"}
     * @return the exception to throw, with {@code e} as its cause
     */
    public static RuntimeException translate(SQLException e, String database, String failed) {
        if (classify(e) == Kind.UNAVAILABLE) {
            return new ShardUnavailableException(database + " is unavailable", e);
        }
        return new IllegalStateException(failed + " failed", e);
    }

    /**
     * Classifies {@code e}: the first exception of its graph (breadth first: itself, then causes, next
     * exceptions and suppressed ones) that names a SQLState or is of a connection-failure type decides.
     *
     * @param e a JDBC error
     * @return its kind; {@link Kind#OTHER} when nothing in the graph says more
     */
    public static Kind classify(SQLException e) {
        Deque<Throwable> queue = new ArrayDeque<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        queue.add(e);
        while (!queue.isEmpty() && seen.size() < MAX_VISITED) {
            Throwable t = queue.poll();
            if (!seen.add(t)) {
                continue;
            }
            Kind kind = classifyOne(t);
            if (kind != Kind.OTHER) {
                return kind;
            }
            if (t.getCause() != null) {
                queue.add(t.getCause());
            }
            if (t instanceof SQLException sql && sql.getNextException() != null) {
                queue.add(sql.getNextException());
            }
            Collections.addAll(queue, t.getSuppressed());
        }
        return Kind.OTHER;
    }

    private static Kind classifyOne(Throwable t) {
        if (t instanceof SQLException sql && sql.getSQLState() != null) {
            Kind kind = classify(sql.getSQLState());
            if (kind != Kind.OTHER) {
                return kind;
            }
        }
        // HikariCP: no connection within connectionTimeout. The JDBC connection-failure types, and an I/O error
        // under the driver (socket timeout, reset, EOF) when a driver did not wrap it with 08006.
        if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                || t instanceof SQLRecoverableException || t instanceof SQLTimeoutException
                || t instanceof IOException) {
            return Kind.UNAVAILABLE;
        }
        return Kind.OTHER;
    }

    /**
     * Classifies a five-character SQLState.
     *
     * @param sqlState e.g. {@code "57P01"}
     * @return its kind; {@link Kind#OTHER} for states not listed on {@link Kind}
     */
    public static Kind classify(String sqlState) {
        if (sqlState.equals("40001") || sqlState.equals("40P01")) {
            return Kind.RETRY_TRANSACTION;
        }
        if (sqlState.startsWith("08") // connection exception
                || sqlState.startsWith("53") // insufficient resources: 53300 too many connections, 53100 disk full
                || sqlState.equals("57014") // query_canceled: statement_timeout, or a cancel request
                || sqlState.equals("57P01") || sqlState.equals("57P02") || sqlState.equals("57P03") // shutdown
                || sqlState.equals("57P05") // idle_session_timeout: the server closed the session
                || sqlState.equals("55P03") // lock_not_available: lock_timeout
                || sqlState.equals("25006") // read_only_sql_transaction: a standby, e.g. during fail-over
                || sqlState.startsWith("58")) { // system error: I/O error on the server
            return Kind.UNAVAILABLE;
        }
        if (sqlState.startsWith("28")) {
            return Kind.FATAL;
        }
        if (sqlState.startsWith("23")) {
            return Kind.CONSTRAINT;
        }
        if (sqlState.equals("42P04") || sqlState.equals("42P06") || sqlState.equals("42P07")
                || sqlState.equals("42710")) {
            return Kind.ALREADY_EXISTS;
        }
        return Kind.OTHER;
    }
}
