package dev.socialgraph.common.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.relation.Relation;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EdgeListParserTest {

    @TempDir
    Path dir;

    /** One edge as the parser reported it. */
    record Edge(long source, long target, Relation relation, long index, long line) {
    }

    private Path write(String name, String content, boolean gzip) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = gzip ? new GZIPOutputStream(Files.newOutputStream(file)) : Files.newOutputStream(file)) {
            out.write(content.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    private static List<Edge> readAll(Path file) throws IOException {
        List<Edge> edges = new ArrayList<>();
        try (EdgeListParser parser = EdgeListParser.open(file)) {
            while (parser.next()) {
                edges.add(new Edge(parser.source(), parser.target(), parser.relation(), parser.edgeIndex(),
                        parser.lineNumber()));
            }
        }
        return edges;
    }

    @Test
    void next_skipsCommentsAndBlankLines_acceptsTabsSpacesAndCrlf_andNumbersEdgesAndLines() throws IOException {
        Path file = write("g.txt", "# SNAP header\n% konect\n\n  # indented comment\n1\t2\r\n3   4\n  \t\n  5 6  \n"
                + "9223372036854775807\t1\n", false);

        assertThat(readAll(file)).containsExactly(
                new Edge(1, 2, Relation.FOLLOW, 0, 5),
                new Edge(3, 4, Relation.FOLLOW, 1, 6),
                new Edge(5, 6, Relation.FOLLOW, 2, 8),
                new Edge(Long.MAX_VALUE, 1, Relation.FOLLOW, 3, 9));
    }

    @Test
    void next_detectsGzipByMagicBytesNotByName_andCountsTheCompressedBytes() throws IOException {
        Path file = write("edges.data", "# c\n10\t20\n30\t40\n", true);
        try (EdgeListParser parser = EdgeListParser.open(file)) {
            assertThat(parser.next()).isTrue();
            assertThat(parser.target()).isEqualTo(20);
            assertThat(parser.next()).isTrue();
            assertThat(parser.source()).isEqualTo(30);
            assertThat(parser.next()).isFalse();
            assertThat(parser.bytesRead()).isEqualTo(Files.size(file));
        }
        // The same text under a .gz name but not compressed is read as plain text.
        assertThat(readAll(write("plain.txt.gz", "7 8\n", false))).containsExactly(new Edge(7, 8, Relation.FOLLOW, 0, 1));
    }

    @Test
    void next_keepsSelfLoopsAndDuplicatesInFileOrder() throws IOException {
        Path file = write("loops.txt", "2\t1\n1\t1\n2\t1\n", false);

        assertThat(readAll(file)).containsExactly(
                new Edge(2, 1, Relation.FOLLOW, 0, 1),
                new Edge(1, 1, Relation.FOLLOW, 1, 2),
                new Edge(2, 1, Relation.FOLLOW, 2, 3));
    }

    @Test
    void next_takesTheThirdColumnAsTheRelation_noneMeaningFollow_withOneEdgeCounter() throws IOException {
        Path file = write("rel.txt", "# src dst relation\n1\t2\n1\t3\tblock\n4 5 mute \n\n6\t7\tfollow\r\n"
                + "8  9   block\n", false);

        assertThat(readAll(file)).containsExactly(
                new Edge(1, 2, Relation.FOLLOW, 0, 2),
                new Edge(1, 3, Relation.BLOCK, 1, 3),
                new Edge(4, 5, Relation.MUTE, 2, 4),
                new Edge(6, 7, Relation.FOLLOW, 3, 6),
                new Edge(8, 9, Relation.BLOCK, 4, 7));
    }

    @Test
    void next_atAMalformedLine_namesFileLineNumberAndLine_afterTheEdgesBeforeIt() throws IOException {
        Path file = write("bad.txt", "# header\n1\t2\n3\tfour\n5\t6\n", false);
        try (EdgeListParser parser = EdgeListParser.open(file)) {
            assertThat(parser.next()).isTrue();
            assertThatThrownBy(parser::next)
                    .isInstanceOf(EdgeListFormatException.class)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(file + ":3: ")
                    .hasMessageContaining("'3\tfour'")
                    .satisfies(e -> {
                        EdgeListFormatException f = (EdgeListFormatException) e;
                        assertThat(f.file()).isEqualTo(file.toString());
                        assertThat(f.lineNumber()).isEqualTo(3);
                        assertThat(f.line()).isEqualTo("3\tfour");
                    });
        }
    }

    @Test
    void next_refusesNonPositiveOverflowingAndMissingIds() throws IOException {
        assertThatThrownBy(() -> readAll(write("a", "0\t1\n", false))).hasMessageContaining("positive");
        assertThatThrownBy(() -> readAll(write("b", "1\t-1\n", false))).hasMessageContaining("two decimal user ids");
        assertThatThrownBy(() -> readAll(write("c", "1\t9223372036854775808\n", false)))
                .hasMessageContaining("64 bits");
        assertThatThrownBy(() -> readAll(write("e", "12\n", false)))
                .isInstanceOf(EdgeListFormatException.class).hasMessageContaining("e:1:");
        assertThatThrownBy(() -> readAll(write("x", "1 x\n", false)))
                .isInstanceOf(EdgeListFormatException.class).hasMessageContaining("x:1:");
    }

    @Test
    void next_refusesAnyOtherThirdColumnOrAFourth_namingTheAcceptedRelations() throws IOException {
        String[][] bad = {
                {"number", "1\t2\t3\n"},
                {"unknown", "1\t2\tfollows\n"},
                {"capital", "1\t2\tBlock\n"},
                {"unblock", "1\t2\tunblock\n"},
                {"glued", "1\t2block\n"},
                {"fourth", "1\t2\tblock\tmute\n"},
                {"comment", "1 2 mute # why\n"},
        };
        for (String[] c : bad) {
            Path file = write(c[0], "1\t2\n" + c[1], false);
            assertThatThrownBy(() -> readAll(file))
                    .as(c[0])
                    .isInstanceOf(EdgeListFormatException.class)
                    .hasMessageContaining(c[0] + ":2:")
                    .hasMessageContaining("follow, block or mute")
                    .hasMessageContaining("'" + c[1].strip() + "'")
                    .satisfies(e -> assertThat(((EdgeListFormatException) e).lineNumber()).isEqualTo(2));
        }
        assertThatThrownBy(() -> readAll(write("u", "1\t2\tstar\n", false)))
                .hasMessageContaining("unknown relation 'star'");
    }

    @Test
    void message_abbreviatesALongLine() throws IOException {
        String longLine = "1\t" + "9".repeat(300);
        assertThatThrownBy(() -> readAll(write("long", longLine + "\n", false)))
                .hasMessageEndingWith(": '" + longLine.substring(0, 200) + "...'")
                .satisfies(e -> assertThat(((EdgeListFormatException) e).line()).isEqualTo(longLine));
    }

    @Test
    void open_ofAMissingFile_throwsIOException() {
        assertThatThrownBy(() -> EdgeListParser.open(dir.resolve("missing.txt"))).isInstanceOf(IOException.class);
    }
}
