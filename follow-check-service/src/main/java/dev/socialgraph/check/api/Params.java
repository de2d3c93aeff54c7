package dev.socialgraph.check.api;

import dev.socialgraph.web.BadParameterException;

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

    static String echo(String text) {
        return text.length() <= MAX_ECHO ? text : text.substring(0, MAX_ECHO) + "…";
    }
}
