package dev.socialgraph.wire;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.token.FollowTokens;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The bodies of {@code POST /internal/v1/following/pairs} ({@link InternalApi#PAIRS}), their codec and size bounds, one
 * home for both ends: the gateway encodes requests ({@link #encodeRequest}) and decodes answers ({@link #decodeAnswer});
 * the check service decodes requests ({@link #decodeRequest}) and encodes answers ({@link #encodeAnswer}). Bounds: the gateway writes requests of at most {@link #requestBytes} and reads answers of at most
 * {@link #answerBytes}; the check service refuses to start when its body limit cannot hold the largest request its
 * {@code batch-max} allows, and writes no result longer than {@link #MAX_RESULT_BYTES}.
 *
 * <p><b>A request</b> is {@code {"pairs":[p0,p1,…]}} with each pair written as the gateway writes it, compact:
 * {@code {"followerId":F,"followeeId":E,"viewerId":V,"followToken":"T"}}, where {@code viewerId} (optional) is who
 * asks, the token's subject at the gateway: the pair's single check would carry it as {@code X-Viewer-Id}, and the
 * check answers a protected follower's follows only to the follower and its followers. Its longest: three ids of 19
 * digits ({@link Long#MAX_VALUE}), and a token of {@link FollowTokens#MAX_LENGTH} (64) characters, each at most 6 bytes
 * in a JSON string (a control character's escape), 384 bytes: 14 + 19 + 14 + 19 + 12 + 19 + 16 + 384 + 2 =
 * {@value #MAX_PAIR_BYTES} bytes. A real token is 64 base64url characters, so a real pair is at most 179 bytes; the
 * bound holds for any value the gateway lets through. 1,000 pairs (the gateway's largest {@code max-batch}) are at
 * most 500,011 bytes, under the 1 MB every service accepts by default ({@code graph.web.max-request-size}).
 *
 * <p><b>An answer</b> is {@code {"results":[r0,r1,…]}}, each result {@code {"following":true|false}} or a problem
 * document of at most {@value #MAX_RESULT_BYTES} bytes. The largest problem the check service writes for a pair is
 * about 250 bytes (the shard-unavailable problem, whose {@code instance} names two 19-digit ids); the bound leaves
 * four times that, so a longer detail does not break the contract, while a service answering a megabyte for a few
 * pairs is refused.
 */
public final class FollowingPairs {

    /** The body member holding the pairs. */
    public static final String PAIRS = "pairs";

    /** The body member holding the results. */
    public static final String RESULTS = "results";

    /** A pair's members. */
    public static final String FOLLOWER_ID = "followerId";
    public static final String FOLLOWEE_ID = "followeeId";
    public static final String VIEWER_ID = "viewerId";
    public static final String FOLLOW_TOKEN = "followToken";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonStringEncoder QUOTE = JsonStringEncoder.getInstance();
    private static final byte[] OPEN = "{\"results\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "]}".getBytes(StandardCharsets.US_ASCII);
    private static final String REQUEST_SHAPE =
            "body must be a JSON object {\"pairs\": [{\"followerId\": …, \"followeeId\": …}, …]}";

    /**
     * The pairs of one request, aligned.
     *
     * @param followerIds  positive user ids
     * @param followeeIds  positive user ids
     * @param viewerIds    who asks each pair (the token's subject), positive, or 0 where none is named (a backend,
     *                     who sees every follow)
     * @param followTokens each pair's follow token as the caller sent it, {@code null} where it sent none
     */
    public record Request(long[] followerIds, long[] followeeIds, long[] viewerIds, String[] followTokens) {

        /** How many pairs. */
        public int size() {
            return followerIds.length;
        }
    }

    /** One pair's result: the check's answer, or the problem its single check would have answered. */
    public sealed interface Result permits Following, Problem {
    }

    /** {@code {"following":bool}}. */
    public record Following(boolean following) implements Result {
    }

    /**
     * A problem document.
     *
     * @param status  its HTTP status, 400 to 599
     * @param members its members as the service wrote them
     */
    public record Problem(int status, Map<String, Object> members) implements Result {
    }
    /**
     * The longest pair as the gateway writes it, bytes: {@code {"followerId":} (14), 19 digits, {@code ,"followeeId":}
     * (14), 19 digits, {@code ,"viewerId":} (12), 19 digits, {@code ,"followToken":"} (16), 6 bytes for each of 64
     * characters (384), {@code "}} (2).
     */
    public static final int MAX_PAIR_BYTES = 14 + 19 + 14 + 19 + 12 + 19 + 16 + 6 * FollowTokens.MAX_LENGTH + 2;

    /** The longest result the check service writes for one pair, bytes (a problem document; see above). */
    public static final int MAX_RESULT_BYTES = 1024;

    /** {@code {"pairs":[} and {@code ]}}. */
    private static final int REQUEST_FRAME_BYTES = 10 + 2;

    /** {@code {"results":[} and {@code ]}}. */
    private static final int ANSWER_FRAME_BYTES = 12 + 2;

    private FollowingPairs() {
    }

    /**
     * The longest request body of {@code pairs} pairs as the gateway writes it.
     *
     * @param pairs how many pairs, at least 1
     * @return bytes: the frame, {@code pairs} pairs of {@value #MAX_PAIR_BYTES} and the commas between them
     * @throws IllegalArgumentException when {@code pairs < 1}
     */
    public static long requestBytes(int pairs) {
        requirePairs(pairs);
        return REQUEST_FRAME_BYTES + (long) pairs * MAX_PAIR_BYTES + (pairs - 1);
    }

    /**
     * The longest answer body to {@code pairs} pairs.
     *
     * @param pairs how many pairs were asked, at least 1
     * @return bytes: the frame, {@code pairs} results of {@value #MAX_RESULT_BYTES} and the commas between them
     * @throws IllegalArgumentException when {@code pairs < 1}
     */
    public static long answerBytes(int pairs) {
        requirePairs(pairs);
        return ANSWER_FRAME_BYTES + (long) pairs * MAX_RESULT_BYTES + (pairs - 1);
    }

    private static void requirePairs(int pairs) {
        if (pairs < 1) {
            throw new IllegalArgumentException("pairs must be at least 1, was " + pairs);
        }
    }

    /**
     * The request body of a batch, compact, as {@link #MAX_PAIR_BYTES} counts it.
     *
     * @param request the pairs, in order
     * @return {@code {"pairs":[{"followerId":…,"followeeId":…[,"viewerId":…][,"followToken":"…"]},…]}} as UTF-8,
     *         each pair's own viewer and token (JSON-escaped) in its own object, none where there is none
     */
    public static byte[] encodeRequest(Request request) {
        int n = request.size();
        StringBuilder json = new StringBuilder(16 + n * 64);
        json.append("{\"pairs\":[");
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append("{\"followerId\":").append(request.followerIds()[i])
                    .append(",\"followeeId\":").append(request.followeeIds()[i]);
            long viewer = request.viewerIds()[i];
            if (viewer != 0) {
                json.append(",\"viewerId\":").append(viewer);
            }
            String token = request.followTokens()[i];
            if (token != null) {
                json.append(",\"followToken\":\"");
                QUOTE.quoteAsString(token, json);
                json.append('"');
            }
            json.append('}');
        }
        return json.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The pairs of a request body. Ids are JSON numbers or decimal strings; {@code viewerId} is optional (absent or
     * {@code null}: no viewer, 0); {@code followToken} is optional ({@code null} is the same as absent) and at most
     * {@link FollowTokens#MAX_LENGTH} characters.
     *
     * @param body     the parsed body
     * @param batchMax most pairs accepted
     * @return the pairs, in order
     * @throws WireFormatException naming {@code body}, {@code pairs}, or the member ({@code pairs[3]},
     *                             {@code pairs[3].followerId}, {@code pairs[3].followToken})
     * @throws InvalidUserIdException naming the member of an id that is not a positive 64-bit id
     */
    public static Request decodeRequest(JsonNode body, int batchMax) {
        if (body == null || !body.isObject()) {
            throw new WireFormatException("body", REQUEST_SHAPE);
        }
        JsonNode pairs = body.get(PAIRS);
        if (pairs == null || !pairs.isArray() || pairs.isEmpty()) {
            throw new WireFormatException(PAIRS, "pairs must be an array of 1 to " + batchMax
                    + " pairs {\"followerId\": …, \"followeeId\": …}");
        }
        if (pairs.size() > batchMax) {
            throw new WireFormatException(PAIRS,
                    "pairs holds " + pairs.size() + " pairs; at most " + batchMax + " are allowed");
        }
        int n = pairs.size();
        long[] followers = new long[n];
        long[] followees = new long[n];
        long[] viewers = new long[n];
        String[] tokens = new String[n];
        for (int i = 0; i < n; i++) {
            JsonNode pair = pairs.get(i);
            String field = PAIRS + "[" + i + "]";
            if (!pair.isObject()) {
                throw new WireFormatException(field,
                        field + " must be an object {\"followerId\": …, \"followeeId\": …}");
            }
            followers[i] = userId(pair.get(FOLLOWER_ID), field + "." + FOLLOWER_ID);
            followees[i] = userId(pair.get(FOLLOWEE_ID), field + "." + FOLLOWEE_ID);
            JsonNode viewer = pair.get(VIEWER_ID);
            if (viewer != null && !viewer.isNull()) {
                viewers[i] = userId(viewer, field + "." + VIEWER_ID);
            }
            JsonNode token = pair.get(FOLLOW_TOKEN);
            if (token != null && !token.isNull()) {
                String name = field + "." + FOLLOW_TOKEN;
                if (!token.isString()) {
                    throw new WireFormatException(name, name + " must be a string, the X-Follow-Token of a write");
                }
                tokens[i] = followToken(token.stringValue(), name);
            }
        }
        return new Request(followers, followees, viewers, tokens);
    }

    /**
     * A follow token as carried ({@link Headers#FOLLOW_TOKEN}, or a pair's {@code followToken}): any value up to
     * {@link FollowTokens#MAX_LENGTH} characters is taken as it is (one that does not verify only makes the read skip
     * nothing); a longer one can be no token at all, and is refused rather than read.
     *
     * @param token the value, or {@code null} when absent
     * @param field the name the client sent it under
     * @return {@code token}
     * @throws WireFormatException naming {@code field} when it is longer than {@link FollowTokens#MAX_LENGTH}
     */
    public static String followToken(String token, String field) {
        if (token != null && token.length() > FollowTokens.MAX_LENGTH) {
            throw new WireFormatException(field, field + " must be at most " + FollowTokens.MAX_LENGTH
                    + " characters, the follow token of a write; was " + token.length());
        }
        return token;
    }

    /**
     * A user id of a JSON body: a JSON number or a decimal string.
     *
     * @throws WireFormatException naming {@code field} when the value is absent or not a number or string
     * @throws InvalidUserIdException naming {@code field} when it is not a positive 64-bit id
     */
    public static long userId(JsonNode node, String field) {
        if (node != null && node.isIntegralNumber() && node.canConvertToLong()) {
            return UserIds.requirePositive(node.longValue(), field);
        }
        if (node != null && node.isString()) {
            return UserIds.parse(node.stringValue(), field);
        }
        throw new WireFormatException(field, field + " must be a positive integer user id");
    }

    /**
     * An answer body, from results already encoded (each {@link FollowingAnswer#bytes} or a problem document of at
     * most {@link #MAX_RESULT_BYTES}).
     *
     * @param results one encoded result per pair, in order
     * @return {@code {"results":[r0,r1,…]}}
     */
    public static byte[] encodeAnswer(byte[][] results) {
        int size = OPEN.length + CLOSE.length + Math.max(0, results.length - 1);
        for (byte[] result : results) {
            size += result.length;
        }
        byte[] out = new byte[size];
        System.arraycopy(OPEN, 0, out, 0, OPEN.length);
        int at = OPEN.length;
        for (int i = 0; i < results.length; i++) {
            if (i > 0) {
                out[at++] = ',';
            }
            System.arraycopy(results[i], 0, out, at, results[i].length);
            at += results[i].length;
        }
        System.arraycopy(CLOSE, 0, out, at, CLOSE.length);
        return out;
    }

    /**
     * An answer body's results.
     *
     * @param body  the body of a 200 answer
     * @param pairs how many pairs were asked
     * @return one result per pair, in order
     * @throws WireFormatException naming {@code results} when the body is not JSON, not {@code pairs} results, or a
     *                             result of neither shape
     */
    public static List<Result> decodeAnswer(byte[] body, int pairs) {
        JsonNode results;
        try {
            results = JSON.readTree(body).path(RESULTS);
        } catch (RuntimeException e) {
            throw new WireFormatException(RESULTS, "the batch check's answer is not JSON");
        }
        if (!results.isArray() || results.size() != pairs) {
            throw new WireFormatException(RESULTS, "the batch check answered "
                    + (results.isArray() ? results.size() : "no") + " results to " + pairs + " pairs");
        }
        Following yes = new Following(true);
        Following no = new Following(false);
        List<Result> answers = new ArrayList<>(pairs);
        for (JsonNode result : results) {
            JsonNode following = result.get(FollowingAnswer.FOLLOWING);
            ProblemDocument problem = following == null ? ProblemDocument.of(result).orElse(null) : null;
            if (following != null && following.isBoolean()) {
                answers.add(following.booleanValue() ? yes : no);
            } else if (problem != null && problem.status() != 0) {
                answers.add(new Problem(problem.status(), problem.members()));
            } else {
                throw new WireFormatException(RESULTS, "the batch check answered a result of neither shape: " + result);
            }
        }
        return answers;
    }
}
