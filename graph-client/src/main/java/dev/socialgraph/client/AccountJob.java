package dev.socialgraph.client;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The background job a state change started (docs/account-lifecycle.md), as {@link FollowCheckClient#accountJob}
 * reads it: the per-edge work of a deactivation (count exclusions added), reactivation (removed) or erasure (rows
 * deleted). A job runs once and resumes where it stopped after a crash.
 *
 * @param jobId      {@code <userId>-<version>}: the user and the state version that started it
 * @param userId     the user whose state changed
 * @param kind       what the job does
 * @param status     how far it is
 * @param done       edges done so far
 * @param total      edges the job goes through
 * @param createdAt  when the state change queued it (millisecond precision)
 * @param startedAt  when a worker first took it, or {@code null} while queued
 * @param finishedAt when it was done, or {@code null} until then
 * @param report     once {@link Status#DONE}, what it did as the service reports it (edges per relation and
 *                   direction, count exclusions added or removed, rows deleted, milliseconds: JSON numbers, strings,
 *                   objects as maps); empty until then
 */
public record AccountJob(String jobId, long userId, Kind kind, Status status, long done, long total,
                         Instant createdAt, Instant startedAt, Instant finishedAt, Map<String, Object> report) {

    public AccountJob {
        report = report == null ? Map.of() : Map.copyOf(report);
    }

    /** What a job does; the wire names are the lower-case names. */
    public enum Kind {
        DEACTIVATE, REACTIVATE, ERASE,
        /** Accepting every pending follow request of an account made public again. */
        ACCEPT_REQUESTS;

        /** The JSON value, e.g. {@code deactivate}, {@code accept-requests}. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }

        /**
         * The kind of a JSON value.
         *
         * @return the kind, or empty for a value that names none
         */
        public static Optional<Kind> of(String wireName) {
            for (Kind k : values()) {
                if (k.wireName().equals(wireName)) {
                    return Optional.of(k);
                }
            }
            return Optional.empty();
        }
    }

    /** How far a job is; the wire names are the lower-case names. */
    public enum Status {
        /** Waiting for a worker. */
        QUEUED,
        /** A worker holds it (or held it and will be replaced when its lease runs out). */
        RUNNING,
        /** Finished; {@link AccountJob#report()} says what it did. */
        DONE;

        /** The JSON value, e.g. {@code running}. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /**
         * The status of a JSON value.
         *
         * @return the status, or empty for a value that names none
         */
        public static Optional<Status> of(String wireName) {
            for (Status s : values()) {
                if (s.wireName().equals(wireName)) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }
    }

    /** Whether the job has finished. */
    public boolean finished() {
        return status == Status.DONE;
    }
}
