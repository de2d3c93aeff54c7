package dev.socialgraph.store.account;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * JDBC access to {@code account_jobs} (shard migration V6), in the user's FOLLOWING shard, on the caller's
 * connection. Stateless and thread-safe.
 *
 * <p>Workers share the jobs through leases: {@link #lease} takes the oldest job that is not done, whose lease is free
 * or expired, and that no earlier unfinished job of the same user precedes ({@code FOR UPDATE SKIP LOCKED}, so
 * workers polling together take different jobs). Every later write of the worker names itself as
 * {@code lease_owner} and renews {@code lease_until}; a worker whose lease was taken over writes nothing and learns
 * so from the answer. Lease times are the database's clock, so workers' clocks do not matter.
 */
public final class AccountJobRepository {

    private static final String COLUMNS = """
            job_id, user_id, version, kind, status, phase, position, done, total, created_at, started_at, finished_at,
            report""";

    private static final String INSERT = """
            INSERT INTO account_jobs (job_id, user_id, version, kind, status, created_at)
            VALUES (?, ?, ?, ?, 'queued', ?)
            """;

    private static final String FIND = "SELECT " + COLUMNS + " FROM account_jobs WHERE job_id = ?";

    private static final String LEASE = """
            UPDATE account_jobs SET status = 'running', lease_owner = ?,
                   lease_until = now() + make_interval(secs => ?), started_at = coalesce(started_at, ?)
             WHERE job_id = (
                   SELECT j.job_id FROM account_jobs j
                    WHERE j.status <> 'done' AND (j.lease_until IS NULL OR j.lease_until < now())
                      AND j.created_at <= ?
                      AND NOT EXISTS (SELECT 1 FROM account_jobs e
                                       WHERE e.user_id = j.user_id AND e.version < j.version AND e.status <> 'done')
                    ORDER BY j.created_at, j.job_id
                    LIMIT 1
                    FOR UPDATE SKIP LOCKED)
            RETURNING %s
            """.formatted(COLUMNS);

    private static final String PROGRESS = """
            UPDATE account_jobs SET phase = ?, position = ?, done = ?, total = ?, report = ?,
                   lease_until = now() + make_interval(secs => ?)
             WHERE job_id = ? AND lease_owner = ? AND status = 'running'
            """;

    private static final String FINISH = """
            UPDATE account_jobs SET status = 'done', phase = ?, position = ?, done = ?, total = ?, report = ?,
                   finished_at = ?, lease_owner = NULL, lease_until = NULL
             WHERE job_id = ? AND lease_owner = ? AND status = 'running'
            """;

    private static final String RELEASE = """
            UPDATE account_jobs SET lease_until = now() WHERE job_id = ? AND lease_owner = ? AND status = 'running'
            """;

    /**
     * Queues the job of a state change, in the state change's transaction.
     *
     * @param createdAt epoch ms, the state change's time
     */
    public void insert(Connection connection, String jobId, long userId, long version, JobKind kind, long createdAt)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
            ps.setString(1, jobId);
            ps.setLong(2, userId);
            ps.setLong(3, version);
            ps.setString(4, kind.wireName());
            ps.setLong(5, createdAt);
            ps.executeUpdate();
        }
    }

    /** The job, or empty when this database has none of that id. */
    public Optional<AccountJob> find(Connection connection, String jobId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(FIND)) {
            ps.setString(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Leases the next job of this database for {@code owner}: status {@code running}, {@code lease_until} now +
     * {@code lease}, {@code started_at} set the first time. Run it in a transaction of its own (auto-commit), so the
     * lease is visible to other workers at once.
     *
     * @param owner the worker's name, unique per process
     * @param lease how long the lease holds without renewal
     * @param now   epoch ms, {@code started_at} of a job leased the first time
     * @param startDelay how long a job waits after its state change before it is due (docs/account-lifecycle.md):
     *                   every follow committed before the change has reached the follower side the job walks, and
     *                   every reader's view of inactive accounts knows of the change
     * @return the job as leased, or empty when none is due
     */
    public Optional<AccountJob> lease(Connection connection, String owner, Duration lease, long now,
                                      Duration startDelay) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(LEASE)) {
            ps.setString(1, owner);
            ps.setDouble(2, lease.toMillis() / 1000.0);
            ps.setLong(3, now);
            ps.setLong(4, now - startDelay.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Records a running job's progress and renews its lease.
     *
     * @return whether {@code owner} still held the lease (else nothing was written and the worker must stop)
     */
    public boolean progress(Connection connection, String jobId, String owner, Duration lease, int phase,
                            long position, long done, long total, String report) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(PROGRESS)) {
            ps.setInt(1, phase);
            ps.setLong(2, position);
            ps.setLong(3, done);
            ps.setLong(4, total);
            ps.setString(5, report);
            ps.setDouble(6, lease.toMillis() / 1000.0);
            ps.setString(7, jobId);
            ps.setString(8, owner);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Marks a job done with its final counters and report.
     *
     * @param finishedAt epoch ms
     * @return whether {@code owner} still held the lease (else nothing was written)
     */
    public boolean finish(Connection connection, String jobId, String owner, int phase, long position, long done,
                          long total, String report, long finishedAt) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(FINISH)) {
            ps.setInt(1, phase);
            ps.setLong(2, position);
            ps.setLong(3, done);
            ps.setLong(4, total);
            ps.setString(5, report);
            ps.setLong(6, finishedAt);
            ps.setString(7, jobId);
            ps.setString(8, owner);
            return ps.executeUpdate() == 1;
        }
    }

    /** Gives a lease up at once (a worker stopping), so another worker need not wait for it to expire. */
    public boolean release(Connection connection, String jobId, String owner) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(RELEASE)) {
            ps.setString(1, jobId);
            ps.setString(2, owner);
            return ps.executeUpdate() == 1;
        }
    }

    private static AccountJob map(ResultSet rs) throws SQLException {
        long startedAt = rs.getLong("started_at");
        Long started = rs.wasNull() ? null : startedAt;
        long finishedAt = rs.getLong("finished_at");
        Long finished = rs.wasNull() ? null : finishedAt;
        return new AccountJob(rs.getString("job_id"), rs.getLong("user_id"), rs.getLong("version"),
                JobKind.of(rs.getString("kind")), JobStatus.of(rs.getString("status")), rs.getShort("phase"),
                rs.getLong("position"), rs.getLong("done"), rs.getLong("total"), rs.getLong("created_at"), started,
                finished, rs.getString("report"));
    }
}
