package dev.socialgraph.testsupport;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * Names for databases and topics that no other test uses: the caller's prefix, a separator and ten
 * random lower-case letters and digits (about 51 bits).
 */
final class UniqueNames {

    private static final int SUFFIX_LENGTH = 10;
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

    /** PostgreSQL identifiers are at most 63 bytes; the suffix takes 11 of them. */
    private static final Pattern DATABASE_PREFIX = Pattern.compile("[a-z_][a-z0-9_]{0,39}");

    /** Kafka topic names are at most 249 characters of these. */
    private static final Pattern TOPIC_PREFIX = Pattern.compile("[a-zA-Z0-9._-]{1,200}");

    private UniqueNames() {
    }

    /**
     * A lower-case database name {@code prefix_<random>}; the prefix is lower-cased first.
     *
     * @throws IllegalArgumentException unless the prefix is 1..40 letters, digits and underscores
     *     starting with a letter or underscore
     */
    static String database(String prefix) {
        String lowerCase = prefix.toLowerCase(Locale.ROOT);
        if (!DATABASE_PREFIX.matcher(lowerCase).matches()) {
            throw new IllegalArgumentException("Database prefix must be 1..40 of [a-z0-9_], not starting "
                    + "with a digit: '" + prefix + "'");
        }
        return lowerCase + "_" + suffix();
    }

    /**
     * A topic name {@code prefix-<random>}.
     *
     * @throws IllegalArgumentException unless the prefix is 1..200 of {@code [a-zA-Z0-9._-]}
     */
    static String topic(String prefix) {
        checkTopicName(prefix);
        return prefix + "-" + suffix();
    }

    static void checkTopicName(String name) {
        if (!TOPIC_PREFIX.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("Topic name must be 1..200 of [a-zA-Z0-9._-]: '" + name + "'");
        }
    }

    private static String suffix() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        char[] chars = new char[SUFFIX_LENGTH];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
        }
        return new String(chars);
    }
}
