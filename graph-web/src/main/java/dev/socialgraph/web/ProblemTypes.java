package dev.socialgraph.web;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.wire.Headers;
import java.net.URI;
import java.net.URISyntaxException;
import org.springframework.http.ProblemDetail;

/**
 * What every problem answer of a service gets before it is written, servlet ({@link ProblemBodyAdvice}) and reactive
 * ({@link ReactiveProblems}) alike: a {@code type} from the one vocabulary ({@link ProblemType}; a problem built
 * without one, such as Spring's own 404 or 405, gets its status' default), and as {@code instance} the path the
 * caller sent: the gateway's {@link Headers#PUBLIC_PATH} when the request came through it, else the request's own
 * path.
 */
public final class ProblemTypes {

    private static final URI BLANK = URI.create("about:blank");

    private ProblemTypes() {
    }

    /**
     * The type a problem is answered with.
     *
     * @param problem any problem
     * @return its own type when it has one of the vocabulary's, else its status' default type
     */
    public static URI typeOf(ProblemDetail problem) {
        URI type = problem.getType();
        if (type == null || BLANK.equals(type) || ProblemType.fromUri(type.toString()).isEmpty()) {
            return ProblemType.forStatus(problem.getStatus()).uri();
        }
        return type;
    }

    /**
     * Gives a problem its type ({@link #typeOf}) and its {@code instance}: the public path when the gateway named one,
     * else the request path when the problem has no instance yet.
     *
     * @param problem     the problem to complete (changed in place)
     * @param publicPath  the {@link Headers#PUBLIC_PATH} header, or {@code null}
     * @param requestPath the path the service received, or {@code null} when unknown
     */
    public static void complete(ProblemDetail problem, String publicPath, String requestPath) {
        problem.setType(typeOf(problem));
        URI instance = publicPath != null ? uriOrNull(publicPath) : null;
        if (instance != null) {
            problem.setInstance(instance);
        } else if (problem.getInstance() == null && requestPath != null) {
            problem.setInstance(uriOrNull(requestPath));
        }
    }

    /** A path as a URI reference, or {@code null} when it is not a valid one (then {@code instance} is left out). */
    private static URI uriOrNull(String path) {
        if (path.isEmpty() || path.charAt(0) != '/') {
            return null;
        }
        try {
            return new URI(path);
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
