package dev.socialgraph.store.account;

/**
 * A user's row of {@code account_states}, or what a user without one is.
 *
 * @param userId           positive user id
 * @param state            the state
 * @param version          the number of changes of the row so far (state and protection changes share it); 0 for a
 *                         user never changed
 * @param changedAt        epoch ms of the last change; 0 for a user never changed
 * @param jobId            the job of the latest change that started one ({@code "<userId>-<version>"}); {@code null}
 *                         when none has (a protection starts none, making an account public does)
 * @param protectedAccount whether the account is protected: a new follower needs its approval
 *                         (docs/decisions/0064-follow-requests.md)
 */
public record AccountStatus(long userId, AccountState state, long version, long changedAt, String jobId,
                            boolean protectedAccount) {

    /** A user no operator ever changed: active, public, version 0. */
    public static AccountStatus never(long userId) {
        return new AccountStatus(userId, AccountState.ACTIVE, 0, 0, null, false);
    }
}
