package dev.socialgraph.store.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The query loops the repositories share. graph-store's own plumbing: public only because the repositories of its
 * feature packages ({@code following}, {@code follower}, {@code outbox}) share it; services run their SQL through the
 * repositories, not through this.
 */
public final class Jdbc {

    /**
     * Maps the current row of a result set.
     *
     * @param <T> the row's type
     */
    @FunctionalInterface
    public interface RowMapper<T> {
        /** The value of the current row of {@code rs}. */
        T map(ResultSet rs) throws SQLException;
    }

    private Jdbc() {
    }

    /** Runs {@code sql} with one {@code long} parameter and maps the first row, if any. */
    public static <T> Optional<T> one(Connection connection, String sql, long key, RowMapper<T> mapper) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(mapper.map(rs)) : Optional.empty();
            }
        }
    }

    /** Executes a prepared query and maps every row. */
    public static <T> List<T> many(PreparedStatement ps, RowMapper<T> mapper) throws SQLException {
        List<T> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(mapper.map(rs));
            }
        }
        return rows;
    }

    /**
     * Runs {@code sql} with a {@code long} lower bound and an {@code int} limit (a scan's next page) and maps every
     * row.
     */
    public static <T> List<T> after(Connection connection, String sql, long after, int limit, RowMapper<T> mapper)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setLong(1, after);
            ps.setInt(2, limit);
            return many(ps, mapper);
        }
    }

    /** Runs an insert-if-absent statement with one {@code long} parameter. */
    public static void update(Connection connection, String sql, long key) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setLong(1, key);
            ps.executeUpdate();
        }
    }
}
