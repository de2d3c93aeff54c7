package dev.socialgraph.common.id;

/**
 * Validation and parsing of user ids.
 *
 * <p>A user id is a positive 64-bit integer ({@code 1 .. Long.MAX_VALUE}); zero and negative values
 * never name a user (Redis uses {@code -1} as a sentinel member, see
 * {@code dev.socialgraph.common.keys.RedisKeys#SENTINEL}). The textual form accepted from a URL path
 * is the canonical decimal one: ASCII digits only, no sign, no leading zeros, no whitespace, at most
 * 19 digits. Rejecting {@code "+1"}, {@code "0001"} and {@code " 1"} keeps one spelling per user, so
 * caches, logs and ETags never see two names for the same id.
 */
public final class UserIds {

    /** Longest decimal spelling of a positive {@code long}: {@code 9223372036854775807}. */
    private static final int MAX_DIGITS = 19;

    /** How much of a rejected value an error message echoes; a path segment can be kilobytes long. */
    private static final int MAX_ECHO = 32;

    private UserIds() {
    }

    /**
     * Returns {@code id} when it is a valid user id.
     *
     * @param id    the value to check
     * @param field the name of the field or parameter, used in the error message (e.g. {@code "followeeId"})
     * @return {@code id}, so that the call can be used in an assignment or a constructor
     * @throws InvalidUserIdException when {@code id <= 0}; its message and {@link InvalidUserIdException#field()}
     *                                name {@code field}
     */
    public static long requirePositive(long id, String field) {
        if (id <= 0) {
            throw new InvalidUserIdException(field, field + " must be a positive user id, was " + id);
        }
        return id;
    }

    /**
     * Parses the canonical decimal form of a user id, e.g. a path segment of {@code /v1/users/{id}}.
     *
     * <p>Accepted: {@code [1-9][0-9]*} whose value is at most {@code Long.MAX_VALUE}. Runs in
     * O(length) and allocates nothing on success.
     *
     * @param text  the text to parse; may be {@code null}
     * @param field the name of the field or path variable, used in the error message
     * @return the id, positive
     * @throws InvalidUserIdException for {@code null}, empty, non-digit, signed, zero, leading-zero or
     *                                out-of-range input; the message names {@code field} and quotes
     *                                (at most 32 characters of) the input
     */
    public static long parse(String text, String field) {
        if (text == null || text.isEmpty()) {
            throw invalid(field, text, "is empty");
        }
        int length = text.length();
        if (length > MAX_DIGITS) {
            throw onlyDigits(text) ? invalid(field, text, "is too large") : invalid(field, text, "is not a number");
        }
        long value = 0;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw invalid(field, text, "is not a number");
            }
            int digit = c - '0';
            if (i == 0 && digit == 0) {
                throw invalid(field, text, length == 1 ? "is not positive" : "has leading zeros");
            }
            // value * 10 + digit would overflow exactly when value exceeds this bound.
            if (value > (Long.MAX_VALUE - digit) / 10) {
                throw invalid(field, text, "is too large");
            }
            value = value * 10 + digit;
        }
        return value;
    }

    private static boolean onlyDigits(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static InvalidUserIdException invalid(String field, String text, String problem) {
        String shown = text == null ? "null"
                : text.length() <= MAX_ECHO ? "'" + text + "'"
                : "'" + text.substring(0, MAX_ECHO) + "…' (" + text.length() + " characters)";
        return new InvalidUserIdException(field,
                field + " must be a positive decimal user id without sign or leading zeros, but " + shown + " "
                        + problem);
    }
}
