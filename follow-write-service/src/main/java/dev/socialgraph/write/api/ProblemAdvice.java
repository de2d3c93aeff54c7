package dev.socialgraph.write.api;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.write.follow.BlockedException;
import dev.socialgraph.write.follow.BlockingException;
import dev.socialgraph.write.follow.FollowingLimitException;
import dev.socialgraph.write.follow.RelationLimitException;
import dev.socialgraph.write.follow.RequestNotFoundException;
import dev.socialgraph.write.follow.SelfFollowException;
import dev.socialgraph.write.follow.SelfRelationException;
import dev.socialgraph.write.follow.UserInactiveException;
import dev.socialgraph.write.account.AccountConflictException;
import dev.socialgraph.write.account.JobId;
import dev.socialgraph.write.follow.WriteMetrics;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The write service's errors: graph-web's {@link dev.socialgraph.web.ProblemAdvice} (problem+json naming the bad
 * input in {@code parameter}, 503 with {@code Retry-After} for an unavailable shard, 500 without internals), plus the
 * write rules: 400 for a self-follow, self-block or self-mute, 409 at the following, block or mute cap ({@link ProblemType#LIMIT_REACHED}), 409 for a
 * follow of a user the follower blocks ({@link ProblemType#BLOCKING}) and 403 for a follow of a user who blocks the follower
 * ({@link ProblemType#BLOCKED}); for the account lifecycle, 404 {@link ProblemType#USER_INACTIVE} for a write by or of a
 * deactivated or erased user (naming that user's field), 409 {@link ProblemType#CONFLICT} for a state change an erased
 * user forbids and 404 {@link ProblemType#NOT_FOUND} for an unknown job. Every 400 counts as a rejected write ({@code graph.write.results{outcome=rejected}}).
 */
@RestControllerAdvice
class ProblemAdvice extends dev.socialgraph.web.ProblemAdvice {

    private final WriteMetrics metrics;

    ProblemAdvice(WriteMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    protected void rejected(Exception e) {
        metrics.rejected();
    }

    @ExceptionHandler(SelfFollowException.class)
    ProblemDetail selfFollow(SelfFollowException e) {
        return problem(ProblemType.INVALID_PARAMETER, "Cannot follow oneself", e.getMessage(), e.field());
    }

    @ExceptionHandler(FollowingLimitException.class)
    ProblemDetail followingLimit(FollowingLimitException e) {
        ProblemDetail problem = problem(ProblemType.LIMIT_REACHED, "Following limit reached", e.getMessage(),
                "followerId");
        problem.setProperty("limit", e.limit());
        problem.setProperty("followingCount", e.followingCount());
        return problem;
    }

    @ExceptionHandler(SelfRelationException.class)
    ProblemDetail selfRelation(SelfRelationException e) {
        return problem(ProblemType.INVALID_PARAMETER, "Cannot block or mute oneself", e.getMessage(), "targetId");
    }

    @ExceptionHandler(RelationLimitException.class)
    ProblemDetail relationLimit(RelationLimitException e) {
        ProblemDetail problem = switch (e.relation()) {
            // a request is written by a follow of a protected account: the follow's own field names the requester
            case REQUEST -> problem(ProblemType.LIMIT_REACHED, "Follow request limit reached", e.getMessage(),
                    "followerId");
            case BLOCK -> problem(ProblemType.LIMIT_REACHED, "Block limit reached", e.getMessage(), "userId");
            default -> problem(ProblemType.LIMIT_REACHED, "Mute limit reached", e.getMessage(), "userId");
        };
        problem.setProperty("limit", e.relation().cap());
        problem.setProperty("count", e.count());
        return problem;
    }

    @ExceptionHandler(BlockedException.class)
    ProblemDetail blocked(BlockedException e) {
        return problem(ProblemType.BLOCKED, "Blocked by this user", "this user blocks you; you cannot follow them",
                "followeeId");
    }

    @ExceptionHandler(BlockingException.class)
    ProblemDetail blocking(BlockingException e) {
        return problem(ProblemType.BLOCKING, "You block this user; unblock first", e.getMessage(), "followeeId");
    }

    @ExceptionHandler(RequestNotFoundException.class)
    ProblemDetail requestNotFound(RequestNotFoundException e) {
        return problem(ProblemType.NOT_FOUND, "No pending follow request", e.getMessage(), "requesterId");
    }

    @ExceptionHandler(UserInactiveException.class)
    ProblemDetail userInactive(UserInactiveException e) {
        metrics.rejected();
        return problem(ProblemType.USER_INACTIVE, "User deactivated or erased", e.getMessage(), e.field());
    }

    @ExceptionHandler(AccountConflictException.class)
    ProblemDetail accountConflict(AccountConflictException e) {
        return problem(ProblemType.CONFLICT, "User erased", e.getMessage(), "id");
    }

    @ExceptionHandler(AccountController.JobNotFoundException.class)
    ProblemDetail jobNotFound(AccountController.JobNotFoundException e) {
        return problem(ProblemType.NOT_FOUND, "No such job", e.getMessage(), JobId.FIELD);
    }
}
