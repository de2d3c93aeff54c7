package dev.socialgraph.bloom;

import com.google.common.io.ByteStreams;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The snapshot file, all integers big-endian ({@link DataOutputStream}):
 *
 * <pre>
 * size  field
 *    4  magic "GBF1"
 *    2  format version = 1
 *    2  logical shard count, 2 first shard, 2 last shard (covered, inclusive)
 *    8  edges put; 8 expected edges (filter size); 8 fpp, IEEE-754 double
 *    8  creation time, epoch ms
 *    2  topic name length n (1..249), n bytes UTF-8
 *    4  partition count p, then p × (4 partition, 8 next offset to read), partitions ascending
 *    8  length of the filter bytes m, then m bytes of Guava BloomFilter.writeTo
 *    4  CRC32C of every byte before it
 * </pre>
 *
 * A CRC32C detects every error burst up to 32 bits and any other corruption with probability 1 - 2^-32; the
 * length fields are bounded by the file size before anything is allocated, so a corrupt length cannot
 * exhaust memory.
 */
final class SnapshotFormat {

    static final int MAGIC = 0x47424631; // "GBF1"
    static final int VERSION = 1;
    /** Guava's BloomFilter.writeTo header: strategy ordinal (1), hash functions (1), number of longs (4). */
    private static final int GUAVA_HEADER = 6;

    private SnapshotFormat() {
    }

    static void write(BloomSnapshot s, OutputStream sink) throws IOException {
        CRC32C crc = new CRC32C();
        DataOutputStream out = new DataOutputStream(new CheckedOutputStream(new BufferedOutputStream(sink, 1 << 16),
                crc));
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeShort(s.logicalShards());
        out.writeShort(s.firstShard());
        out.writeShort(s.lastShard());
        out.writeLong(s.edgeCount());
        out.writeLong(s.filter().expectedEdges());
        out.writeDouble(s.filter().fpp());
        out.writeLong(s.createdAt());
        byte[] topic = s.topic().getBytes(StandardCharsets.UTF_8);
        out.writeShort(topic.length);
        out.write(topic);
        out.writeInt(s.nextOffsets().size());
        for (Map.Entry<Integer, Long> e : s.nextOffsets().entrySet()) {
            out.writeInt(e.getKey());
            out.writeLong(e.getValue());
        }
        CountingOutputStream counter = new CountingOutputStream();
        s.filter().writeTo(counter);
        out.writeLong(counter.count);
        s.filter().writeTo(out);
        out.flush();
        int checksum = (int) crc.getValue();
        DataOutputStream tail = new DataOutputStream(sink);
        tail.writeInt(checksum);
        tail.flush();
    }

    static BloomSnapshot read(Path file) throws IOException {
        long size = Files.size(file);
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            CRC32C crc = new CRC32C();
            DataInputStream in = new DataInputStream(new CheckedInputStream(raw, crc));
            if (in.readInt() != MAGIC) {
                throw new CorruptSnapshotException(file, "not a bloom snapshot (bad magic)", null);
            }
            int version = in.readUnsignedShort();
            if (version != VERSION) {
                throw new CorruptSnapshotException(file, "unsupported format version " + version, null);
            }
            int shards = in.readUnsignedShort();
            int first = in.readUnsignedShort();
            int last = in.readUnsignedShort();
            long edges = in.readLong();
            long expected = in.readLong();
            double fpp = in.readDouble();
            long createdAt = in.readLong();
            int topicLength = in.readUnsignedShort();
            if (topicLength < 1 || topicLength > 249 * 4) {
                throw new CorruptSnapshotException(file, "bad topic length " + topicLength, null);
            }
            String topic = new String(in.readNBytes(topicLength), StandardCharsets.UTF_8);
            int partitions = in.readInt();
            if (partitions < 0 || partitions > size / 12) {
                throw new CorruptSnapshotException(file, "bad partition count " + partitions, null);
            }
            Map<Integer, Long> offsets = new TreeMap<>();
            for (int i = 0; i < partitions; i++) {
                offsets.put(in.readInt(), in.readLong());
            }
            long filterLength = in.readLong();
            if (filterLength < 0 || filterLength > size) {
                throw new CorruptSnapshotException(file, "bad filter length " + filterLength, null);
            }
            // Guava's header (strategy byte, hash count byte, int number of longs) must agree with the length
            // before Guava allocates the bit array from it; the bits are then read straight from the checked stream
            // (no copy: peak memory is one filter) and thrown away if the checksum disagrees.
            byte[] guavaHeader = in.readNBytes(GUAVA_HEADER);
            if (guavaHeader.length != GUAVA_HEADER) {
                throw new EOFException("filter header ends early");
            }
            long words = ((guavaHeader[2] & 0xFFL) << 24) | ((guavaHeader[3] & 0xFFL) << 16)
                    | ((guavaHeader[4] & 0xFFL) << 8) | (guavaHeader[5] & 0xFFL);
            if (GUAVA_HEADER + 8 * words != filterLength) {
                throw new CorruptSnapshotException(file, "filter length " + filterLength + " does not match its "
                        + words + " words", null);
            }
            EdgeFilter filter;
            try {
                filter = EdgeFilter.readFrom(new SequenceInputStream(new ByteArrayInputStream(guavaHeader),
                        ByteStreams.limit(in, filterLength - GUAVA_HEADER)), expected, fpp);
            } catch (EOFException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                // Corrupt bytes Guava refuses; the checksum would have failed too.
                throw new CorruptSnapshotException(file, "filter bytes unreadable: " + e.getMessage(), e);
            }
            long computed = crc.getValue();
            int stored = new DataInputStream(raw).readInt();
            if ((int) computed != stored) {
                throw new CorruptSnapshotException(file, "checksum mismatch", null);
            }
            if (raw.read() != -1) {
                throw new CorruptSnapshotException(file, "bytes after the checksum", null);
            }
            return new BloomSnapshot(shards, first, last, edges, createdAt, topic, offsets, filter);
        } catch (EOFException e) {
            throw new CorruptSnapshotException(file, "truncated", e);
        } catch (IllegalArgumentException e) {
            throw new CorruptSnapshotException(file, "bad field: " + e.getMessage(), e);
        }
    }

    /** Counts bytes, so the filter length can be written before the filter. */
    private static final class CountingOutputStream extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
