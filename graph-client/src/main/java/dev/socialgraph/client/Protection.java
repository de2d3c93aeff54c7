package dev.socialgraph.client;

import java.time.Instant;
import java.util.Optional;

/**
 * A user's protection after {@link FollowCheckClient#protect} or {@link FollowCheckClient#unprotect}
 * (docs/decisions/0064-follow-requests.md): whether new followers need the account's approval.
 *
 * @param userId           the user, positive
 * @param protectedAccount whether the account is protected
 * @param version          the account's changes so far, state and protection changes alike; 0 for a user never
 *                         changed
 * @param changedAt        when the account last changed, millisecond precision; {@code null} for a user never changed
 * @param jobId            after making the account public, its {@link AccountJob.Kind#ACCEPT_REQUESTS} job
 *                         ({@link FollowCheckClient#accountJob}); else the job of the account's latest change that
 *                         started one; {@code null} when none has
 * @param followToken      the user's follow token: sent as {@code X-Follow-Token} within the check service's
 *                         {@code token-max-age}, a read sees the change at once
 */
public record Protection(long userId, boolean protectedAccount, long version, Instant changedAt, String jobId,
                         String followToken) {

    /**
     * The job of the account's latest change that started one.
     *
     * @return {@link #jobId()}, or empty when there is none
     */
    public Optional<String> job() {
        return Optional.ofNullable(jobId);
    }
}
