package dev.socialgraph.check.api;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.web.BadParameterException;
import tools.jackson.databind.JsonNode;

/** Parsing of query parameters, headers and body members whose errors must name them. */
final class Params {

    private static final int MAX_ECHO = 32;

    private Params() {
    }

    /**
     * A page size: absent means {@code defaultLimit}; otherwise canonical decimal in {@code 1..max}.
     *
     * @throws BadParameterException naming {@code limit}
     */
    static int limit(String text, int defaultLimit, int max) {
        if (text == null) {
            return defaultLimit;
        }
        if (text.isEmpty() || text.length() > 6) {
            throw outOfRange(text, max);
        }
        int value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new BadParameterException("limit",
                        "limit must be an integer between 1 and " + max + ", was '" + echo(text) + "'");
            }
            value = value * 10 + (c - '0');
        }
        if (value < 1 || value > max) {
            throw outOfRange(text, max);
        }
        return value;
    }

    private static BadParameterException outOfRange(String text, int max) {
        return new BadParameterException("limit",
                "limit must be an integer between 1 and " + max + ", was '" + echo(text) + "'");
    }

    /**
     * A user id in a JSON body: a number, or a string of its canonical decimal digits (ids past 2^53 do not survive
     * JavaScript's numbers; see graph-web's {@code UserIdJson}).
     *
     * @param node  the member's value, or {@code null} when it is absent
     * @param field the member's name as the client sent it, e.g. {@code ids[3]} or {@code pairs[3].followerId}
     * @return the id, positive
     * @throws BadParameterException naming {@code field} when the value is absent or not a number or string
     * @throws dev.socialgraph.common.id.InvalidUserIdException naming {@code field} when it is not a positive
     *                                                         64-bit id
     */
    static long userId(JsonNode node, String field) {
        if (node != null && node.isIntegralNumber() && node.canConvertToLong()) {
            return UserIds.requirePositive(node.longValue(), field);
        }
        if (node != null && node.isString()) {
            return UserIds.parse(node.stringValue(), field);
        }
        throw new BadParameterException(field, field + " must be a positive integer user id");
    }

    /**
     * A follow token as carried: {@code X-Follow-Token}, or a pair's {@code followToken}. Any value up to
     * {@link FollowTokens#MAX_LENGTH} characters is taken as it is (one that does not verify only makes the read skip
     * nothing); a longer one can be no token at all, and is refused rather than read.
     *
     * @param token the value, or {@code null} when absent
     * @param field the name the client sent it under, e.g. {@code X-Follow-Token} or {@code pairs[3].followToken}
     * @return {@code token}
     * @throws BadParameterException naming {@code field} when it is longer than {@value FollowTokens#MAX_LENGTH}
     */
    static String followToken(String token, String field) {
        if (token != null && token.length() > FollowTokens.MAX_LENGTH) {
            throw new BadParameterException(field, field + " must be at most " + FollowTokens.MAX_LENGTH
                    + " characters, the follow token of a write; was " + token.length());
        }
        return token;
    }

    static String echo(String text) {
        return text.length() <= MAX_ECHO ? text : text.substring(0, MAX_ECHO) + "…";
    }
}
