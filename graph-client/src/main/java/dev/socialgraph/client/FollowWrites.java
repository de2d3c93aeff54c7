package dev.socialgraph.client;

/**
 * The write service's operations, part of {@link FollowCheckClient}'s API: follows, blocks and mutes, and the account
 * lifecycle of docs/account-lifecycle.md (deactivate, reactivate, erase a user; its state; a change's job). They go to
 * the write instances ({@link FollowCheckClient.Builder#writeInstance writeInstance}), each starting where
 * {@link FollowCheckClient.Builder#writeBalancing writeBalancing} says and moving to the next instance after a
 * connection failure, a timeout or 503. That is safe: they are idempotent {@code PUT}s and {@code DELETE}s, so one
 * repeated after an attempt that did reach the service leaves the same state and gets the same reply.
 *
 * <p>A write's or state change's reply carries the actor's follow token, for that actor's next checks
 * ({@link FollowChecks}, read-your-writes). While a user is deactivated or erased, reads answer as if the user had no
 * edges, and writes by or of the user throw a {@link RequestRejectedException} of type {@code user-inactive} whose
 * {@code parameter} names the inactive side. Without a write instance every operation throws
 * {@link IllegalStateException}.
 *
 * <p>Sealed: {@link FollowCheckClient} is its one implementation.
 */
public sealed interface FollowWrites permits FollowCheckClient {

    /**
     * {@code follower} follows {@code followee} ({@code PUT .../following/{followee}} on a write instance);
     * idempotent.
     *
     * @param follower a user id, positive
     * @param followee a user id, positive, not {@code follower}
     * @return the follow, {@link WriteResult#active()} {@code true}, with the follower's follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: 400 for a self-follow, 403
     *                                  {@code blocked} when the followee blocks the follower, 409 {@code blocking} when
     *                                  the follower blocks the followee, 409 {@code limit-reached} past 10,000
     *                                  followings
     */
    WriteResult follow(long follower, long followee);

    /**
     * {@code follower} no longer follows {@code followee}; idempotent (unfollowing a user not followed is a
     * success).
     *
     * @param follower a user id, positive
     * @param followee a user id, positive
     * @return {@link WriteResult#active()} {@code false}, with the follower's follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    WriteResult unfollow(long follower, long followee);

    /**
     * {@code user} blocks {@code target}: removes {@code user}'s follow of {@code target} at once and
     * {@code target}'s follow of {@code user} shortly after (cdc-consumer); idempotent.
     *
     * @param user   a user id, positive
     * @param target a user id, positive, not {@code user}
     * @return the block, {@link WriteResult#active()} {@code true}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused (400 for oneself, 409
     *                                  {@code limit-reached} past 50,000 blocks)
     */
    WriteResult block(long user, long target);

    /**
     * {@code user} no longer blocks {@code target}; idempotent. Follows the block removed are not restored.
     *
     * @param user   a user id, positive
     * @param target a user id, positive
     * @return {@link WriteResult#active()} {@code false}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    WriteResult unblock(long user, long target);

    /**
     * {@code user} mutes {@code target} (hidden from {@code user}'s feed; follows stay); idempotent.
     *
     * @param user   a user id, positive
     * @param target a user id, positive, not {@code user}
     * @return the mute, {@link WriteResult#active()} {@code true}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused (400 for oneself, 409
     *                                  {@code limit-reached} past 50,000 mutes)
     */
    WriteResult mute(long user, long target);

    /**
     * {@code user} no longer mutes {@code target}; idempotent.
     *
     * @param user   a user id, positive
     * @param target a user id, positive
     * @return {@link WriteResult#active()} {@code false}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    WriteResult unmute(long user, long target);

    /**
     * Makes {@code user}'s account protected ({@code PUT /internal/v1/users/{user}/protection} on a write instance;
     * docs/decisions/0064-follow-requests.md): a follow of it by someone who does not follow it yet is a pending
     * request ({@link WriteResult#requested()}), and its follows are then its own and its followers' to see through the
     * gateway (a backend, with the service credential, sees everything). Idempotent.
     *
     * @param user a user id, positive
     * @return the protection after the call
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: 404 {@code user-inactive}
     *                                  for a deactivated or erased user
     */
    Protection protect(long user);

    /**
     * Makes {@code user}'s account public again ({@code DELETE /internal/v1/users/{user}/protection}): every request
     * then pending is accepted by the {@link AccountJob.Kind#ACCEPT_REQUESTS} job {@link Protection#jobId()} names.
     * Idempotent.
     *
     * @param user a user id, positive
     * @return the protection after the call
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    Protection unprotect(long user);

    /**
     * {@code user} accepts {@code requester}'s pending follow request ({@code PUT
     * /internal/v1/users/{user}/follow-requests/{requester}}): the follow begins now. Accepting a follower's accepted
     * request answers the follow.
     *
     * @param user      the protected account, positive
     * @param requester the user who asked, positive
     * @return the follow after the call, {@code requester} as {@link WriteResult#actor()}
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: a
     *                                  {@link RequestRejectedException} of 404 {@code not-found} when nothing is
     *                                  pending
     */
    WriteResult acceptFollowRequest(long user, long requester);

    /**
     * {@code user} declines {@code requester}'s pending follow request ({@code DELETE
     * /internal/v1/users/{user}/follow-requests/{requester}}). Idempotent.
     *
     * @param user      the protected account, positive
     * @param requester the user who asked, positive
     * @return the follow after the call ({@link WriteResult#requested()} false)
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    WriteResult declineFollowRequest(long user, long requester);

    /**
     * Deactivates {@code user} ({@code PUT /internal/v1/admin/users/{user}/deactivation} on a write instance):
     * reversibly hides the user; within the propagation bound every read answers as if the user had no edges and
     * every write by or of the user is refused ({@code user-inactive}). Idempotent: deactivating a deactivated user
     * answers its current state.
     *
     * @param user a user id, positive
     * @return the state after the call, {@link AccountState.State#DEACTIVATED}, with the job that corrects other
     *         users' counts; with {@link FollowCheckClient.Builder#readYourWrites readYourWrites} its token goes with
     *         {@code user}'s next reads
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: 409 {@code conflict} for an
     *                                  erased user
     */
    AccountState deactivate(long user);

    /**
     * Reactivates {@code user} ({@code DELETE /internal/v1/admin/users/{user}/deactivation}): the user's edges are
     * visible again exactly as they were. Idempotent: reactivating an active user answers its current state.
     *
     * @param user a user id, positive
     * @return the state after the call, {@link AccountState.State#ACTIVE}
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: 409 {@code conflict} for an
     *                                  erased user
     */
    AccountState reactivate(long user);

    /**
     * Erases {@code user} ({@code DELETE /internal/v1/admin/users/{user}}), active or deactivated: irreversible
     * (GDPR article 17). At once the user has no edges in any read and can neither write nor be written about; the
     * job deletes every row that names the user, and the id can never be followed again. Idempotent: erasing an
     * erased user answers its current state. This is also what a user's own erasure ({@code DELETE /v1/me} on the
     * gateway) does for the token's subject: a backend names the user instead.
     *
     * @param user a user id, positive
     * @return the state after the call, {@link AccountState.State#ERASED}
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    AccountState erase(long user);

    /**
     * {@code user}'s account state ({@code GET /internal/v1/admin/users/{user}} on a write instance). Every id has
     * one: a user never changed is {@link AccountState.State#ACTIVE} with version 0.
     *
     * @param user a user id, positive
     * @return the state
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    AccountState accountState(long user);

    /**
     * The job a state change started ({@code GET /internal/v1/admin/jobs/{jobId}} on a write instance).
     *
     * @param jobId an {@link AccountState#jobId()}: {@code <userId>-<version>}, both positive decimal integers
     * @return the job
     * @throws IllegalArgumentException when {@code jobId} is not of that form (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: a
     *                                  {@link RequestRejectedException} of 404 {@code not-found} for an unknown job
     */
    AccountJob accountJob(String jobId);
}
