package dev.socialgraph.web;

import dev.socialgraph.common.cursor.InvalidCursorException;
import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.shard.ShardUnavailableException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The one mapping of the graph's own exceptions to RFC 9457 problems, shared by the servlet services'
 * {@link ProblemAdvice} and the reactive services' {@link ProblemWebExceptionHandler}:
 * <ul>
 *   <li>{@link BadParameterException}, {@link InvalidUserIdException}: 400 naming the input in {@code parameter};</li>
 *   <li>{@link InvalidCursorException}: 400 naming {@code cursor}, with {@code reason} ({@code malformed},
 *       {@code tampered}, ...);</li>
 *   <li>{@link ShardUnavailableException}: 503 with {@code Retry-After: 1}, the outage answer clients retry on.</li>
 * </ul>
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
     * Whether {@code e} is bad input of the graph's own kinds (answered 400).
     *
     * @param e any exception
     * @return {@code true} for {@link BadParameterException}, {@link InvalidUserIdException},
     *         {@link InvalidCursorException}
     */
    public static boolean isBadInput(Throwable e) {
        return e instanceof BadParameterException || e instanceof InvalidUserIdException
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
            case InvalidUserIdException u -> ResponseEntity.badRequest()
                    .body(problem(HttpStatus.BAD_REQUEST, u.getMessage(), u.field()));
            case InvalidCursorException c -> {
                ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, c.getMessage(), "cursor");
                problem.setProperty("reason", c.reason().name().toLowerCase(Locale.ROOT));
                yield ResponseEntity.badRequest().body(problem);
            }
            case ShardUnavailableException s -> {
                log.debug("Shard unavailable: {}", s.getMessage(), s);
                ProblemDetail problem = problem(ProblemType.SHARD_UNAVAILABLE,
                        "the shard database holding this user is unavailable; retry later", null);
                problem.setTitle("Shard unavailable");
                yield ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                        .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS).body(problem);
            }
            default -> null;
        };
    }
}
