package dev.socialgraph.common.id;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class UserIdsTest {

    @Test
    void parse_whenCanonicalPositive_returnsValue() {
        assertThat(UserIds.parse("1", "id")).isEqualTo(1L);
        assertThat(UserIds.parse("42", "id")).isEqualTo(42L);
        assertThat(UserIds.parse("9223372036854775807", "id")).isEqualTo(Long.MAX_VALUE);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"0", "-1", "abc", "9223372036854775808", "99999999999999999999", " 1", "1 ", "+1",
            "0001", "00", "1e3", "١٢", "12345678901234567890123", "0x1F"})
    void parse_whenNotCanonicalPositive_throwsNamingField(String text) {
        InvalidUserIdException e = catchThrowableOfType(InvalidUserIdException.class,
                () -> UserIds.parse(text, "targetId"));

        assertThat(e).isNotNull();
        assertThat(e.field()).isEqualTo("targetId");
        assertThat(e.getMessage()).startsWith("targetId ");
    }

    @Test
    void parse_whenTooLarge_saysSo() {
        assertThatThrownBy(() -> UserIds.parse("9223372036854775808", "id")).hasMessageEndingWith("is too large");
    }

    @Test
    void parse_whenZero_saysNotPositive() {
        assertThatThrownBy(() -> UserIds.parse("0", "id")).hasMessageEndingWith("is not positive");
    }

    @Test
    void parse_whenHuge_truncatesEchoedInput() {
        String huge = "x".repeat(10_000);

        assertThatThrownBy(() -> UserIds.parse(huge, "id"))
                .isInstanceOf(InvalidUserIdException.class)
                .hasMessageContaining("(10000 characters)")
                .message().hasSizeLessThan(200);
    }

    @Property(tries = 300)
    void parse_ofToString_roundTrips(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long id) {
        assertThat(UserIds.parse(Long.toString(id), "id")).isEqualTo(id);
    }

    @Property(tries = 300)
    void parse_neverThrowsAnythingElse(@ForAll String text) {
        try {
            long id = UserIds.parse(text, "id");
            assertThat(id).isPositive();
            assertThat(Long.toString(id)).isEqualTo(text);
        } catch (InvalidUserIdException expected) {
            assertThat(expected.field()).isEqualTo("id");
        }
    }

    @Test
    void requirePositive_whenPositive_returnsId() {
        assertThat(UserIds.requirePositive(7, "followerId")).isEqualTo(7L);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void requirePositive_whenNotPositive_throwsNamingField(long id) {
        assertThatThrownBy(() -> UserIds.requirePositive(id, "followerId"))
                .isInstanceOf(InvalidUserIdException.class)
                .hasMessage("followerId must be a positive user id, was " + id);
    }
}
