package dev.socialgraph.store.account;

/**
 * A user's row of {@code account_states}, or what a user without one is.
 *
 * @param userId    positive user id
 * @param state     the state
 * @param version   the number of state changes so far; 0 for a user never changed
 * @param changedAt epoch ms of the last change; 0 for a user never changed
 * @param jobId     the job the last change started ({@code "<userId>-<version>"}); {@code null} for a user never
 *                  changed
 */
public record AccountStatus(long userId, AccountState state, long version, long changedAt, String jobId) {

    /** A user no operator ever changed: active, version 0. */
    public static AccountStatus never(long userId) {
        return new AccountStatus(userId, AccountState.ACTIVE, 0, 0, null);
    }
}
