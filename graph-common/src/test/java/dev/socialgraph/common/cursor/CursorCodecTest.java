package dev.socialgraph.common.cursor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.socialgraph.common.cursor.InvalidCursorException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class CursorCodecTest {

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final CursorCodec CODEC = new CursorCodec(KEY);
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    @Test
    void encode_thenDecode_returnsPosition() {
        String cursor = CODEC.encode(ListKind.FOLLOWING, 42, 1_700_000_000_000L, 9);

        assertThat(cursor).hasSize(CursorCodec.ENCODED_LENGTH).matches("[A-Za-z0-9_-]+");
        assertThat(CODEC.decode(cursor, ListKind.FOLLOWING, 42)).isEqualTo(new CursorPosition(1_700_000_000_000L, 9));
    }

    @Test
    void encode_isDeterministic() {
        assertThat(CODEC.encode(ListKind.FOLLOWERS, 1, 2, 3)).isEqualTo(CODEC.encode(ListKind.FOLLOWERS, 1,
                new CursorPosition(2, 3)));
    }

    @Test
    void decode_whenNullOrEmpty_rejectsAsEmpty() {
        assertRejected(null, Reason.EMPTY, "cursor is empty");
        assertRejected("", Reason.EMPTY, "cursor is empty");
    }

    @Test
    void decode_whenWrongLength_rejectsAsLength() {
        String cursor = CODEC.encode(ListKind.FOLLOWING, 42, 1, 9);

        assertRejected(cursor.substring(1), Reason.LENGTH,
                "cursor has the wrong length: expected 56 characters, got 55");
        assertRejected(cursor + "A", Reason.LENGTH, "cursor has the wrong length: expected 56 characters, got 57");
        assertRejected("x".repeat(10_240), Reason.LENGTH,
                "cursor has the wrong length: expected 56 characters, got 10240");
    }

    @Test
    void decode_whenNotBase64Url_rejectsAsEncoding() {
        String cursor = CODEC.encode(ListKind.FOLLOWING, 42, 1, 9);

        assertRejected("+" + cursor.substring(1), Reason.ENCODING, "cursor is not base64url");
        assertRejected(cursor.substring(0, 55) + "=", Reason.ENCODING, "cursor is not base64url");
        assertRejected(cursor.substring(0, 55) + "é", Reason.ENCODING, "cursor is not base64url");
        assertRejected(" ".repeat(56), Reason.ENCODING, "cursor is not base64url");
    }

    @Test
    void decode_whenSignatureChanged_rejectsAsTampered() {
        String cursor = CODEC.encode(ListKind.FOLLOWING, 42, 1, 9);
        char last = cursor.charAt(55);

        assertRejected(cursor.substring(0, 55) + (last == 'A' ? 'B' : 'A'), Reason.TAMPERED,
                "cursor signature does not match");
    }

    @Test
    void decode_whenPositionChanged_rejectsAsTampered() {
        byte[] bytes = Base64.getUrlDecoder().decode(CODEC.encode(ListKind.FOLLOWING, 42, 1, 9));
        bytes[25] = 10; // userId 9 -> 10

        assertRejected(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), Reason.TAMPERED,
                "cursor signature does not match");
    }

    @Test
    void decode_whenSignedWithOtherKey_rejectsAsTampered() {
        byte[] otherKey = KEY.clone();
        otherKey[0] ^= 1;
        String cursor = new CursorCodec(otherKey).encode(ListKind.FOLLOWING, 42, 1, 9);

        assertRejected(cursor, Reason.TAMPERED, "cursor signature does not match");
    }

    @Test
    void decode_whenVersionChanged_rejectsAsVersion() {
        byte[] bytes = Base64.getUrlDecoder().decode(CODEC.encode(ListKind.FOLLOWING, 42, 1, 9));
        bytes[0] = 2;

        assertRejected(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), Reason.VERSION,
                "cursor has an unsupported version 2");
    }

    @Test
    void decode_whenFromOtherOwner_rejectsAsForeign() {
        String cursor = CODEC.encode(ListKind.FOLLOWING, 42, 1, 9);

        InvalidCursorException e = catchThrowableOfType(InvalidCursorException.class,
                () -> CODEC.decode(cursor, ListKind.FOLLOWING, 43));
        assertThat(e.reason()).isEqualTo(Reason.FOREIGN);
        assertThat(e).hasMessage("cursor belongs to another list");
    }

    @Test
    void decode_whenFromOtherListKind_rejectsAsForeign() {
        String cursor = CODEC.encode(ListKind.FOLLOWING, 42, 1, 9);

        for (ListKind other : new ListKind[] {ListKind.FOLLOWERS, ListKind.COMMON}) {
            InvalidCursorException e = catchThrowableOfType(InvalidCursorException.class,
                    () -> CODEC.decode(cursor, other, 42));
            assertThat(e.reason()).isEqualTo(Reason.FOREIGN);
        }
    }

    @Test
    void decode_whenAnySingleBitFlipped_rejects() {
        String cursor = CODEC.encode(ListKind.COMMON, Long.MAX_VALUE, 0, Long.MAX_VALUE);
        byte[] bytes = Base64.getUrlDecoder().decode(cursor);

        for (int bit = 0; bit < bytes.length * 8; bit++) {
            byte[] flipped = bytes.clone();
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(flipped);
            int flippedBit = bit;
            assertThatThrownBy(() -> CODEC.decode(tampered, ListKind.COMMON, Long.MAX_VALUE))
                    .as("bit %d", flippedBit)
                    .isInstanceOf(InvalidCursorException.class)
                    .extracting(e -> ((InvalidCursorException) e).reason())
                    .isIn(Reason.VERSION, Reason.TAMPERED, Reason.FOREIGN);
        }
    }

    @Test
    void decode_whenAnyCharacterReplaced_rejects() {
        String cursor = CODEC.encode(ListKind.FOLLOWERS, 7, 123, 8);

        for (int i = 0; i < cursor.length(); i++) {
            for (char c : ALPHABET.toCharArray()) {
                if (c == cursor.charAt(i)) {
                    continue;
                }
                String changed = cursor.substring(0, i) + c + cursor.substring(i + 1);
                assertThatThrownBy(() -> CODEC.decode(changed, ListKind.FOLLOWERS, 7))
                        .isInstanceOf(InvalidCursorException.class);
            }
        }
    }

    @Test
    void encode_whenIdsNotPositive_throws() {
        assertThatThrownBy(() -> CODEC.encode(ListKind.FOLLOWING, 0, 1, 9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ownerId must be a positive user id, was 0");
        assertThatThrownBy(() -> CODEC.encode(ListKind.FOLLOWING, 1, 1, -9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("userId must be a positive user id, was -9");
    }

    @Test
    void constructor_whenKeyTooShort_throws() {
        assertThatThrownBy(() -> new CursorCodec(new byte[31]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cursor key must be at least 32 bytes, was 31 bytes");
        assertThatThrownBy(() -> new CursorCodec(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void constructor_copiesKey() {
        byte[] key = KEY.clone();
        CursorCodec codec = new CursorCodec(key);
        String cursor = codec.encode(ListKind.FOLLOWING, 1, 2, 3);
        key[0] ^= 1;

        assertThat(codec.decode(cursor, ListKind.FOLLOWING, 1)).isEqualTo(new CursorPosition(2, 3));
    }

    @Provide
    Arbitrary<String> garbage() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(200),
                Arbitraries.strings().all().ofMaxLength(100),
                Arbitraries.strings().withChars(ALPHABET.toCharArray()).ofLength(CursorCodec.ENCODED_LENGTH),
                Arbitraries.strings().withChars(ALPHABET.toCharArray()).ofMinLength(50).ofMaxLength(60),
                Arbitraries.strings().withChars(ALPHABET + "=+/ \n\u00e9\u4e2d").ofLength(CursorCodec.ENCODED_LENGTH),
                Arbitraries.strings().ofLength(10_240));
    }

    @Property(tries = 500)
    void decode_whenRandomString_throwsOnlyInvalidCursor(@ForAll("garbage") String cursor,
            @ForAll ListKind kind, @ForAll @LongRange(min = 1) long ownerId) {
        assertThatThrownBy(() -> CODEC.decode(cursor, kind, ownerId)).isInstanceOf(InvalidCursorException.class);
    }

    @Property(tries = 300)
    void encodeThenDecode_roundTrips(@ForAll ListKind kind, @ForAll @LongRange(min = 1) long ownerId,
            @ForAll long followedAt, @ForAll @LongRange(min = 1) long userId) {
        String cursor = CODEC.encode(kind, ownerId, followedAt, userId);

        assertThat(cursor).hasSize(CursorCodec.ENCODED_LENGTH);
        assertThat(CODEC.decode(cursor, kind, ownerId)).isEqualTo(new CursorPosition(followedAt, userId));
    }

    @Property(tries = 300)
    void decode_whenBitFlippedAnywhere_rejects(@ForAll ListKind kind, @ForAll @LongRange(min = 1) long ownerId,
            @ForAll long followedAt, @ForAll @LongRange(min = 1) long userId,
            @ForAll @IntRange(min = 0, max = 42 * 8 - 1) int bit) {
        byte[] bytes = Base64.getUrlDecoder().decode(CODEC.encode(kind, ownerId, followedAt, userId));
        bytes[bit / 8] ^= (byte) (1 << (bit % 8));
        String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);

        assertThatThrownBy(() -> CODEC.decode(tampered, kind, ownerId)).isInstanceOf(InvalidCursorException.class);
    }

    private static void assertRejected(String cursor, Reason reason, String message) {
        InvalidCursorException e = catchThrowableOfType(InvalidCursorException.class,
                () -> CODEC.decode(cursor, ListKind.FOLLOWING, 42));
        assertThat(e).as("rejection of %s", cursor).isNotNull().hasMessage(message);
        assertThat(e.reason()).isEqualTo(reason);
    }
}
