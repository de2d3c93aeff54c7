package dev.socialgraph.write.follow;

/**
 * A follow of a user who blocks the actor (answered 403 with its own problem type); nothing was written, or a follow
 * that raced the block was removed again before the answer.
 */
public final class BlockedException extends RuntimeException {

    private final long targetId;

    BlockedException(long actorId, long targetId) {
        super("user " + targetId + " blocks user " + actorId);
        this.targetId = targetId;
    }

    /**
     * The user who blocks the actor.
     *
     * @return a positive user id
     */
    public long targetId() {
        return targetId;
    }
}
