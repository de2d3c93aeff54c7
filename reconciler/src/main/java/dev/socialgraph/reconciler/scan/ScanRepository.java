package dev.socialgraph.reconciler.scan;

import dev.socialgraph.reconciler.repair.Divergence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import javax.sql.DataSource;

/**
 * JDBC access to {@code reconciler_scan} (see {@code db/reconciler/V1__reconciler_scan.sql} and
 * {@code V3__reconciler_scan_blocks.sql}) in the reconciler's database. Every method runs in its own auto-committed statement. Thread-safe.
 */
final class ScanRepository {

    private static final String COLUMNS = """
            id, first_shard, last_shard, state, phase, range_index, cursor_id, rows_scanned, missing_follower,
            stale_follower, wrong_count, duplicate, follow_under_block, repairs, skipped_in_flight, error, created_at,
            updated_at""";

    private static final String CREATE = """
            INSERT INTO reconciler_scan (first_shard, last_shard, state, phase) VALUES (?, ?, 'running', 'following')
            RETURNING id
            """;

    private static final String FIND = """
            SELECT %s FROM reconciler_scan WHERE id = ?
            """.formatted(COLUMNS);

    private static final String RUNNING = """
            SELECT id FROM reconciler_scan WHERE state = 'running' ORDER BY id
            """;

    private static final String CHECKPOINT = """
            UPDATE reconciler_scan
               SET phase = ?, range_index = ?, cursor_id = ?, rows_scanned = rows_scanned + ?,
                   missing_follower = missing_follower + ?, stale_follower = stale_follower + ?,
                   wrong_count = wrong_count + ?, duplicate = duplicate + ?,
                   follow_under_block = follow_under_block + ?, repairs = repairs + ?, skipped_in_flight = skipped_in_flight + ?, error = NULL, updated_at = now()
             WHERE id = ? AND state = 'running'
            """;

    private static final String NOTE_ERROR = """
            UPDATE reconciler_scan SET error = ?, updated_at = now() WHERE id = ? AND state = 'running'
            """;

    private static final String SET_STATE = """
            UPDATE reconciler_scan SET state = ?, error = ?, updated_at = now() WHERE id = ? AND state = ?
            """;

    private static final String LAST_START = """
            SELECT max(created_at) FROM reconciler_scan WHERE first_shard = ? AND last_shard = ?
            """;

    private final DataSource dataSource;

    ScanRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    long create(int firstShard, int lastShard) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(CREATE)) {
            ps.setInt(1, firstShard);
            ps.setInt(2, lastShard);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The scan, with {@code progress} computed by {@code progress}. */
    Optional<ScanStatus> find(long id, ToDoubleFunction<ScanStatus> progress) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                ScanStatus s = map(rs, 0);
                return Optional.of(map(rs, progress.applyAsDouble(s)));
            }
        }
    }

    /** When the newest scan of exactly {@code firstShard..lastShard} was started, whatever became of it. */
    Optional<java.time.Instant> lastStart(int firstShard, int lastShard) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(LAST_START)) {
            ps.setInt(1, firstShard);
            ps.setInt(2, lastShard);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                java.sql.Timestamp at = rs.getTimestamp(1);
                return at == null ? Optional.empty() : Optional.of(at.toInstant());
            }
        }
    }

    List<Long> running() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(RUNNING);
             ResultSet rs = ps.executeQuery()) {
            List<Long> ids = new ArrayList<>();
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
            return ids;
        }
    }

    /**
     * Records that the page ending at {@code position} is done, adding {@code delta}'s counters.
     *
     * @return {@code false} when the scan is no longer running (cancelled meanwhile)
     */
    boolean checkpoint(long id, FullScan.Position position, FullScan.Delta delta) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(CHECKPOINT)) {
            ps.setString(1, position.phase().name().toLowerCase(Locale.ROOT));
            ps.setInt(2, position.rangeIndex());
            ps.setLong(3, position.cursor());
            ps.setLong(4, delta.rows);
            ps.setLong(5, delta.found.getOrDefault(Divergence.MISSING_FOLLOWER, 0L));
            ps.setLong(6, delta.found.getOrDefault(Divergence.STALE_FOLLOWER, 0L));
            ps.setLong(7, delta.found.getOrDefault(Divergence.WRONG_COUNT, 0L));
            ps.setLong(8, delta.found.getOrDefault(Divergence.DUPLICATE, 0L));
            ps.setLong(9, delta.found.getOrDefault(Divergence.FOLLOW_UNDER_BLOCK, 0L));
            ps.setLong(10, delta.repairs);
            ps.setLong(11, delta.skippedInFlight);
            ps.setLong(12, id);
            return ps.executeUpdate() == 1;
        }
    }

    /** Records a transient error of a running scan (cleared by its next checkpoint). */
    void noteError(long id, String error) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(NOTE_ERROR)) {
            ps.setString(1, error);
            ps.setLong(2, id);
            ps.executeUpdate();
        }
    }

    /** Moves a scan from state {@code from} to {@code to}; returns whether it was in {@code from}. */
    boolean transition(long id, ScanState from, ScanState to, String error) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(SET_STATE)) {
            ps.setString(1, to.name().toLowerCase(Locale.ROOT));
            ps.setString(2, error);
            ps.setLong(3, id);
            ps.setString(4, from.name().toLowerCase(Locale.ROOT));
            return ps.executeUpdate() == 1;
        }
    }

    private static ScanStatus map(ResultSet rs, double progress) throws SQLException {
        Map<Divergence, Long> divergences = new EnumMap<>(Divergence.class);
        divergences.put(Divergence.MISSING_FOLLOWER, rs.getLong("missing_follower"));
        divergences.put(Divergence.STALE_FOLLOWER, rs.getLong("stale_follower"));
        divergences.put(Divergence.WRONG_COUNT, rs.getLong("wrong_count"));
        divergences.put(Divergence.DUPLICATE, rs.getLong("duplicate"));
        divergences.put(Divergence.FOLLOW_UNDER_BLOCK, rs.getLong("follow_under_block"));
        return new ScanStatus(rs.getLong("id"), rs.getInt("first_shard"), rs.getInt("last_shard"),
                ScanState.valueOf(rs.getString("state").toUpperCase(Locale.ROOT)),
                ScanPhase.valueOf(rs.getString("phase").toUpperCase(Locale.ROOT)), rs.getInt("range_index"),
                rs.getLong("cursor_id"), rs.getLong("rows_scanned"), divergences, rs.getLong("repairs"),
                rs.getLong("skipped_in_flight"), progress, rs.getString("error"),
                rs.getTimestamp("created_at").toInstant(), rs.getTimestamp("updated_at").toInstant());
    }
}
