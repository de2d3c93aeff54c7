package dev.socialgraph.reconciler.admin;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import tools.jackson.core.JacksonException;

/**
 * The one error mapping of the reconciler's HTTP endpoints: RFC 9457 {@code application/problem+json} with the
 * bad field named in {@code field} (and {@code errors} when several are bad). No input gives a 500.
 */
@RestControllerAdvice
class AdminExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(AdminExceptionHandler.class);

    @ExceptionHandler(MethodArgumentNotValidException.class)
    ProblemDetail invalid(MethodArgumentNotValidException e) {
        List<Map<String, String>> errors = e.getBindingResult().getFieldErrors().stream()
                .map(f -> Map.of("field", f.getField(), "message", String.valueOf(f.getDefaultMessage())))
                .toList();
        Map<String, String> first = errors.isEmpty() ? Map.of("field", "body", "message", "invalid") : errors.getFirst();
        ProblemDetail p = badRequest(first.get("field"), first.get("field") + ": " + first.get("message"));
        p.setProperty("errors", errors);
        return p;
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ProblemDetail unreadable(HttpMessageNotReadableException e) {
        // A value of the wrong type names its property in Jackson's path; malformed JSON names none.
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JacksonException j && !j.getPath().isEmpty()
                    && j.getPath().getLast().getPropertyName() != null) {
                String field = j.getPath().getLast().getPropertyName();
                return badRequest(field, field + ": must be an integer");
            }
        }
        return badRequest("body", "body: must be a JSON object {\"firstShard\": int, \"lastShard\": int}");
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ProblemDetail typeMismatch(MethodArgumentTypeMismatchException e) {
        return badRequest(e.getName(), e.getName() + ": must be a number");
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ProblemDetail illegal(IllegalArgumentException e) {
        String message = String.valueOf(e.getMessage());
        int colon = message.indexOf(':');
        return badRequest(colon > 0 ? message.substring(0, colon) : "body", message);
    }

    @ExceptionHandler(ScanController.ScanNotFoundException.class)
    ProblemDetail notFound(ScanController.ScanNotFoundException e) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
        p.setProperty("field", "id");
        return p;
    }

    @ExceptionHandler(ScanController.ScanNotRunningException.class)
    ProblemDetail notRunning(ScanController.ScanNotRunningException e) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage());
        p.setProperty("field", "id");
        return p;
    }

    @ExceptionHandler(SQLException.class)
    ProblemDetail database(SQLException e) {
        log.warn("Database error on an admin request", e);
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "reconciler database unavailable");
    }

    private static ProblemDetail badRequest(String field, String detail) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
        p.setProperty("field", field);
        return p;
    }
}
