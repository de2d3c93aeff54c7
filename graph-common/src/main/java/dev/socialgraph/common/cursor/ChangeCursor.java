package dev.socialgraph.common.cursor;

import dev.socialgraph.common.cursor.InvalidCursorException.Reason;
import dev.socialgraph.common.sign.DomainMac;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

/**
 * Opaque, signed positions in the change stream ({@code GET /v1/changes}): for each partition of the
 * {@code follow-events} topic, the offset of the next record to read. Every instance that serves the stream reads
 * the same topic, so any instance accepts any cursor, and a cursor outlives every restart: it names Kafka offsets,
 * not anything held in one process.
 *
 * <p><b>Format, version 1.</b> base64url without padding (RFC 4648 section 5) of:
 * <pre>
 *  size  field
 *     1  version = 1
 *     2  partition count n, big-endian, 1..4096
 *   1-9  n times: the partition's next offset, unsigned LEB128 (the varint of protobuf and Kafka)
 *    16  HMAC-SHA256(key, "socialgraph/changes-cursor/v1" || everything before), first 16 bytes
 * </pre>
 * The MAC is truncated to 128 bits as the list cursor's is ({@link CursorCodec}): a cursor guards a stream position,
 * not an identity. The domain keeps a list cursor or a follow token, signed with the same key, from ever verifying as
 * a change cursor. A cursor is at most about 50 KB for 4,096 partitions; the local topic's 12 make it 42 characters
 * at their start and about 90 at a million records each.
 *
 * <p>Immutable and thread-safe.
 */
public final class ChangeCursor {

    /** The most partitions a cursor names (Kafka's own practical limit per topic is far lower). */
    public static final int MAX_PARTITIONS = 4096;

    private static final byte VERSION = 1;
    private static final int MAC_BYTES = 16;
    private static final int HEADER_BYTES = 3;
    private static final int MAX_VARINT_BYTES = 9; // 63 bits, 7 per byte
    /** The longest string any genuine cursor has: a longer one is refused before it is decoded. */
    private static final int MAX_ENCODED_LENGTH =
            (HEADER_BYTES + MAX_PARTITIONS * MAX_VARINT_BYTES + MAC_BYTES + 2) / 3 * 4;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final DomainMac key;

    /**
     * @param key the HMAC key, at least {@value CursorCodec#MIN_KEY_BYTES} bytes (the list cursors' key will do: the
     *            domain separates them); copied
     * @throws IllegalArgumentException if {@code key} is {@code null} or shorter than 32 bytes
     */
    public ChangeCursor(byte[] key) {
        if (key == null || key.length < CursorCodec.MIN_KEY_BYTES) {
            throw new IllegalArgumentException("cursor key must be at least " + CursorCodec.MIN_KEY_BYTES
                    + " bytes, was " + (key == null ? "null" : key.length + " bytes"));
        }
        this.key = new DomainMac(key, "socialgraph/changes-cursor/v1");
    }

    /**
     * Encodes a position.
     *
     * @param offsets for each partition, by partition number, the offset of the next record to read ({@code >= 0})
     * @return the base64url cursor
     * @throws IllegalArgumentException when there are no partitions, more than {@value #MAX_PARTITIONS}, or an offset
     *                                  is negative
     */
    public String encode(long[] offsets) {
        if (offsets.length == 0 || offsets.length > MAX_PARTITIONS) {
            throw new IllegalArgumentException("a cursor names 1 to " + MAX_PARTITIONS + " partitions, not "
                    + offsets.length);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(HEADER_BYTES + offsets.length * 3 + MAC_BYTES);
        out.write(VERSION);
        out.write(offsets.length >>> 8);
        out.write(offsets.length & 0xff);
        for (long offset : offsets) {
            if (offset < 0) {
                throw new IllegalArgumentException("offsets are not negative: " + offset);
            }
            long v = offset;
            while ((v & ~0x7fL) != 0) {
                out.write((int) ((v & 0x7f) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
        }
        byte[] payload = out.toByteArray();
        byte[] all = Arrays.copyOf(payload, payload.length + MAC_BYTES);
        System.arraycopy(key.mac(payload, payload.length), 0, all, payload.length, MAC_BYTES);
        return ENCODER.encodeToString(all);
    }

    /**
     * Decodes and verifies a cursor a client sent. Checks, in this order: present, not longer than any cursor, base64url
     * alphabet, version, signature (constant time), then the offsets' encoding.
     *
     * @param cursor the client's string; any value, including {@code null}
     * @return the offsets, by partition number
     * @throws InvalidCursorException for every string that is not a genuine change cursor; no other exception is
     *                                thrown for any {@code cursor}
     */
    public long[] decode(String cursor) {
        if (cursor == null || cursor.isEmpty()) {
            throw new InvalidCursorException(Reason.EMPTY, "cursor is empty");
        }
        if (cursor.length() > MAX_ENCODED_LENGTH) {
            throw new InvalidCursorException(Reason.LENGTH, "cursor is longer than any change cursor");
        }
        if (!DomainMac.isBase64Url(cursor) || cursor.length() % 4 == 1) {
            throw new InvalidCursorException(Reason.ENCODING, "cursor is not base64url");
        }
        byte[] bytes = DECODER.decode(cursor);
        if (bytes.length < HEADER_BYTES + 1 + MAC_BYTES || bytes[0] != VERSION) {
            throw new InvalidCursorException(Reason.VERSION, "cursor is not a change cursor of a known version");
        }
        int payloadLength = bytes.length - MAC_BYTES;
        byte[] expected = Arrays.copyOf(key.mac(bytes, payloadLength), MAC_BYTES);
        if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(bytes, payloadLength, bytes.length))) {
            throw new InvalidCursorException(Reason.TAMPERED, "cursor signature does not match");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, payloadLength);
        in.get();
        int partitions = in.getShort() & 0xffff;
        if (partitions == 0 || partitions > MAX_PARTITIONS) {
            throw new InvalidCursorException(Reason.TAMPERED, "cursor names no valid partition count");
        }
        long[] offsets = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            long v = 0;
            for (int shift = 0; ; shift += 7) {
                if (!in.hasRemaining() || shift > 56) {
                    // Only reachable with the key: encode never signs such bytes.
                    throw new InvalidCursorException(Reason.TAMPERED, "cursor holds an invalid position");
                }
                byte b = in.get();
                v |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
            }
            if (v < 0) {
                throw new InvalidCursorException(Reason.TAMPERED, "cursor holds an invalid position");
            }
            offsets[p] = v;
        }
        if (in.hasRemaining()) {
            throw new InvalidCursorException(Reason.TAMPERED, "cursor holds an invalid position");
        }
        return offsets;
    }
}
