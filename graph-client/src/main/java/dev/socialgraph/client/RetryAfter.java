package dev.socialgraph.client;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a {@code Retry-After} header (RFC 9110 section 10.2.3): {@code delay-seconds} (a non-negative decimal
 * integer) or an {@code HTTP-date} (section 5.6.7), which a recipient must accept in all three of its formats: the
 * IMF-fixdate {@code Sun, 06 Nov 1994 08:49:37 GMT}, the obsolete RFC 850 {@code Sunday, 06-Nov-94 08:49:37 GMT}
 * and ANSI C's asctime {@code Sun Nov  6 08:49:37 1994}. A date becomes the wait from {@code now} (zero once past),
 * so a caller holds one unit, a {@link Duration}. Pure; no clock of its own.
 */
final class RetryAfter {

    /** Longer waits are not a service's advice but a broken header; capping keeps {@link Duration} arithmetic safe. */
    static final Duration MAX = Duration.ofDays(1);

    private static final DateTimeFormatter ASCTIME = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .appendPattern("EEE MMM")
            .appendLiteral(' ')
            .padNext(2)
            .appendValue(ChronoField.DAY_OF_MONTH)
            .appendPattern(" HH:mm:ss yyyy")
            .toFormatter(Locale.US)
            .withZone(ZoneOffset.UTC);

    private RetryAfter() {
    }

    /**
     * The wait a {@code Retry-After} value asks for.
     *
     * @param value the header's value, or {@code null} when absent
     * @param now   when the answer arrived, the origin of an HTTP date
     * @return the wait, {@code 0..}{@link #MAX}; empty when absent or unreadable
     */
    static Optional<Duration> parse(String value, Instant now) {
        if (value == null) {
            return Optional.empty();
        }
        String v = value.strip();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            // More digits than a long holds is still "a very long time".
            if (v.length() > 9) {
                return Optional.of(MAX);
            }
            return Optional.of(min(Duration.ofSeconds(Long.parseLong(v))));
        }
        return date(v, now).map(at -> {
            Duration wait = Duration.between(now, at);
            return wait.isNegative() ? Duration.ZERO : min(wait);
        });
    }

    private static Optional<Instant> date(String v, Instant now) {
        try {
            // RFC_1123_DATE_TIME reads the IMF-fixdate (and tolerates a missing day name or a one-digit day).
            return Optional.of(ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (DateTimeParseException notImf) {
            // fall through to the obsolete formats
        }
        try {
            return Optional.of(ZonedDateTime.parse(v, rfc850(now)).toInstant());
        } catch (DateTimeParseException notRfc850) {
            // fall through
        }
        try {
            return Optional.of(ZonedDateTime.parse(v, ASCTIME).toInstant());
        } catch (DateTimeParseException notAsctime) {
            return Optional.empty();
        }
    }

    /**
     * RFC 850's two-digit year is read as the year within 50 years ahead of {@code now}'s or earlier (RFC 9110
     * section 5.6.7: "more than 50 years in the future" is the past century).
     */
    private static DateTimeFormatter rfc850(Instant now) {
        LocalDate base = LocalDate.ofInstant(now, ZoneOffset.UTC).minusYears(49);
        return new DateTimeFormatterBuilder()
                .parseCaseInsensitive()
                .appendPattern("EEEE, dd-MMM-")
                .appendValueReduced(ChronoField.YEAR, 2, 2, base)
                .appendPattern(" HH:mm:ss 'GMT'")
                .toFormatter(Locale.US)
                .withZone(ZoneOffset.UTC);
    }

    private static Duration min(Duration d) {
        return d.compareTo(MAX) > 0 ? MAX : d;
    }
}
