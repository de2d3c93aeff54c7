package dev.socialgraph.write.follow;

/**
 * An acceptance of a follow request that is not pending and was not accepted before: nothing written; answered 404
 * {@code not-found} naming {@code requesterId}.
 */
public final class RequestNotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param requesterId the user named as the requester, positive
     * @param protectedId the account asked, positive
     */
    public RequestNotFoundException(long requesterId, long protectedId) {
        super("requesterId: user " + requesterId + " has no pending follow request to user " + protectedId);
    }
}
