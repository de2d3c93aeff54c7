package dev.socialgraph.wire;

import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;

/**
 * The answer of the single follow check ({@link InternalApi#CHECK}, {@link PublicApi#IS_FOLLOWING}) and of each pair
 * of {@link InternalApi#PAIRS}: {@code {"following":true}} or {@code {"following":false}}, byte for byte the same from
 * every process that writes it.
 */
public final class FollowingAnswer {

    /** The member. */
    public static final String FOLLOWING = "following";

    private static final byte[] TRUE = "{\"following\":true}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "{\"following\":false}".getBytes(StandardCharsets.US_ASCII);

    private FollowingAnswer() {
    }

    /**
     * The encoded answer. The array is shared, for the hot path's sake: a caller writes it and never changes it.
     *
     * @param following the check's answer
     * @return US-ASCII JSON
     */
    public static byte[] bytes(boolean following) {
        return following ? TRUE : FALSE;
    }

    /**
     * Reads an answer.
     *
     * @param answer a parsed JSON value
     * @return its {@code following}
     * @throws WireFormatException naming {@code following} when the value is not an object with a boolean
     *                             {@code following}
     */
    public static boolean read(JsonNode answer) {
        JsonNode following = answer == null ? null : answer.get(FOLLOWING);
        if (following == null || !following.isBoolean()) {
            throw new WireFormatException(FOLLOWING, "a follow check's answer is {\"following\": true|false}, was "
                    + answer);
        }
        return following.booleanValue();
    }
}
