package dev.socialgraph.write.follow;

import dev.socialgraph.common.relation.Relation;

/** A user tried to block or mute themselves, or to undo that; nothing was written (answered 400). */
public final class SelfRelationException extends RuntimeException {

    SelfRelationException(Relation relation, long userId) {
        super("targetId must differ from userId, both are " + userId + " (a user cannot " + relation.wireName()
                + " themselves)");
    }
}
