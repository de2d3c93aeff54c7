package dev.socialgraph.common.api;

import dev.socialgraph.common.token.FollowTokens;

/**
 * The size bounds of the bodies of {@code POST /internal/v1/following/pairs} ({@link ApiPaths#FOLLOWING_PAIRS}), one
 * place for both ends: the gateway writes requests of at most {@link #requestBytes} and reads answers of at most
 * {@link #answerBytes}; the check service refuses to start when its body limit cannot hold the largest request its
 * {@code batch-max} allows, and writes no result longer than {@link #MAX_RESULT_BYTES}.
 *
 * <p><b>A request</b> is {@code {"pairs":[p0,p1,…]}} with each pair written as the gateway writes it, compact:
 * {@code {"followerId":F,"followeeId":E,"followToken":"T"}}. Its longest: two ids of 19 digits
 * ({@link Long#MAX_VALUE}), and a token of {@link FollowTokens#MAX_LENGTH} (64) characters, each at most 6 bytes in a
 * JSON string (a control character's escape), 384 bytes: 14 + 19 + 14 + 19 + 16 + 384 + 2 = {@value #MAX_PAIR_BYTES}
 * bytes. A real token is 64 base64url characters, so a real pair is at most 148 bytes; the bound holds for any value
 * the gateway lets through. 1,000 pairs (the gateway's largest {@code max-batch}) are at most 469,011 bytes, under the
 * 1 MB every service accepts by default ({@code graph.web.max-request-size}).
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

    /**
     * The longest pair as the gateway writes it, bytes: {@code {"followerId":} (14), 19 digits, {@code ,"followeeId":}
     * (14), 19 digits, {@code ,"followToken":"} (16), 6 bytes for each of 64 characters (384), {@code "}} (2).
     */
    public static final int MAX_PAIR_BYTES = 14 + 19 + 14 + 19 + 16 + 6 * FollowTokens.MAX_LENGTH + 2;

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
}
