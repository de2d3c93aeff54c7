package dev.socialgraph.check.api;

import dev.socialgraph.check.store.ShardUnavailableException;
import dev.socialgraph.common.cursor.InvalidCursorException;
import dev.socialgraph.common.id.InvalidUserIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The one place HTTP errors are made: RFC 9457 {@code application/problem+json} whose {@code parameter}
 * property names the bad input (DESIGN.md 6: "every error names the bad field"). Spring MVC's own errors
 * (unknown path, wrong method, unreadable body, wrong content type) come through the base class.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

    @ExceptionHandler(BadParameterException.class)
    ProblemDetail badParameter(BadParameterException e) {
        return problem(HttpStatus.BAD_REQUEST, e.getMessage(), e.parameter());
    }

    @ExceptionHandler(InvalidUserIdException.class)
    ProblemDetail badUserId(InvalidUserIdException e) {
        return problem(HttpStatus.BAD_REQUEST, e.getMessage(), e.field());
    }

    @ExceptionHandler(InvalidCursorException.class)
    ProblemDetail badCursor(InvalidCursorException e) {
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, e.getMessage(), "cursor");
        problem.setProperty("reason", e.reason().name().toLowerCase());
        return problem;
    }

    @ExceptionHandler(ShardUnavailableException.class)
    ResponseEntity<ProblemDetail> shardDown(ShardUnavailableException e) {
        log.debug("Shard unavailable", e);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "the shard database holding this user is unavailable; retry later");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return ResponseEntity.badRequest().body(problem(HttpStatus.BAD_REQUEST,
                "request body is missing or not valid JSON", "body"));
    }

    @Override
    protected ResponseEntity<Object> handleHttpMediaTypeNotSupported(HttpMediaTypeNotSupportedException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        ProblemDetail problem = problem(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/json", "Content-Type");
        return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE).headers(headers).body(problem);
    }

    private static ProblemDetail problem(HttpStatus status, String detail, String parameter) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setProperty("parameter", parameter);
        return problem;
    }
}
