package dev.socialgraph.wire;

import dev.socialgraph.common.problem.ProblemType;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A problem document (RFC 9457) as a caller reads one, the one parser of them: the gateway relaying a service's
 * problem, its pairs client reading a pair's, {@code graph-client} turning an answer into an exception. Tolerant by
 * design: any JSON object is a document (a member may be missing, of another type, or a type outside the fleet's
 * vocabulary), and anything else is none.
 *
 * @param members every member, in the order written, as Jackson reads JSON into maps ({@code String},
 *                {@code Integer}, {@code Long}, {@code Boolean}, {@code Map}, {@code List}); unmodifiable
 */
public record ProblemDocument(Map<String, Object> members) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public ProblemDocument {
        members = Collections.unmodifiableMap(members);
    }

    /**
     * Reads a body.
     *
     * @param body a body, possibly empty or {@code null}
     * @return the document, or empty when the body is empty, not JSON, or JSON but not an object
     */
    public static Optional<ProblemDocument> parse(byte[] body) {
        if (body == null || body.length == 0) {
            return Optional.empty();
        }
        try {
            return of(JSON.readTree(body));
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }

    /**
     * Reads a parsed value.
     *
     * @param node a JSON value, possibly {@code null}
     * @return the document, or empty when the value is not an object
     */
    @SuppressWarnings("unchecked")
    public static Optional<ProblemDocument> of(JsonNode node) {
        if (node == null || !node.isObject()) {
            return Optional.empty();
        }
        return Optional.of(new ProblemDocument(JSON.treeToValue(node, Map.class)));
    }

    /** {@code type}, when a string. */
    public String type() {
        return text("type");
    }

    /** {@code title}, when a string. */
    public String title() {
        return text("title");
    }

    /** {@code detail}, when a string. */
    public String detail() {
        return text("detail");
    }

    /** {@code instance}, when a string. */
    public String instance() {
        return text("instance");
    }

    /** The fleet's extension naming the bad input ({@link ProblemType#PARAMETER}), when a string. */
    public String parameter() {
        return text(ProblemType.PARAMETER);
    }

    /** {@code status}, when an integer from 400 to 599, else {@code 0}. */
    public int status() {
        return members.get("status") instanceof Integer status && status >= 400 && status <= 599 ? status : 0;
    }

    /**
     * The fleet's problem type this document names, or else the one of {@code status}.
     *
     * @param status the answer's HTTP status, used when the document names no type of the vocabulary
     * @return never {@code null}: {@link ProblemType#INTERNAL_ERROR} for a status outside 400 to 599
     */
    public ProblemType problemType(int status) {
        return ProblemType.fromUri(type()).orElseGet(() -> status >= 400 && status <= 599
                ? ProblemType.forStatus(status) : ProblemType.INTERNAL_ERROR);
    }

    private String text(String member) {
        return members.get(member) instanceof String s ? s : null;
    }
}
