package dev.socialgraph.write.follow;

import dev.socialgraph.common.relation.Relation;

/**
 * The state of one block or mute after a write, as committed on the actor's following shard.
 *
 * @param userId    the blocker or muter
 * @param targetId  the blocked or muted user
 * @param relation  block or mute
 * @param present   whether the edge exists now
 * @param createdAt epoch ms when the edge was created; {@code null} when {@code present} is false
 * @param version   the actor's row version of {@code relation} now ({@code 0} when there is no row)
 * @param changed   whether this call changed the row (and wrote an outbox row); {@code false} for a repeat
 */
public record RelationResult(long userId, long targetId, Relation relation, boolean present, Long createdAt,
                             long version, boolean changed) {
}
