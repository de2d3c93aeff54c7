package dev.socialgraph.faults;

/**
 * One request of the recorded workload, as its client saw it.
 *
 * @param kind    what was asked
 * @param actor   the follower of the pair, a positive 64-bit user id
 * @param target  the followee of the pair
 * @param startMs when the request was sent, milliseconds since the run's origin (one monotonic clock)
 * @param endMs   when its answer (or failure) arrived, same clock, {@code >= startMs}
 * @param outcome how it ended
 * @param status  the HTTP status, 0 when no answer came
 * @param value   for a {@link Kind#CHECK} answered {@link Outcome#OK}, whether the pair was answered following
 */
public record Op(Kind kind, long actor, long target, long startMs, long endMs, Outcome outcome, int status,
                 boolean value) {

    /** The requests of the workload. */
    public enum Kind {
        /** {@code PUT /v1/me/following/{target}} as the actor. */
        FOLLOW,
        /** {@code DELETE /v1/me/following/{target}} as the actor. */
        UNFOLLOW,
        /** {@code GET /v1/users/{actor}/following/{target}} as a third party. */
        CHECK;

        /** The pair's state after this write took effect; only for writes. */
        boolean writes() {
            return this == FOLLOW;
        }
    }

    /** How a request ended, from the client's side. */
    public enum Outcome {
        /** 2xx: a write is acknowledged, a check answered. */
        OK,
        /** 4xx: rejected, changes nothing. */
        REJECTED,
        /** 503 problem+json with {@code Retry-After}: an announced outage; a write may or may not have happened. */
        UNAVAILABLE,
        /** Any other 5xx: a defect; a write may or may not have happened. */
        ERROR,
        /** No answer (connection refused or reset, timeout); a write may or may not have happened. */
        UNREACHABLE;

        /** Whether a write that ended this way may have changed the graph. */
        boolean maybeApplied() {
            return this == UNAVAILABLE || this == ERROR || this == UNREACHABLE;
        }
    }

    /** The pair this request is about. */
    public Pair pair() {
        return new Pair(actor, target);
    }

    /** A directed pair: {@code follower} follows {@code followee} or not. */
    public record Pair(long follower, long followee) {
    }
}
