package dev.socialgraph.web;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import dev.socialgraph.common.problem.ProblemType;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one encoder of RFC 9457 problem documents for answers written below the codecs (web filters, exception
 * handlers, the Netty handler of {@link MalformedRequests}) in the reactive services and the gateway: {@code type}
 * (one of {@link ProblemType}'s, the status' default unless set), {@code title}, {@code status}, {@code detail},
 * {@code instance} when known, then extension members such as {@code parameter} at the top level, the shape Spring
 * MVC renders a {@link ProblemDetail} in.
 */
public final class ProblemJson {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ProblemJson() {
    }

    /**
     * A problem of the status' default type ({@link ProblemType#forStatus}).
     *
     * @param status    the HTTP status code
     * @param title     the status's reason phrase or a short summary
     * @param detail    what is wrong, for a person
     * @param instance  the request path, or {@code null} when unknown (the request line could not be read)
     * @param parameter the request part at fault (a path variable, a header, {@code body}), or {@code null}
     * @return the document as UTF-8 JSON
     */
    public static byte[] of(int status, String title, String detail, String instance, String parameter) {
        return of(ProblemType.forStatus(status), status, title, detail, instance, parameter);
    }

    /**
     * A problem of a given type, with the type's status and title.
     *
     * @param type      what happened
     * @param detail    what is wrong, for a person
     * @param instance  the request path, or {@code null} when unknown
     * @param parameter the request part at fault, or {@code null}
     * @return the document as UTF-8 JSON
     */
    public static byte[] of(ProblemType type, String detail, String instance, String parameter) {
        return of(type, type.status(), type.title(), detail, instance, parameter);
    }

    private static byte[] of(ProblemType type, int status, String title, String detail, String instance,
                             String parameter) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type.uriText());
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        if (instance != null) {
            body.put("instance", instance);
        }
        if (parameter != null) {
            body.put(ProblemMapping.PARAMETER, parameter);
        }
        return JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param problem a problem; its properties become top-level members
     * @return the document as UTF-8 JSON
     */
    public static byte[] of(ProblemDetail problem) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", ProblemTypes.typeOf(problem).toString());
        body.put("title", problem.getTitle());
        body.put("status", problem.getStatus());
        if (problem.getDetail() != null) {
            body.put("detail", problem.getDetail());
        }
        if (problem.getInstance() != null) {
            body.put("instance", problem.getInstance().toString());
        }
        if (problem.getProperties() != null) {
            body.putAll(problem.getProperties());
        }
        return JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
    }
}
