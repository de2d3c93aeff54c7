package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code Retry-After} values as RFC 9110 section 10.2.3 writes them, and the ones a client must shrug off. */
class RetryAfterTest {

    /** RFC 9110's example date, Sun, 06 Nov 1994 08:49:37 GMT, less 120 s. */
    private static final Instant NOW = Instant.parse("1994-11-06T08:47:37Z");

    @Test
    void delaySeconds_isThatManySeconds() {
        assertThat(RetryAfter.parse("120", NOW)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse("0", NOW)).contains(Duration.ZERO);
        assertThat(RetryAfter.parse(" 1 ", NOW)).contains(Duration.ofSeconds(1));
    }

    @Test
    void delaySeconds_pastADay_isCappedAtADay() {
        assertThat(RetryAfter.parse("86401", NOW)).contains(RetryAfter.MAX);
        assertThat(RetryAfter.parse("99999999999999999999999", NOW)).contains(RetryAfter.MAX);
    }

    @Test
    void imfFixdate_isTheWaitFromNow() {
        assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).contains(Duration.ofSeconds(120));
    }

    @Test
    void obsoleteDateFormats_areReadToo() {
        assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse("Sun Nov  6 08:49:37 1994", NOW)).contains(Duration.ofSeconds(120));
    }

    @Test
    void aDateInThePast_isNoWait() {
        assertThat(RetryAfter.parse("Sat, 05 Nov 1994 08:49:37 GMT", NOW)).contains(Duration.ZERO);
    }

    @Test
    void absentOrUnreadable_isEmpty() {
        assertThat(RetryAfter.parse(null, NOW)).isEmpty();
        assertThat(RetryAfter.parse("", NOW)).isEmpty();
        assertThat(RetryAfter.parse("-1", NOW)).isEmpty();
        assertThat(RetryAfter.parse("1.5", NOW)).isEmpty();
        assertThat(RetryAfter.parse("soon", NOW)).isEmpty();
        assertThat(RetryAfter.parse("1994-11-06T08:49:37Z", NOW)).isEmpty();
    }
}
