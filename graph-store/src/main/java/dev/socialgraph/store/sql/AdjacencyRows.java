package dev.socialgraph.store.sql;

import dev.socialgraph.common.relation.Relation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The row protocol both adjacency tables share ({@code following_adjacency} and {@code follower_adjacency}, DESIGN.md
 * 2.2), run the same way for either: read a row by its user id, lock it ({@code SELECT ... FOR UPDATE}), create it when
 * absent and then lock it, read several, scan in key order, and write the next version of a row read under lock with
 * an optimistic check on the version. graph-store's own plumbing, public only because the two repositories live in
 * the feature packages {@code following} and {@code follower}; each repository keeps its SQL as text blocks of its own
 * (its table, key, columns and what it writes besides the arrays) and hands them in here. Stateless and thread-safe.
 *
 * @param <R> the repository's row type
 */
public final class AdjacencyRows<R> {

    /**
     * One repository's statement templates, with {@value Sql#RELATION} where the relation's code goes.
     *
     * @param find           the row's columns {@code WHERE <key> = ?}
     * @param lock           the same, {@code FOR UPDATE}
     * @param createIfAbsent {@code INSERT (<key>, relation) VALUES (?, :relation) ON CONFLICT DO NOTHING}
     * @param findMany       the columns of rows {@code WHERE <key> = ANY (?)}, one {@code BIGINT[]} parameter
     * @param scan           rows {@code WHERE <key> > ?} in key order, {@code LIMIT ?}
     * @param write          {@code UPDATE ... SET <ids> = ?, followed_at = ?, <the row's own columns>, version = ?
     *                       ... WHERE <key> = ? AND relation = :relation AND version = ?}
     */
    public record Statements(String find, String lock, String createIfAbsent, String findMany, String scan,
                             String write) {
    }

    /** Binds what a row writes besides its arrays, from parameter 3 on. */
    @FunctionalInterface
    public interface Columns {
        /**
         * Binds the row's own columns of a {@link Statements#write} statement.
         *
         * @param ps the statement, whose parameters 1 and 2 (the arrays) are bound
         * @return the next parameter's index, where the new version goes
         */
        int bind(PreparedStatement ps) throws SQLException;
    }

    private final Relation relation;
    private final String rowName;
    private final Jdbc.RowMapper<R> mapper;
    private final String findSql;
    private final String lockSql;
    private final String createIfAbsentSql;
    private final String findManySql;
    private final String scanSql;
    private final String writeSql;

    /**
     * The statements of one relation's rows.
     *
     * @param relation  whose rows ({@code relation} column)
     * @param rowName   names a row in error messages, e.g. {@code "follower"} gives {@code "follower row 12 ..."}
     * @param templates the repository's statements
     * @param mapper    reads a row from the columns {@code find}, {@code lock}, {@code findMany} and {@code scan}
     *                  select
     */
    public AdjacencyRows(Relation relation, String rowName, Statements templates, Jdbc.RowMapper<R> mapper) {
        this.relation = relation;
        this.rowName = rowName;
        this.mapper = mapper;
        this.findSql = Sql.forRelation(templates.find(), relation);
        this.lockSql = Sql.forRelation(templates.lock(), relation);
        this.createIfAbsentSql = Sql.forRelation(templates.createIfAbsent(), relation);
        this.findManySql = Sql.forRelation(templates.findMany(), relation);
        this.scanSql = Sql.forRelation(templates.scan(), relation);
        this.writeSql = Sql.forRelation(templates.write(), relation);
    }

    /** The relation these rows belong to. */
    public Relation relation() {
        return relation;
    }

    /** Reads the row of {@code key} without locking; empty when it does not exist. */
    public Optional<R> find(Connection connection, long key) throws SQLException {
        return Jdbc.one(connection, findSql, key, mapper);
    }

    /** Locks the row of {@code key} for the rest of the transaction; empty (nothing locked) when it does not exist. */
    public Optional<R> lock(Connection connection, long key) throws SQLException {
        return Jdbc.one(connection, lockSql, key, mapper);
    }

    /**
     * Creates the row of {@code key} when absent (the schema's defaults: empty arrays, version 0), then locks it for
     * the rest of the transaction.
     *
     * @throws IllegalStateException when the row is gone right after the insert
     */
    public R lockOrCreate(Connection connection, long key) throws SQLException {
        Jdbc.update(connection, createIfAbsentSql, key);
        return lock(connection, key).orElseThrow(
                () -> new IllegalStateException(rowName + " row " + key + " vanished after insert"));
    }

    /** Reads the rows of several keys of this database without locking; absent keys are left out, order unspecified. */
    public List<R> findAll(Connection connection, long[] keys) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(findManySql)) {
            ps.setArray(1, SqlArrays.bigintArray(connection, keys));
            return Jdbc.many(ps, mapper);
        }
    }

    /**
     * Reads rows in key order, for scans.
     *
     * @param afterKey exclusive lower bound; 0 to start
     * @param limit    maximum rows, {@code >= 1}
     */
    public List<R> scan(Connection connection, long afterKey, int limit) throws SQLException {
        return Jdbc.after(connection, scanSql, afterKey, limit, mapper);
    }

    /**
     * Writes the row of {@code key} read under lock at {@code lockedVersion} with {@code lockedVersion + 1}.
     *
     * @param ids        the row's new ids
     * @param followedAt the aligned epoch-ms times
     * @param columns    binds what the row writes besides its arrays
     * @throws IllegalStateException when the stored version is no longer {@code lockedVersion}: the row was not
     *                               locked in this transaction, or was changed by someone who did not lock it
     */
    public void writeNextVersion(Connection connection, long key, long lockedVersion, long[] ids, long[] followedAt,
                                 Columns columns) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(writeSql)) {
            ps.setArray(1, SqlArrays.bigintArray(connection, ids));
            ps.setArray(2, SqlArrays.bigintArray(connection, followedAt));
            int next = columns.bind(ps);
            ps.setLong(next, lockedVersion + 1);
            ps.setLong(next + 1, key);
            ps.setLong(next + 2, lockedVersion);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException(rowName + " row " + key + " is not at version " + lockedVersion
                        + "; was it locked in this transaction?");
            }
        }
    }
}
