package dev.socialgraph.client;

import dev.socialgraph.common.relation.Relation;
import java.time.Instant;
import java.util.Optional;

/**
 * The write service's reply to a follow, unfollow, block, unblock, mute or unmute: the relation's state after the
 * write and the actor's follow token. Writes are idempotent, so a repeat gets the same state (and a fresh token).
 *
 * @param relation    {@link Relation#FOLLOW}, {@link Relation#BLOCK} or {@link Relation#MUTE}
 * @param actor       the user who wrote: the follower, blocker or muter
 * @param target      the followee, blocked or muted user
 * @param active      whether the relation exists now: {@code true} after follow, block, mute; {@code false} after
 *                    unfollow, unblock, unmute
 * @param since       when the relation was created (the follow's {@code followedAt}, the block's or mute's
 *                    {@code createdAt}, millisecond precision), or {@code null} when it is not active
 * @param version     the actor's row version after the write (0 for a user who never wrote one)
 * @param followToken the actor's follow token: sent as {@code X-Follow-Token} on the actor's next reads, it lets them
 *                    see this write at once (read-your-writes) for the check service's {@code token-max-age}, 5 s
 * @param requestedAt of a follow of a protected account the actor does not follow (docs/decisions/0064-follow-requests.md):
 *                    when the actor's pending follow request was made; {@code null} when no request is pending (and for
 *                    every block and mute)
 */
public record WriteResult(Relation relation, long actor, long target, boolean active, Instant since, long version,
                          String followToken, Instant requestedAt) {

    /** A result with no pending request: every block and mute, and a follow of a public account. */
    public WriteResult(Relation relation, long actor, long target, boolean active, Instant since, long version,
                       String followToken) {
        this(relation, actor, target, active, since, version, followToken, null);
    }

    /**
     * Whether the follow is a pending request to a protected account, not a follow yet ({@link #active()} false).
     *
     * @return {@code requestedAt() != null}
     */
    public boolean requested() {
        return requestedAt != null;
    }

    /**
     * When the relation was created.
     *
     * @return {@link #since()}, or empty when the relation is not active
     */
    public Optional<Instant> createdAt() {
        return Optional.ofNullable(since);
    }
}
