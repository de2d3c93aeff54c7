package dev.socialgraph.web;

import dev.socialgraph.common.cursor.CursorExpiredException;
import dev.socialgraph.common.cursor.InvalidCursorException;
import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.wire.WireFormatException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import tools.jackson.core.JacksonException;

/**
 * The one decision of what a problem answer says, shared by the servlet services' {@link ProblemAdvice} and the
 * reactive services' {@link ProblemWebExceptionHandler}, which only adapt it to their stack: for each kind of error its
 * status, type, title, the input it names and its headers.
 * <ul>
 *   <li>{@link BadParameterException}, {@link WireFormatException} (a body its graph-wire codec cannot read),
 *       {@link InvalidUserIdException}: 400 naming the input in {@code parameter};</li>
 *   <li>{@link InvalidCursorException}: 400 naming {@code cursor}, with {@code reason} ({@code malformed},
 *       {@code tampered}, ...);</li>
 *   <li>{@link CursorExpiredException}: 410 {@code cursor-expired} naming {@code cursor}, with
 *       {@code retentionSeconds};</li>
 *   <li>{@link ShardUnavailableException}: 503 with {@code Retry-After: 1}, the outage answer clients retry on
 *       ({@link #retryLater});</li>
 *   <li>a body that cannot be read ({@link #unreadableBody}): 400 naming the property of a value of the wrong type, else
 *       {@code body};</li>
 *   <li>a body that is not JSON ({@link #unsupportedMediaType}): 415 naming {@code Content-Type};</li>
 *   <li>a bug ({@link #unexpected}): 500 without internals, logged with its stack trace under the adapter's
 *       logger.</li>
 * </ul>
 * The body's JSON is Spring's rendering of a {@link ProblemDetail} on a servlet service and {@link ProblemJson} below
 * the codecs; both complete it with {@link ProblemTypes}.
 */
public final class ProblemMapping {

    private static final Logger log = LoggerFactory.getLogger(ProblemMapping.class);

    /** The property that names the bad input. */
    public static final String PARAMETER = ProblemType.PARAMETER;

    /** Seconds a client should wait before retrying after an outage answer (503). */
    public static final String RETRY_AFTER_SECONDS = "1";

    private ProblemMapping() {
    }

    /**
     * A problem naming the bad input, of the status' default type ({@link ProblemType#forStatus}).
     *
     * @param status    the HTTP status
     * @param detail    what is wrong, for a person
     * @param parameter the input's name, {@code null} for none
     * @return the body
     */
    public static ProblemDetail problem(HttpStatusCode status, String detail, String parameter) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(ProblemType.forStatus(status.value()).uri());
        if (parameter != null) {
            problem.setProperty(PARAMETER, parameter);
        }
        return problem;
    }

    /**
     * A problem of a given type, with its status and title, naming the bad input.
     *
     * @param type      what happened
     * @param detail    what is wrong, for a person
     * @param parameter the input's name, {@code null} for none
     * @return the body
     */
    public static ProblemDetail problem(ProblemType type, String detail, String parameter) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(type.status()), detail);
        problem.setType(type.uri());
        problem.setTitle(type.title());
        if (parameter != null) {
            problem.setProperty(PARAMETER, parameter);
        }
        return problem;
    }

    /**
     * A problem of a given type and status, with a title of its own (the case within the type, e.g. "Following limit
     * reached" for {@link ProblemType#LIMIT_REACHED}), naming the bad input.
     *
     * @param type      what happened
     * @param title     a short summary, in place of the type's
     * @param detail    what is wrong, for a person
     * @param parameter the input's name, {@code null} for none
     * @return the body
     */
    public static ProblemDetail problem(ProblemType type, String title, String detail, String parameter) {
        ProblemDetail problem = problem(type, detail, parameter);
        problem.setTitle(title);
        return problem;
    }

    /**
     * The answer to an outage the client should retry: the problem's own status (503) with {@code Retry-After:}
     * {@value #RETRY_AFTER_SECONDS}.
     *
     * @param problem a 503 problem
     * @return status, header and body
     */
    public static ResponseEntity<ProblemDetail> retryLater(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus()).header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(problem);
    }

    /**
     * The answer when the blocking scheduler's queue is full: 503 {@code Overloaded} with {@code Retry-After:}
     * {@value #RETRY_AFTER_SECONDS}.
     *
     * @return status, header and body
     */
    public static ResponseEntity<ProblemDetail> overloaded() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "too many requests are waiting for a thread; retry later");
        problem.setTitle("Overloaded");
        return retryLater(problem);
    }

    /**
     * The answer to a request body that cannot be read: 400 naming the property whose value has the wrong type when
     * Jackson's path in {@code e}'s causes names one, else naming {@code body} (missing or not JSON).
     *
     * @param e the stack's read failure (Spring MVC's or WebFlux's), with Jackson's exception among its causes if any
     * @return status and body
     */
    public static ResponseEntity<ProblemDetail> unreadableBody(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof JacksonException j && !j.getPath().isEmpty()
                    && j.getPath().getLast().getPropertyName() != null) {
                String property = j.getPath().getLast().getPropertyName();
                return ResponseEntity.badRequest().body(problem(HttpStatus.BAD_REQUEST,
                        property + ": has the wrong type", property));
            }
        }
        return ResponseEntity.badRequest().body(problem(HttpStatus.BAD_REQUEST,
                "request body is missing or not valid JSON", "body"));
    }

    /**
     * The answer to a body of a media type the endpoint does not read: 415 naming {@code Content-Type}.
     *
     * @return status and body
     */
    public static ResponseEntity<ProblemDetail> unsupportedMediaType() {
        return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE).body(problem(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/json", "Content-Type"));
    }

    /**
     * The answer to a bug: logged at error level with its stack trace, answered 500 without internals.
     *
     * @param e      what was thrown
     * @param logger the adapter's logger: the line keeps the category operators know it by ({@link ProblemAdvice},
     *               {@link ProblemWebExceptionHandler})
     * @return status and body
     */
    public static ResponseEntity<ProblemDetail> unexpected(Throwable e, Logger logger) {
        logger.error("Unexpected error", e);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
                "An unexpected error occurred.");
        problem.setTitle("Internal error");
        return ResponseEntity.internalServerError().body(problem);
    }

    /**
     * Whether {@code e} is bad input of the graph's own kinds (answered 400).
     *
     * @param e any exception
     * @return {@code true} for {@link BadParameterException}, {@link WireFormatException}, {@link InvalidUserIdException},
     *         {@link InvalidCursorException}
     */
    public static boolean isBadInput(Throwable e) {
        return e instanceof BadParameterException || e instanceof WireFormatException
                || e instanceof InvalidUserIdException
                || e instanceof InvalidCursorException;
    }

    /**
     * The answer to one of the graph's own exceptions; an unavailable shard is logged at debug level with its cause.
     *
     * @param e any exception
     * @return status, headers and problem body, or {@code null} when {@code e} is none of the kinds above
     */
    public static ResponseEntity<ProblemDetail> of(Throwable e) {
        return switch (e) {
            case BadParameterException b -> ResponseEntity.badRequest()
                    .body(problem(HttpStatus.BAD_REQUEST, b.getMessage(), b.parameter()));
            case WireFormatException w -> ResponseEntity.badRequest()
                    .body(problem(HttpStatus.BAD_REQUEST, w.getMessage(), w.field()));
            case InvalidUserIdException u -> ResponseEntity.badRequest()
                    .body(problem(HttpStatus.BAD_REQUEST, u.getMessage(), u.field()));
            case InvalidCursorException c -> {
                ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, c.getMessage(), "cursor");
                problem.setProperty("reason", c.reason().name().toLowerCase(Locale.ROOT));
                yield ResponseEntity.badRequest().body(problem);
            }
            case CursorExpiredException x -> {
                ProblemDetail problem = problem(ProblemType.CURSOR_EXPIRED, x.getMessage(), "cursor");
                problem.setProperty("retentionSeconds", x.retention().toSeconds());
                yield ResponseEntity.status(HttpStatus.GONE).body(problem);
            }
            case ProtectedAccountException p -> ResponseEntity.status(HttpStatus.FORBIDDEN)
                    .body(problem(ProblemType.PROTECTED_ACCOUNT, p.getMessage(), p.field()));
            case ShardUnavailableException s -> {
                log.debug("Shard unavailable: {}", s.getMessage(), s);
                yield retryLater(problem(ProblemType.SHARD_UNAVAILABLE, "Shard unavailable",
                        "the shard database holding this user is unavailable; retry later", null));
            }
            default -> null;
        };
    }
}
