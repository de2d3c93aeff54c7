package dev.socialgraph.write.api;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.write.follow.FollowingLimitException;
import dev.socialgraph.write.follow.SelfFollowException;
import dev.socialgraph.write.follow.ShardUnavailableException;
import dev.socialgraph.write.follow.WriteMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The service's one error mapping: every error is an RFC 9457 {@code application/problem+json} body (DESIGN.md 6).
 * Spring MVC's own errors (unknown route 404, wrong method 405, unacceptable media type, ...) come from
 * {@link ResponseEntityExceptionHandler}; input errors name the offending field in {@code field}.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

    /** Seconds a client should wait before retrying a write that met an unavailable database. */
    private static final String RETRY_AFTER_SECONDS = "1";

    private final WriteMetrics metrics;

    ProblemAdvice(WriteMetrics metrics) {
        this.metrics = metrics;
    }

    @ExceptionHandler(InvalidUserIdException.class)
    ProblemDetail invalidUserId(InvalidUserIdException e) {
        metrics.rejected();
        return fieldProblem(HttpStatus.BAD_REQUEST, "Invalid user id", e.getMessage(), e.field());
    }

    @ExceptionHandler(SelfFollowException.class)
    ProblemDetail selfFollow(SelfFollowException e) {
        return fieldProblem(HttpStatus.BAD_REQUEST, "Cannot follow oneself", e.getMessage(), "followeeId");
    }

    @ExceptionHandler(FollowingLimitException.class)
    ProblemDetail followingLimit(FollowingLimitException e) {
        ProblemDetail problem = fieldProblem(HttpStatus.CONFLICT, "Following limit reached", e.getMessage(),
                "followerId");
        problem.setProperty("limit", e.limit());
        problem.setProperty("followingCount", e.followingCount());
        return problem;
    }

    @ExceptionHandler(ShardUnavailableException.class)
    ResponseEntity<ProblemDetail> unavailable(ShardUnavailableException e) {
        log.debug("Write rejected: {}", e.getMessage(), e);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The database holding this user's following is unavailable; retry later.");
        problem.setTitle("Shard unavailable");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS).body(problem);
    }

    /** A bug: logged with its stack trace, answered without internals. */
    @ExceptionHandler(RuntimeException.class)
    ProblemDetail unexpected(RuntimeException e) {
        log.error("Unexpected error", e);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
                "An unexpected error occurred.");
        problem.setTitle("Internal error");
        return problem;
    }

    private static ProblemDetail fieldProblem(HttpStatus status, String title, String detail, String field) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        problem.setProperty("field", field);
        return problem;
    }
}
