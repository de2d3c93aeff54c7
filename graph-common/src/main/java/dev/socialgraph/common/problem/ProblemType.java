package dev.socialgraph.common.problem;

import java.net.URI;
import java.util.Optional;

/**
 * The one vocabulary of the fleet's RFC 9457 problem types: every {@code application/problem+json} answer of the
 * gateway and of every service carries one of these as its {@code type}, the URI
 * {@code https://socialgraph.dev/problems/<slug>}, and, where the caller's input was at fault, the member
 * {@code parameter} naming the bad field (a path variable, query parameter, body member or header). The list, with
 * what each means and which field it names, is {@code docs/problems.md}; the OpenAPI document refers to it.
 *
 * <p>A type says what happened, the status how HTTP classes it; several types share a status (403 {@link #FORBIDDEN},
 * {@link #BLOCKED} and {@link #PROTECTED_ACCOUNT}, 409 {@link #BLOCKING} and {@link #LIMIT_REACHED}, 503 {@link #SHARD_UNAVAILABLE} and
 * {@link #SERVICE_UNAVAILABLE}), and one status has one default type ({@link #forStatus}) for answers that have no
 * type of their own. The URIs identify; they are not promised to resolve.
 */
public enum ProblemType {

    /** 400: a path variable, query parameter, header or body member is malformed or out of range; {@code parameter} names it. */
    INVALID_PARAMETER("invalid-parameter", 400, "Bad Request"),
    /** 400: the request could not be parsed at all (request line, header syntax, percent-encoding, chunking, method). */
    MALFORMED_REQUEST("malformed-request", 400, "Bad Request"),
    /** 401: no valid bearer token ({@code parameter}: {@code Authorization}). */
    UNAUTHORIZED("unauthorized", 401, "Unauthorized"),
    /** 401: a service's internal API without the deployment's service credential ({@code parameter}: {@code X-Service-Token}). */
    SERVICE_CREDENTIAL("service-credential", 401, "Unauthorized"),
    /** 403: the caller may not see or change this resource (another user's private list). */
    FORBIDDEN("forbidden", 403, "Forbidden"),
    /** 403: the target of a follow blocks the caller. */
    BLOCKED("blocked", 403, "Forbidden"),
    /**
     * 403: a protected account's follows, asked by a viewer who is neither the account nor one of its followers;
     * {@code parameter} names the account's field.
     */
    PROTECTED_ACCOUNT("protected-account", 403, "Forbidden"),
    /** 404: no such resource (an unknown path, scan or job). */
    NOT_FOUND("not-found", 404, "Not Found"),
    /** 404: a follow, block or mute by or of a deactivated or erased user; {@code parameter} names that user's field. */
    USER_INACTIVE("user-inactive", 404, "Not Found"),
    /** 405: the path exists, the method does not ({@code Allow} lists the methods). */
    METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method Not Allowed"),
    /** 406: no representation the caller accepts. */
    NOT_ACCEPTABLE("not-acceptable", 406, "Not Acceptable"),
    /** 409: the caller blocks the target of the follow; unblock first. */
    BLOCKING("blocking", 409, "Conflict"),
    /** 409: the state of the resource forbids the operation (a scan that is not running, a snapshot under way). */
    CONFLICT("conflict", 409, "Conflict"),
    /** 409: a per-user cap is reached (10,000 followings, 50,000 blocks or mutes); {@code parameter} names the actor. */
    LIMIT_REACHED("limit-reached", 409, "Conflict"),
    /**
     * 410: a change-stream cursor older than the stream keeps ({@code parameter}: {@code cursor};
     * {@code retentionSeconds} says how far back it goes).
     */
    CURSOR_EXPIRED("cursor-expired", 410, "Gone"),
    /** 413: the request body is larger than the limit ({@code parameter}: {@code body}). */
    BODY_TOO_LARGE("body-too-large", 413, "Content Too Large"),
    /** 414: the request line is too long ({@code parameter}: {@code uri}). */
    URI_TOO_LONG("uri-too-long", 414, "URI Too Long"),
    /** 415: the body is not {@code application/json} ({@code parameter}: {@code Content-Type}). */
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "Unsupported Media Type"),
    /** 429: the caller's rate budget is spent; {@code Retry-After} says when to try again. */
    RATE_LIMITED("rate-limited", 429, "Too Many Requests"),
    /** 431: the request's headers are too large ({@code parameter}: {@code headers}). */
    HEADERS_TOO_LARGE("headers-too-large", 431, "Request Header Fields Too Large"),
    /** 500: a fault of the service itself; nothing the caller sent is known to be wrong. */
    INTERNAL_ERROR("internal-error", 500, "Internal Server Error"),
    /** 503: the shard database holding the user's rows is unavailable; {@code Retry-After}; nothing was written. */
    SHARD_UNAVAILABLE("shard-unavailable", 503, "Service Unavailable"),
    /** 503: a service is down, overloaded or starting; {@code Retry-After}. */
    SERVICE_UNAVAILABLE("service-unavailable", 503, "Service Unavailable"),
    /** 504: a service did not answer in time; whether a write took effect is unknown (writes are idempotent: retry). */
    TIMEOUT("timeout", 504, "Gateway Timeout");

    /** What every type URI starts with. */
    public static final String BASE = "https://socialgraph.dev/problems/";

    /** The problem member that names the bad input, the same name in every answer. */
    public static final String PARAMETER = "parameter";

    private final String slug;
    private final int status;
    private final String title;
    private final URI uri;
    private final String uriText;

    ProblemType(String slug, int status, String title) {
        this.slug = slug;
        this.status = status;
        this.title = title;
        this.uriText = BASE + slug;
        this.uri = URI.create(uriText);
    }

    /** The last path segment of the type URI, e.g. {@code invalid-parameter}. */
    public String slug() {
        return slug;
    }

    /** The HTTP status answered with this type. */
    public int status() {
        return status;
    }

    /** The problem's {@code title}: the status' reason phrase (RFC 9110). */
    public String title() {
        return title;
    }

    /** The {@code type} member, {@code https://socialgraph.dev/problems/<slug>}. */
    public URI uri() {
        return uri;
    }

    /** {@link #uri()} as text. */
    public String uriText() {
        return uriText;
    }

    /**
     * The type an answer of this status gets when nothing more specific is known: the first type of the status in
     * declaration order ({@link #INVALID_PARAMETER} for 400, {@link #FORBIDDEN} for 403, {@link #CONFLICT} for 409,
     * {@link #SERVICE_UNAVAILABLE} for 503, ...); {@link #INTERNAL_ERROR} for any other 5xx, {@link #INVALID_PARAMETER}
     * for any other 4xx.
     *
     * @param status an HTTP status, 400..599
     * @return the default type of that status
     */
    public static ProblemType forStatus(int status) {
        switch (status) {
            case 400: return INVALID_PARAMETER;
            case 403: return FORBIDDEN;
            case 404: return NOT_FOUND;
            case 409: return CONFLICT;
            case 503: return SERVICE_UNAVAILABLE;
            default:
                for (ProblemType t : values()) {
                    if (t.status == status) {
                        return t;
                    }
                }
                return status >= 500 ? INTERNAL_ERROR : INVALID_PARAMETER;
        }
    }

    /**
     * The type a {@code type} member names.
     *
     * @param type the member's text, e.g. {@code https://socialgraph.dev/problems/rate-limited}; may be {@code null}
     * @return the type, or empty for {@code null}, {@code about:blank} or a URI outside this vocabulary
     */
    public static Optional<ProblemType> fromUri(String type) {
        if (type == null || !type.startsWith(BASE)) {
            return Optional.empty();
        }
        String slug = type.substring(BASE.length());
        for (ProblemType t : values()) {
            if (t.slug.equals(slug)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
