package dev.socialgraph.web;

import dev.socialgraph.common.cursor.InvalidCursorException;
import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.wire.WireFormatException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * The one mapping of errors to RFC 9457 {@code application/problem+json} for every service (DESIGN.md 6: every error
 * names the bad input), in the property {@code parameter}, as the OpenAPI document and the gateway's own problems do.
 *
 * <p>A servlet service's advice is a subclass annotated {@code @RestControllerAdvice}; it adds handlers for its own
 * exceptions and builds their bodies with {@link #problem}. What every service shares is here:
 * <ul>
 *   <li>the graph's own exceptions as {@link ProblemMapping} maps them for servlet and reactive services alike: bad
 *       ids, parameters and cursors 400 naming the input, an unavailable shard 503 with {@code Retry-After: 1};</li>
 *   <li>Spring MVC's own errors (unknown path 404, wrong method 405, unacceptable media type, ...) through
 *       {@link ResponseEntityExceptionHandler}, with a body that is not JSON naming {@code body} (or, for a value of
 *       the wrong type, its property), an unsupported content type naming {@code Content-Type}, a failed bean
 *       validation naming the first bad field (all of them in {@code errors}), a path variable or query parameter
 *       of the wrong type naming it;</li>
 *   <li>any other exception: a bug, logged with its stack trace and answered 500 without internals.</li>
 * </ul>
 * What each answer says is decided once, in {@link ProblemMapping}, for the reactive services too; this class adapts it
 * to Spring MVC's handler methods.
 */
public abstract class ProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

    /** The property that names the bad input ({@link ProblemMapping#PARAMETER}). */
    public static final String PARAMETER = ProblemMapping.PARAMETER;

    /** Seconds a client should wait before retrying after an outage answer ({@link ProblemMapping}). */
    public static final String RETRY_AFTER_SECONDS = ProblemMapping.RETRY_AFTER_SECONDS;

    /**
     * A problem naming the bad input, of the status' default type.
     *
     * @param status    the HTTP status
     * @param detail    what is wrong, for a person
     * @param parameter the input's name, {@code null} for none
     * @return the body
     */
    public static ProblemDetail problem(HttpStatusCode status, String detail, String parameter) {
        return ProblemMapping.problem(status, detail, parameter);
    }

    /**
     * A problem of a given type (its status and title), naming the bad input.
     *
     * @param type      what happened, from the fleet's one vocabulary
     * @param detail    what is wrong, for a person
     * @param parameter the input's name, {@code null} for none
     * @return the body
     */
    public static ProblemDetail problem(ProblemType type, String detail, String parameter) {
        return ProblemMapping.problem(type, detail, parameter);
    }

    /**
     * A problem of a given type with a title of its own, naming the bad input
     * ({@link ProblemMapping#problem(ProblemType, String, String, String)}).
     *
     * @param type      what happened, from the fleet's one vocabulary
     * @param title     a short summary of the case, in place of the type's
     * @param detail    what is wrong, for a person
     * @param parameter the input's name, {@code null} for none
     * @return the body
     */
    public static ProblemDetail problem(ProblemType type, String title, String detail, String parameter) {
        return ProblemMapping.problem(type, title, detail, parameter);
    }

    /**
     * Called for every 400 this class answers, before the body is made; for a service's rejection counter.
     *
     * @param e what was rejected
     */
    protected void rejected(Exception e) {
    }

    /** The graph's own exceptions ({@link ProblemMapping#of}): bad input 400, an unavailable shard 503. */
    @ExceptionHandler({BadParameterException.class, WireFormatException.class, InvalidUserIdException.class,
            InvalidCursorException.class, ShardUnavailableException.class})
    ResponseEntity<ProblemDetail> graphException(RuntimeException e) {
        if (ProblemMapping.isBadInput(e)) {
            rejected(e);
        }
        return ProblemMapping.of(e);
    }

    /** A bug: logged with its stack trace, answered without internals ({@link ProblemMapping#unexpected}). */
    @ExceptionHandler(RuntimeException.class)
    ResponseEntity<ProblemDetail> unexpected(RuntimeException e) {
        return ProblemMapping.unexpected(e, log);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        rejected(ex);
        return untyped(ProblemMapping.unreadableBody(ex), HttpHeaders.EMPTY);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMediaTypeNotSupported(HttpMediaTypeNotSupportedException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        return untyped(ProblemMapping.unsupportedMediaType(), headers); // Spring's headers: Accept, what it reads
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        rejected(ex);
        List<Map<String, String>> errors = ex.getBindingResult().getFieldErrors().stream()
                .map(f -> Map.of(PARAMETER, f.getField(), "message", String.valueOf(f.getDefaultMessage())))
                .toList();
        Map<String, String> first = errors.isEmpty() ? Map.of(PARAMETER, "body", "message", "invalid")
                : errors.getFirst();
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, first.get(PARAMETER) + ": " + first.get("message"),
                first.get(PARAMETER));
        problem.setProperty("errors", errors);
        return ResponseEntity.badRequest().body(problem);
    }

    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        rejected(ex);
        String name = ex instanceof MethodArgumentTypeMismatchException m ? m.getName() : ex.getPropertyName();
        String type = ex.getRequiredType() == null ? "a value of another type"
                : ex.getRequiredType().getSimpleName().toLowerCase(Locale.ROOT);
        return ResponseEntity.badRequest().body(problem(HttpStatus.BAD_REQUEST,
                name + ": must be a " + type, name));
    }

    /** The same answer as Spring's handler methods declare it, with {@code headers} added. */
    private static ResponseEntity<Object> untyped(ResponseEntity<ProblemDetail> answer, HttpHeaders headers) {
        return ResponseEntity.status(answer.getStatusCode()).headers(answer.getHeaders()).headers(headers)
                .body(answer.getBody());
    }
}
