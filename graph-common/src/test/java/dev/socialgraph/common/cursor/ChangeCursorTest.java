package dev.socialgraph.common.cursor;

import dev.socialgraph.common.cursor.InvalidCursorException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ChangeCursorTest {

    static final byte[] KEY = "change-cursor-test-key-0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    final ChangeCursor codec = new ChangeCursor(KEY);

    @Test
    void roundTrips_everyOffset_fromZeroToTheLargest() {
        long[] offsets = {0, 1, 127, 128, 16_383, 16_384, 1L << 40, Long.MAX_VALUE};
        String cursor = codec.encode(offsets);
        assertThat(codec.decode(cursor)).containsExactly(offsets);
        assertThat(cursor).matches("[A-Za-z0-9_-]+");
        assertThat(codec.encode(new long[12])).hasSize(42); // the local topic's 12 partitions at their start
    }

    @Test
    void anotherInstanceWithTheSameKey_readsIt_andAnotherKeyDoesNot() {
        String cursor = codec.encode(new long[] {5, 9});
        assertThat(new ChangeCursor(KEY).decode(cursor)).containsExactly(5, 9);
        byte[] other = "another-change-cursor-key-0123456789ab".getBytes(StandardCharsets.UTF_8);
        assertThat(reason(() -> new ChangeCursor(other).decode(cursor))).isEqualTo(Reason.TAMPERED);
    }

    @Test
    void aListCursorSignedWithTheSameKey_isNoChangeCursor() {
        String listCursor = new CursorCodec(KEY).encode(ListKind.FOLLOWING, 1, 2, 3);
        assertThat(reason(() -> codec.decode(listCursor))).isIn(Reason.VERSION, Reason.TAMPERED);
    }

    @Test
    void everyChangedCharacter_isRefused() {
        String cursor = codec.encode(new long[] {300, 7, 0});
        for (int i = 0; i < cursor.length(); i++) {
            char c = cursor.charAt(i);
            String changed = cursor.substring(0, i) + (c == 'A' ? 'B' : 'A') + cursor.substring(i + 1);
            int at = i;
            assertThatThrownBy(() -> codec.decode(changed)).as("character " + at)
                    .isInstanceOf(InvalidCursorException.class);
        }
    }

    @Test
    void malformedStrings_areRefused_withTheirReason() {
        assertThat(reason(() -> codec.decode(null))).isEqualTo(Reason.EMPTY);
        assertThat(reason(() -> codec.decode(""))).isEqualTo(Reason.EMPTY);
        assertThat(reason(() -> codec.decode("not a cursor!"))).isEqualTo(Reason.ENCODING);
        assertThat(reason(() -> codec.decode("A"))).isEqualTo(Reason.ENCODING);
        assertThat(reason(() -> codec.decode("AAAA"))).isEqualTo(Reason.VERSION);
        assertThat(reason(() -> codec.decode("A".repeat(100_000)))).isEqualTo(Reason.LENGTH);
        String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[] {1, 0, 1, 5,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        assertThat(reason(() -> codec.decode(forged))).isEqualTo(Reason.TAMPERED);
    }

    @Test
    void encodeRefuses_whatNoPositionIs() {
        assertThatThrownBy(() -> codec.encode(new long[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.encode(new long[] {-1})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.encode(new long[ChangeCursor.MAX_PARTITIONS + 1]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ChangeCursor(new byte[31])).isInstanceOf(IllegalArgumentException.class);
    }

    private static Reason reason(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        InvalidCursorException e = catchThrowableOfType(InvalidCursorException.class, call);
        assertThat(e).isNotNull();
        return e.reason();
    }
}
