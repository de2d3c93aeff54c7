package dev.socialgraph.write.api;

import dev.socialgraph.write.follow.FollowingLimitException;
import dev.socialgraph.write.follow.SelfFollowException;
import dev.socialgraph.write.follow.WriteMetrics;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The write service's errors: graph-web's {@link dev.socialgraph.web.ProblemAdvice} (problem+json naming the bad
 * input in {@code parameter}, 503 with {@code Retry-After} for an unavailable shard, 500 without internals), plus the
 * write rules: 400 for a self-follow, 409 at the following cap. Every 400 counts as a rejected write
 * ({@code graph.write.results{outcome=rejected}}).
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
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, e.getMessage(), "followeeId");
        problem.setTitle("Cannot follow oneself");
        return problem;
    }

    @ExceptionHandler(FollowingLimitException.class)
    ProblemDetail followingLimit(FollowingLimitException e) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, e.getMessage(), "followerId");
        problem.setTitle("Following limit reached");
        problem.setProperty("limit", e.limit());
        problem.setProperty("followingCount", e.followingCount());
        return problem;
    }
}
