package dev.socialgraph.web;

import dev.socialgraph.common.problem.ProblemType;

/**
 * A read of a protected account's follows by a viewer who is neither the account nor one of its followers
 * (docs/decisions/0064-follow-requests.md): answered 403 {@link ProblemType#PROTECTED_ACCOUNT} naming the account's
 * field ({@link ProblemMapping#of}).
 */
public final class ProtectedAccountException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long userId;
    private final String field;

    /**
     * @param userId the protected account, a positive user id
     * @param field  the request field that names it ({@code id}, {@code otherId})
     */
    public ProtectedAccountException(long userId, String field) {
        super("user " + userId + " is a protected account: only the account and its followers see whom it follows"
                + " and who follows it");
        this.userId = userId;
        this.field = field;
    }

    /** The protected account. */
    public long userId() {
        return userId;
    }

    /** The request field that names it. */
    public String field() {
        return field;
    }
}
