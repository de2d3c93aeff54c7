package dev.socialgraph.write.follow;

import dev.socialgraph.common.relation.Relation;

/** A block or mute that would take the user past the relation's cap ({@link Relation#cap()}); nothing was written. */
public final class RelationLimitException extends RuntimeException {

    private final Relation relation;
    private final int count;

    RelationLimitException(Relation relation, int count) {
        super(relation.wireName() + " count " + count + " has reached the limit of " + relation.cap());
        this.relation = relation;
        this.count = count;
    }

    /**
     * The relation at its cap.
     *
     * @return block, mute or request
     */
    public Relation relation() {
        return relation;
    }

    /**
     * How many targets the user has in the relation now.
     *
     * @return {@code >= relation().cap()}
     */
    public int count() {
        return count;
    }
}
