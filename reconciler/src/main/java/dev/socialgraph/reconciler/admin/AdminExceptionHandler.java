package dev.socialgraph.reconciler.admin;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.reconciler.bloom.SnapshotBuilder;
import dev.socialgraph.store.sql.SqlErrors;
import dev.socialgraph.web.ProblemAdvice;
import dev.socialgraph.web.ProblemMapping;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The reconciler's errors: graph-web's {@link ProblemAdvice} (problem+json naming the bad input in {@code parameter},
 * with every failed bean validation in {@code errors}), plus its admin endpoints' own: 404 for an unknown scan, 409 for
 * cancelling a scan that does not run (both naming {@code id}), 409 for a bloom snapshot asked for while one is being
 * built, 503 with {@code Retry-After} when its database is unavailable ({@link SqlErrors}). No input gives a 500.
 */
@RestControllerAdvice
class AdminExceptionHandler extends ProblemAdvice {

    private static final Logger log = LoggerFactory.getLogger(AdminExceptionHandler.class);

    @ExceptionHandler(ScanController.ScanNotFoundException.class)
    ProblemDetail notFound(ScanController.ScanNotFoundException e) {
        return problem(HttpStatus.NOT_FOUND, e.getMessage(), "id");
    }

    @ExceptionHandler(ScanController.ScanNotRunningException.class)
    ProblemDetail notRunning(ScanController.ScanNotRunningException e) {
        return problem(HttpStatus.CONFLICT, e.getMessage(), "id");
    }

    @ExceptionHandler(SnapshotBuilder.BuildRunningException.class)
    ProblemDetail buildRunning(SnapshotBuilder.BuildRunningException e) {
        return problem(ProblemType.CONFLICT, e.getMessage(), null);
    }

    /**
     * A database error, classified by {@link SqlErrors} as every service's are: an outage is 503 with
     * {@code Retry-After}; anything else is a bug, 500 without internals.
     */
    @ExceptionHandler(SQLException.class)
    ResponseEntity<ProblemDetail> database(SQLException e) {
        if (SqlErrors.classify(e) != SqlErrors.Kind.UNAVAILABLE) {
            return ProblemMapping.unexpected(e, log);
        }
        log.warn("Database error on an admin request", e);
        return ProblemMapping.retryLater(problem(ProblemType.SERVICE_UNAVAILABLE, "reconciler database unavailable",
                null));
    }
}
