package dev.socialgraph.store.account;

/**
 * A row of {@code account_jobs}: the per-edge work of one state change.
 *
 * @param jobId      {@code "<userId>-<version>"}
 * @param userId     the user whose state changed
 * @param version    the state version that queued the job
 * @param kind       what the job does
 * @param status     queued, running or done
 * @param phase      which walk the job is in (the runner's numbering), 0 at first
 * @param position   the last id done in that walk (ids are walked ascending), 0 at first
 * @param done       edges done so far
 * @param total      edges to do, counted when the job first started; 0 before
 * @param createdAt  epoch ms the state change was written
 * @param startedAt  epoch ms a worker first leased it, or {@code null}
 * @param finishedAt epoch ms it finished, or {@code null}
 * @param report     the job's counters as JSON (kept up to date while it runs), or {@code null}
 */
public record AccountJob(String jobId, long userId, long version, JobKind kind, JobStatus status, int phase,
                         long position, long done, long total, long createdAt, Long startedAt, Long finishedAt,
                         String report) {
}
