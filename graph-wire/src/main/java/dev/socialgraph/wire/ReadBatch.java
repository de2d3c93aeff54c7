package dev.socialgraph.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The bodies of {@code POST /internal/v1/reads} ({@link InternalApi#READS}), their codec and size bounds, one home
 * for both ends: many GET reads of the check service ({@link #SERVED}) in one call, for a caller that coalesces
 * concurrent reads bound for one instance (the gateway). Each read is what its own GET would be: the internal path,
 * the raw query and the headers its {@link Endpoint} declares; each result is what that GET would answer (its status,
 * its {@code Retry-After} and its JSON body) when memory holds it.
 *
 * <p><b>A request</b> is {@code {"reads":[r0,r1,…]}}, each read
 * {@code {"path":"/internal/v1/users/7/following","query":"limit=20","headers":{"X-Follow-Token":"…"}}} ({@code query}
 * and {@code headers} optional). A read's path and query are at most {@link #MAX_TARGET_CHARS} characters together,
 * as a request line's target is on the public port (Reactor Netty's default initial line of 4,096 bytes), and each
 * header value at most {@link #MAX_HEADER_CHARS}; so a read is at most {@link #MAX_READ_BYTES} bytes as the gateway
 * writes it, and {@link #requestBytes} bounds a batch.
 *
 * <p><b>An answer</b> is {@code 200 {"results":[s0,s1,…]}}, one result per read in order, each {@code
 * {"status":200,"body":{…}}} or, for a read whose GET would have failed, {@code {"status":400,"body":{problem
 * document}}} (with {@code "retryAfter":"1"} where the GET's answer has {@code Retry-After}), or {@code
 * {"deferred":true}}: the batch answers only what the service's memory holds, and a read that would wait for Redis or a
 * database is left to its own GET, so that no read of a batch waits for another's store (and a hung database holds no
 * batch). The check service writes the body as the GET's JSON, byte for byte, and the gateway relays it without parsing
 * it again ({@link #decodeAnswer} finds each body's bytes). A body is at most {@link #MAX_BODY_BYTES}: a page of 1,000
 * items (the largest {@code limit}) with string ids is under 60 KB.
 */
public final class ReadBatch {

    /** The body member holding the reads. */
    public static final String READS = "reads";

    /** The body member holding the results. */
    public static final String RESULTS = "results";

    /** A read's members. */
    public static final String PATH = "path";
    public static final String QUERY = "query";
    public static final String HEADERS = "headers";

    /** A result's members. */
    public static final String STATUS = "status";
    public static final String RETRY_AFTER = "retryAfter";
    public static final String BODY = "body";
    public static final String DEFERRED = "deferred";

    /**
     * The GET reads a batch may hold: those the check service's memory answers (suggestions, block and mute lists are
     * read from Redis or a database every time, so each is asked as its own GET).
     */
    public static final List<Endpoint> SERVED = List.of(InternalApi.FOLLOWING, InternalApi.FOLLOWERS,
            InternalApi.COUNTS, InternalApi.COMMON_FOLLOWING, InternalApi.RELATIONSHIP);

    /** The longest path and query of one read, characters (a public request line's target). */
    public static final int MAX_TARGET_CHARS = 4096;

    /** The longest value of one header of a read, characters (a follow token is 64, a viewer id 19). */
    public static final int MAX_HEADER_CHARS = 64;

    /**
     * The longest read as the gateway writes it, bytes: the members' names and punctuation (70), the target at 6
     * bytes a character (a control character's escape), and two headers of the longest name
     * ({@value Headers#FOLLOW_TOKEN}, 14 characters) with their values at 6 bytes a character.
     */
    public static final int MAX_READ_BYTES = 70 + 6 * MAX_TARGET_CHARS + 2 * (14 + 6 + 6 * MAX_HEADER_CHARS);

    /** The longest body of one result, bytes. */
    public static final int MAX_BODY_BYTES = 128 * 1024;

    /** {@code {"reads":[} and {@code ]}}. */
    private static final int REQUEST_FRAME_BYTES = 10 + 2;

    /** The longest result around its body: {@code {"status":503,"retryAfter":"…","body":} and {@code }}. */
    private static final int MAX_RESULT_FRAME_BYTES = 64;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonStringEncoder QUOTE = JsonStringEncoder.getInstance();
    private static final byte[] OPEN = "{\"results\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "]}".getBytes(StandardCharsets.US_ASCII);
    private static final String REQUEST_SHAPE =
            "body must be a JSON object {\"reads\": [{\"path\": \"/internal/v1/users/…\", \"query\": \"…\"}, …]}";

    /**
     * One GET read.
     *
     * @param path    its internal path, raw (percent-encoded as sent), one of {@link #SERVED}'s templates
     * @param query   its raw query without {@code ?}, or {@code null}
     * @param headers the headers its endpoint declares that the caller sent, by name as the endpoint spells it
     */
    public record Read(String path, String query, Map<String, String> headers) {
    }

    /**
     * One read's answer.
     *
     * @param status     its HTTP status; 0 for {@link #DEFERRED_RESULT}
     * @param retryAfter its {@code Retry-After}, or {@code null}
     * @param body       its JSON body (a problem document for a status other than 200); {@code null} when deferred
     */
    public record Result(int status, String retryAfter, byte[] body) {

        /** Whether the read was left to its own GET ({@link #DEFERRED_RESULT}). */
        public boolean deferred() {
            return status == 0;
        }
    }

    /** A read memory could not answer: the caller asks it as its own GET. */
    public static final Result DEFERRED_RESULT = new Result(0, null, null);

    private static final byte[] DEFERRED_JSON = "{\"deferred\":true}".getBytes(StandardCharsets.US_ASCII);

    private ReadBatch() {
    }

    /**
     * The longest request body of {@code reads} reads as the gateway writes it.
     *
     * @param reads how many reads, at least 1
     * @return bytes: the frame, {@code reads} reads of {@link #MAX_READ_BYTES} and the commas between them
     * @throws IllegalArgumentException when {@code reads < 1}
     */
    public static long requestBytes(int reads) {
        requireReads(reads);
        return REQUEST_FRAME_BYTES + (long) reads * MAX_READ_BYTES + (reads - 1);
    }

    /**
     * The longest answer body to {@code reads} reads.
     *
     * @param reads how many reads were asked, at least 1
     * @return bytes: the frame, {@code reads} results of a body of {@link #MAX_BODY_BYTES} and its frame, the commas
     * @throws IllegalArgumentException when {@code reads < 1}
     */
    public static long answerBytes(int reads) {
        requireReads(reads);
        return OPEN.length + CLOSE.length + (long) reads * (MAX_BODY_BYTES + MAX_RESULT_FRAME_BYTES) + (reads - 1);
    }

    private static void requireReads(int reads) {
        if (reads < 1) {
            throw new IllegalArgumentException("reads must be at least 1, was " + reads);
        }
    }

    /**
     * Whether a read fits the bounds a batch holds ({@link #MAX_TARGET_CHARS}, {@link #MAX_HEADER_CHARS}); a caller
     * sends one that does not as a request of its own.
     *
     * @param read a read
     * @return whether it may go into a batch
     */
    public static boolean fits(Read read) {
        int target = read.path().length() + (read.query() == null ? 0 : read.query().length() + 1);
        if (target > MAX_TARGET_CHARS) {
            return false;
        }
        for (String value : read.headers().values()) {
            if (value.length() > MAX_HEADER_CHARS) {
                return false;
            }
        }
        return true;
    }

    /**
     * The request body of a batch, compact, as {@link #MAX_READ_BYTES} counts it.
     *
     * @param reads the reads, in order, each {@link #fits}
     * @return {@code {"reads":[{"path":"…"[,"query":"…"][,"headers":{…}]},…]}} as UTF-8
     */
    public static byte[] encodeRequest(List<Read> reads) {
        StringBuilder json = new StringBuilder(16 + reads.size() * 96);
        json.append("{\"reads\":[");
        for (int i = 0; i < reads.size(); i++) {
            Read read = reads.get(i);
            if (i > 0) {
                json.append(',');
            }
            json.append("{\"path\":");
            quote(read.path(), json);
            if (read.query() != null) {
                json.append(",\"query\":");
                quote(read.query(), json);
            }
            if (!read.headers().isEmpty()) {
                json.append(",\"headers\":{");
                boolean first = true;
                for (Map.Entry<String, String> header : read.headers().entrySet()) {
                    if (!first) {
                        json.append(',');
                    }
                    first = false;
                    quote(header.getKey(), json);
                    json.append(':');
                    quote(header.getValue(), json);
                }
                json.append('}');
            }
            json.append('}');
        }
        return json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void quote(String text, StringBuilder json) {
        json.append('"');
        QUOTE.quoteAsString(text, json);
        json.append('"');
    }

    /**
     * The reads of a request body.
     *
     * @param body     the parsed body
     * @param batchMax most reads accepted
     * @return the reads, in order; each read's headers only those its endpoint declares (others are dropped)
     * @throws WireFormatException naming {@code body}, {@code reads}, or the member ({@code reads[3]},
     *                             {@code reads[3].path}, {@code reads[3].query}, {@code reads[3].headers}) for a
     *                             shape other than the above, a path none of {@link #SERVED} matches, or a value past
     *                             its bound
     */
    public static List<Read> decodeRequest(JsonNode body, int batchMax) {
        if (body == null || !body.isObject()) {
            throw new WireFormatException("body", REQUEST_SHAPE);
        }
        JsonNode reads = body.get(READS);
        if (reads == null || !reads.isArray() || reads.isEmpty()) {
            throw new WireFormatException(READS, "reads must be an array of 1 to " + batchMax
                    + " reads {\"path\": …, \"query\": …}");
        }
        if (reads.size() > batchMax) {
            throw new WireFormatException(READS,
                    "reads holds " + reads.size() + " reads; at most " + batchMax + " are allowed");
        }
        List<Read> out = new ArrayList<>(reads.size());
        for (int i = 0; i < reads.size(); i++) {
            JsonNode read = reads.get(i);
            String field = READS + "[" + i + "]";
            if (!read.isObject()) {
                throw new WireFormatException(field, field + " must be an object {\"path\": …, \"query\": …}");
            }
            String path = text(read.get(PATH), field + "." + PATH, false);
            Endpoint endpoint = endpoint(path);
            if (endpoint == null) {
                throw new WireFormatException(field + "." + PATH, field + "." + PATH
                        + " must be the path of one of the reads a batch holds: " + templates());
            }
            String query = text(read.get(QUERY), field + "." + QUERY, true);
            if (path.length() + (query == null ? 0 : query.length() + 1) > MAX_TARGET_CHARS) {
                throw new WireFormatException(field + "." + QUERY, field + ": path and query must be at most "
                        + MAX_TARGET_CHARS + " characters");
            }
            out.add(new Read(path, query, headers(read.get(HEADERS), field + "." + HEADERS, endpoint)));
        }
        return out;
    }

    /**
     * The read of {@link #SERVED} a path is.
     *
     * @param path an internal path
     * @return its endpoint, or {@code null}
     */
    public static Endpoint endpoint(String path) {
        for (int i = 0; i < SERVED.size(); i++) {
            if (SERVED.get(i).matches(path)) {
                return SERVED.get(i);
            }
        }
        return null;
    }

    private static String templates() {
        List<String> templates = new ArrayList<>();
        for (Endpoint endpoint : SERVED) {
            templates.add(endpoint.template());
        }
        return String.join(", ", templates);
    }

    private static String text(JsonNode node, String field, boolean optional) {
        if ((node == null || node.isNull()) && optional) {
            return null;
        }
        if (node == null || !node.isString()) {
            throw new WireFormatException(field, field + " must be a string");
        }
        return node.stringValue();
    }

    private static Map<String, String> headers(JsonNode node, String field, Endpoint endpoint) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new WireFormatException(field, field + " must be an object of header names to values");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String name : endpoint.headers()) {
            JsonNode value = node.get(name);
            if (value != null && !value.isNull()) {
                String text = text(value, field + "." + name, false);
                if (text.length() > MAX_HEADER_CHARS) {
                    throw new WireFormatException(field + "." + name, field + "." + name + " must be at most "
                            + MAX_HEADER_CHARS + " characters; was " + text.length());
                }
                headers.put(name, text);
            }
        }
        return headers;
    }

    /**
     * An answer body, from each read's status, {@code Retry-After} and JSON body.
     *
     * @param results one per read, in order; each body JSON of at most {@link #MAX_BODY_BYTES}, or
     *                {@link #DEFERRED_RESULT}
     * @return {@code {"results":[{"status":…[,"retryAfter":"…"],"body":…}|{"deferred":true},…]}}
     */
    public static byte[] encodeAnswer(List<Result> results) {
        byte[][] heads = new byte[results.size()][];
        int size = OPEN.length + CLOSE.length + Math.max(0, results.size() - 1);
        for (int i = 0; i < heads.length; i++) {
            Result result = results.get(i);
            if (result.deferred()) {
                heads[i] = DEFERRED_JSON;
                size += DEFERRED_JSON.length;
                continue;
            }
            StringBuilder head = new StringBuilder(48).append("{\"status\":").append(result.status());
            if (result.retryAfter() != null) {
                head.append(",\"retryAfter\":");
                quote(result.retryAfter(), head);
            }
            heads[i] = head.append(",\"body\":").toString().getBytes(StandardCharsets.UTF_8);
            size += heads[i].length + result.body().length + 1;
        }
        byte[] out = new byte[size];
        System.arraycopy(OPEN, 0, out, 0, OPEN.length);
        int at = OPEN.length;
        for (int i = 0; i < heads.length; i++) {
            if (i > 0) {
                out[at++] = ',';
            }
            System.arraycopy(heads[i], 0, out, at, heads[i].length);
            at += heads[i].length;
            byte[] body = results.get(i).body();
            if (body != null) {
                System.arraycopy(body, 0, out, at, body.length);
                at += body.length;
                out[at++] = '}';
            }
        }
        System.arraycopy(CLOSE, 0, out, at, CLOSE.length);
        return out;
    }

    /**
     * An answer body's results. Each body is cut out of the answer's bytes as it was written, not parsed into values
     * and written again.
     *
     * @param answer the body of a 200 answer
     * @param reads  how many reads were asked
     * @return one result per read, in order
     * @throws WireFormatException naming {@code results} when the answer is not JSON of the shape above or not
     *                             {@code reads} results
     */
    public static List<Result> decodeAnswer(byte[] answer, int reads) {
        List<Result> results = new ArrayList<>(reads);
        try (JsonParser parser = JSON.createParser(answer)) {
            expect(parser.nextToken(), JsonToken.START_OBJECT);
            expect(parser.nextToken(), JsonToken.PROPERTY_NAME);
            if (!RESULTS.equals(parser.currentName())) {
                throw new WireFormatException(RESULTS, "the batch read's answer has no results");
            }
            expect(parser.nextToken(), JsonToken.START_ARRAY);
            while (parser.nextToken() == JsonToken.START_OBJECT) {
                results.add(result(parser, answer));
            }
            expect(parser.currentToken(), JsonToken.END_ARRAY);
        } catch (WireFormatException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new WireFormatException(RESULTS, "the batch read's answer is not JSON: " + e.getMessage());
        }
        if (results.size() != reads) {
            throw new WireFormatException(RESULTS, "the batch read answered " + results.size() + " results to "
                    + reads + " reads");
        }
        return results;
    }

    private static Result result(JsonParser parser, byte[] answer) {
        int status = 0;
        String retryAfter = null;
        byte[] body = null;
        boolean deferred = false;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (name) {
                case DEFERRED -> deferred = value == JsonToken.VALUE_TRUE;
                case STATUS -> {
                    expect(value, JsonToken.VALUE_NUMBER_INT);
                    status = parser.getIntValue();
                }
                case RETRY_AFTER -> {
                    expect(value, JsonToken.VALUE_STRING);
                    retryAfter = parser.getString();
                }
                case BODY -> {
                    expect(value, JsonToken.START_OBJECT);
                    int from = (int) parser.currentTokenLocation().getByteOffset();
                    parser.skipChildren();
                    int to = (int) parser.currentLocation().getByteOffset();
                    body = java.util.Arrays.copyOfRange(answer, from, to);
                }
                default -> parser.skipChildren();
            }
        }
        if (deferred && status == 0 && body == null) {
            return DEFERRED_RESULT;
        }
        if (status < 100 || status > 599 || body == null) {
            throw new WireFormatException(RESULTS, "the batch read answered a result without a status or a body");
        }
        return new Result(status, retryAfter, body);
    }

    private static void expect(JsonToken token, JsonToken expected) {
        if (token != expected) {
            throw new WireFormatException(RESULTS, "the batch read's answer has " + token + " where " + expected
                    + " belongs");
        }
    }
}
