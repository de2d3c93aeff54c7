package dev.socialgraph.write.follow;

/** A follow of a user the actor blocks (answered 409: unblock first); nothing was written. */
public final class BlockingException extends RuntimeException {

    private final long targetId;

    BlockingException(long actorId, long targetId) {
        super("user " + actorId + " blocks user " + targetId + "; unblock before following");
        this.targetId = targetId;
    }

    /**
     * The user the actor blocks.
     *
     * @return a positive user id
     */
    public long targetId() {
        return targetId;
    }
}
