package dev.socialgraph.common.cursor;

import dev.socialgraph.common.cursor.InvalidCursorException.Reason;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.sign.DomainMac;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * Opaque, signed list cursors (DESIGN.md 5: "opaque cursors encode {@code (followedAt, userId)}").
 *
 * <p><b>Format, version 1.</b> base64url without padding (RFC 4648 section 5) of 42 bytes, so always
 * 56 characters:
 * <pre>
 *  offset  size  field
 *       0     1  version = 1
 *       1     1  list kind code ({@link ListKind})
 *       2     8  owner user id, big-endian
 *      10     8  followedAt, epoch ms, big-endian
 *      18     8  userId, big-endian
 *      26    16  HMAC-SHA256(key, "socialgraph/cursor/v1" || bytes 0..25), first 16 bytes
 * </pre>
 * 42 is a multiple of 3, so every character carries data bits and each byte string has exactly one
 * encoding: changing any character changes the bytes and breaks the signature. The MAC is truncated to
 * 128 bits, which RFC 2104 section 5 allows (at least half the hash and at least 80 bits); a cursor only
 * guards a list position, not an identity. The domain string keeps a cursor from ever verifying as some
 * other token signed with the same key.
 *
 * <p>Kind and owner are in the clear so that a genuine cursor used on another list is reported as
 * {@link Reason#FOREIGN} rather than as tampering. The cursor hides nothing secret (the position is in
 * the page it came from); the signature makes it unforgeable, so a client cannot craft positions.
 *
 * <p>Immutable and thread-safe.
 */
public final class CursorCodec {

    /** Minimum key length in bytes: the output size of SHA-256 (RFC 2104 section 3). */
    public static final int MIN_KEY_BYTES = 32;

    /** Length of every cursor string of version 1. */
    public static final int ENCODED_LENGTH = 56;

    private static final byte VERSION = 1;
    private static final int PAYLOAD_BYTES = 26;
    private static final int MAC_BYTES = 16;
    private static final int TOTAL_BYTES = PAYLOAD_BYTES + MAC_BYTES;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final DomainMac key;

    /**
     * Creates a codec that signs and verifies with {@code key}.
     *
     * @param key the HMAC key, at least {@value #MIN_KEY_BYTES} bytes; copied. Every instance that must
     *            read another's cursors needs the same key (configuration, not code).
     * @throws IllegalArgumentException if {@code key} is {@code null} or shorter than 32 bytes
     */
    public CursorCodec(byte[] key) {
        if (key == null || key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("cursor key must be at least " + MIN_KEY_BYTES + " bytes, was "
                    + (key == null ? "null" : key.length + " bytes"));
        }
        this.key = new DomainMac(key, "socialgraph/cursor/v1");
    }

    /**
     * Encodes the position of the last item returned from a list.
     *
     * @param kind       the list kind
     * @param ownerId    the user whose list it is, positive (for {@link ListKind#COMMON}, the first user)
     * @param followedAt the last item's follow time, epoch ms ({@code 0} for {@link ListKind#COMMON})
     * @param userId     the last item's user id, positive
     * @return a 56-character base64url string
     * @throws IllegalArgumentException if {@code ownerId} or {@code userId} is not positive
     * @throws NullPointerException     if {@code kind} is {@code null}
     */
    public String encode(ListKind kind, long ownerId, long followedAt, long userId) {
        Objects.requireNonNull(kind, "kind");
        UserIds.requirePositive(ownerId, "ownerId");
        UserIds.requirePositive(userId, "userId");
        ByteBuffer bytes = ByteBuffer.allocate(TOTAL_BYTES)
                .put(VERSION)
                .put(kind.code())
                .putLong(ownerId)
                .putLong(followedAt)
                .putLong(userId);
        byte[] out = bytes.array();
        System.arraycopy(key.mac(out, PAYLOAD_BYTES), 0, out, PAYLOAD_BYTES, MAC_BYTES);
        return ENCODER.encodeToString(out);
    }

    /**
     * Encodes a position; same as {@link #encode(ListKind, long, long, long)}.
     *
     * @param kind     the list kind
     * @param ownerId  the user whose list it is, positive
     * @param position the last item's position
     * @return a 56-character base64url string
     * @throws IllegalArgumentException if {@code ownerId} is not positive
     * @throws NullPointerException     if {@code kind} or {@code position} is {@code null}
     */
    public String encode(ListKind kind, long ownerId, CursorPosition position) {
        return encode(kind, ownerId, position.followedAt(), position.userId());
    }

    /**
     * Decodes and verifies a cursor received from a client for the list {@code (kind, ownerId)}.
     *
     * <p>Checks, in this order: present, length 56, base64url alphabet, version, signature (compared in
     * constant time, {@link MessageDigest#isEqual}), list kind and owner. O(1); a 10 KB string is
     * rejected by its length before it is read.
     *
     * @param cursor  the client's string; any value, including {@code null}
     * @param kind    the list being requested
     * @param ownerId the owner of the list being requested
     * @return the position to continue after
     * @throws InvalidCursorException for every string that is not a genuine cursor of this list; its
     *                                message and {@link InvalidCursorException#reason()} say why. No other
     *                                exception is thrown for any {@code cursor}.
     * @throws NullPointerException   if {@code kind} is {@code null}
     */
    public CursorPosition decode(String cursor, ListKind kind, long ownerId) {
        Objects.requireNonNull(kind, "kind");
        if (cursor == null || cursor.isEmpty()) {
            throw new InvalidCursorException(Reason.EMPTY, "cursor is empty");
        }
        if (cursor.length() != ENCODED_LENGTH) {
            throw new InvalidCursorException(Reason.LENGTH,
                    "cursor has the wrong length: expected " + ENCODED_LENGTH + " characters, got " + cursor.length());
        }
        if (!DomainMac.isBase64Url(cursor)) {
            throw new InvalidCursorException(Reason.ENCODING, "cursor is not base64url");
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(cursor);
        } catch (IllegalArgumentException e) {
            // Unreachable after the checks above; kept so that no other exception can escape.
            throw new InvalidCursorException(Reason.ENCODING, "cursor is not base64url");
        }
        if (bytes.length != TOTAL_BYTES || bytes[0] != VERSION) {
            throw new InvalidCursorException(Reason.VERSION, "cursor has an unsupported version " + bytes[0]);
        }
        byte[] expected = Arrays.copyOf(key.mac(bytes, PAYLOAD_BYTES), MAC_BYTES);
        byte[] actual = Arrays.copyOfRange(bytes, PAYLOAD_BYTES, TOTAL_BYTES);
        if (!MessageDigest.isEqual(expected, actual)) {
            throw new InvalidCursorException(Reason.TAMPERED, "cursor signature does not match");
        }
        ByteBuffer fields = ByteBuffer.wrap(bytes);
        byte kindCode = fields.get(1);
        long owner = fields.getLong(2);
        if (kindCode != kind.code() || owner != ownerId) {
            throw new InvalidCursorException(Reason.FOREIGN, "cursor belongs to another list");
        }
        long followedAt = fields.getLong(10);
        long userId = fields.getLong(18);
        if (userId <= 0) {
            // Only reachable with the key: encode never signs such a position.
            throw new InvalidCursorException(Reason.TAMPERED, "cursor holds an invalid position");
        }
        return new CursorPosition(followedAt, userId);
    }
}
