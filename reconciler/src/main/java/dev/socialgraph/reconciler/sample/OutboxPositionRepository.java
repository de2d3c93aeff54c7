package dev.socialgraph.reconciler.sample;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * JDBC access to {@code reconciler_outbox_position} (see {@code db/reconciler/V2__reconciler_outbox_position.sql}) in
 * the reconciler's database: the sampler's position per following database. Every method runs in its own
 * auto-committed statement. Thread-safe.
 */
public final class OutboxPositionRepository {

    private static final String FIND = """
            SELECT last_outbox_id FROM reconciler_outbox_position WHERE following_database = ?
            """;

    private static final String SAVE = """
            INSERT INTO reconciler_outbox_position (following_database, last_outbox_id) VALUES (?, ?)
            ON CONFLICT (following_database) DO UPDATE
               SET last_outbox_id = GREATEST(reconciler_outbox_position.last_outbox_id, EXCLUDED.last_outbox_id),
                   updated_at = now()
            """;

    private final DataSource dataSource;

    /** @param dataSource the reconciler's database, migrated with {@code classpath:db/reconciler} */
    public OutboxPositionRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The id of the last outbox row checked in {@code followingDatabase}; empty before the first. */
    public OptionalLong find(String followingDatabase) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, followingDatabase);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /** Records {@code lastOutboxId} as checked; a position never moves back (two instances, a late save). */
    public void save(String followingDatabase, long lastOutboxId) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(SAVE)) {
            ps.setString(1, followingDatabase);
            ps.setLong(2, lastOutboxId);
            ps.executeUpdate();
        }
    }
}
