package dev.socialgraph.client;

import java.time.Instant;
import java.util.Optional;

/**
 * A user's account state (docs/account-lifecycle.md), as the write service answers every account operation:
 * {@link FollowCheckClient#deactivate}, {@link FollowCheckClient#reactivate}, {@link FollowCheckClient#erase} and
 * {@link FollowCheckClient#accountState}. While a user is not {@link State#ACTIVE}, every read answers as if the user
 * had no edges, and every write by or of the user is refused ({@code user-inactive}).
 *
 * @param userId      the user
 * @param state       the state after the call
 * @param version     the user's state changes so far; 0 for a user never changed
 * @param changedAt   when the last state change was made (millisecond precision), or {@code null} for a user never
 *                    changed
 * @param jobId       the job the last state change started ({@link FollowCheckClient#accountJob}), or {@code null}
 *                    for a user never changed
 * @param followToken a follow token of the change, or {@code null} when the answer has none: sent as
 *                    {@code X-Follow-Token} within the check service's {@code token-max-age} (5 s), a read already
 *                    sees the new state
 */
public record AccountState(long userId, State state, long version, Instant changedAt, String jobId,
                           String followToken) {

    /** The three states of an account; the wire names are the lower-case names. */
    public enum State {
        /** Every id until an operator says otherwise. */
        ACTIVE("active"),
        /** Hidden, reversibly: {@link FollowCheckClient#reactivate} shows the edges again as they were. */
        DEACTIVATED("deactivated"),
        /** Irreversibly: the user's rows are deleted and the id can never be followed again. */
        ERASED("erased");

        private final String wireName;

        State(String wireName) {
            this.wireName = wireName;
        }

        /** The JSON value, e.g. {@code deactivated}. */
        public String wireName() {
            return wireName;
        }

        /**
         * The state of a JSON value.
         *
         * @param wireName {@code active}, {@code deactivated} or {@code erased}
         * @return the state, or empty for any other value
         */
        public static Optional<State> of(String wireName) {
            for (State s : values()) {
                if (s.wireName.equals(wireName)) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }
    }

    /** Whether the user's edges are visible: {@link #state()} is {@link State#ACTIVE}. */
    public boolean active() {
        return state == State.ACTIVE;
    }

    /**
     * The job of the last state change.
     *
     * @return {@link #jobId()}, or empty for a user never changed
     */
    public Optional<String> job() {
        return Optional.ofNullable(jobId);
    }
}
