package dev.socialgraph.tools.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EdgeListReaderTest {

    @TempDir
    Path dir;

    private Path write(String name, String content, boolean gzip) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = gzip ? new GZIPOutputStream(Files.newOutputStream(file)) : Files.newOutputStream(file)) {
            out.write(content.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    @Test
    void read_skipsCommentsAndBlankLinesAndAcceptsTabsSpacesAndCrlf() throws IOException {
        Path file = write("g.txt", "# SNAP header\n% konect\n\n1\t2\r\n3   4\n  5 6  \n9223372036854775807\t1\n", false);
        EdgeList edges = EdgeListReader.read(file, done -> { });
        assertThat(edges.size()).isEqualTo(4);
        assertThat(edges.follower(1)).isEqualTo(3);
        assertThat(edges.followee(2)).isEqualTo(6);
        assertThat(edges.follower(3)).isEqualTo(Long.MAX_VALUE);
        // Synthetic follow times: the base plus the edge's index, so file order is arrival order.
        assertThat(edges.followedAt(0)).isEqualTo(EdgeListReader.BASE_FOLLOWED_AT);
        assertThat(edges.followedAt(3)).isEqualTo(EdgeListReader.BASE_FOLLOWED_AT + 3);
    }

    @Test
    void read_detectsGzipByMagicBytesNotByName() throws IOException {
        Path file = write("edges.data", "10\t20\n30\t40\n", true);
        EdgeList edges = EdgeListReader.read(file, done -> { });
        assertThat(edges.size()).isEqualTo(2);
        assertThat(edges.followee(1)).isEqualTo(40);
    }

    @Test
    void read_whenALineIsMalformed_namesFileLineNumberAndLine() throws IOException {
        Path file = write("bad.txt", "# header\n1\t2\n3\tfour\n5\t6\n", false);
        assertThatThrownBy(() -> EdgeListReader.read(file, done -> { }))
                .isInstanceOf(EdgeListFormatException.class)
                .hasMessageContaining("bad.txt:3:")
                .hasMessageContaining("'3\tfour'")
                .satisfies(e -> assertThat(((EdgeListFormatException) e).lineNumber()).isEqualTo(3));
    }

    @Test
    void read_rejectsNonPositiveOverflowingAndExtraColumns() throws IOException {
        assertThatThrownBy(() -> EdgeListReader.read(write("a", "0\t1\n", false), d -> { }))
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> EdgeListReader.read(write("b", "1\t-1\n", false), d -> { }))
                .hasMessageContaining("two decimal user ids");
        assertThatThrownBy(() -> EdgeListReader.read(write("c", "1\t9223372036854775808\n", false), d -> { }))
                .hasMessageContaining("64 bits");
        assertThatThrownBy(() -> EdgeListReader.read(write("d", "1\t2\t3\n", false), d -> { }))
                .hasMessageContaining("d:1:");
        assertThatThrownBy(() -> EdgeListReader.read(write("e", "12\n", false), d -> { }))
                .isInstanceOf(EdgeListFormatException.class);
    }

    @Test
    void removeSelfLoopsAndDuplicates_keepsTheFirstTimeOfAPair() throws IOException {
        EdgeList edges = EdgeListReader.read(write("dups", "2\t1\n1\t1\n2\t1\n1\t3\n", false), d -> { });
        edges.sortByFollower();
        long[] removed = edges.removeSelfLoopsAndDuplicates();
        assertThat(removed).containsExactly(1, 1);
        assertThat(edges.size()).isEqualTo(2);
        assertThat(edges.follower(0)).isEqualTo(1);
        assertThat(edges.followee(0)).isEqualTo(3);
        assertThat(edges.follower(1)).isEqualTo(2);
        assertThat(edges.followedAt(1)).isEqualTo(EdgeListReader.BASE_FOLLOWED_AT); // first occurrence
    }
}
