package dev.socialgraph.tools.edges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.edges.EdgeListFormatException;
import dev.socialgraph.common.relation.Relation;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
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
    void read_givesEachEdgeTheBaseTimePlusItsIndex_gzipOrNot() throws IOException {
        Path file = write("g.txt.gz", "# SNAP header\n% konect\n\n1\t2\r\n3   4\n  5 6  \n9223372036854775807\t1\n", true);
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
    void read_whenALineIsMalformed_namesFileLineNumberAndLine() throws IOException {
        Path file = write("bad.txt", "# header\n1\t2\n3\tfour\n5\t6\n", false);
        assertThatThrownBy(() -> EdgeListReader.read(file, done -> { }))
                .isInstanceOf(EdgeListFormatException.class)
                .hasMessageContaining("bad.txt:3:")
                .hasMessageContaining("'3\tfour'")
                .satisfies(e -> assertThat(((EdgeListFormatException) e).lineNumber()).isEqualTo(3));
    }

    @Test
    void readRelations_takesTheThirdColumnAsTheRelation_noneMeaningFollow_withOneTimeCounter() throws IOException {
        Path file = write("rel.txt", "# src dst relation\n1\t2\n1\t3\tblock\n4 5 mute \n\n6\t7\tfollow\r\n"
                + "8  9   block\n", false);
        EnumMap<Relation, EdgeList> edges = EdgeListReader.readRelations(file, done -> { });
        assertThat(edges).containsOnlyKeys(Relation.FOLLOW, Relation.BLOCK, Relation.MUTE);

        EdgeList follows = edges.get(Relation.FOLLOW);
        assertThat(follows.size()).isEqualTo(2);
        assertThat(new long[] {follows.follower(0), follows.followee(0), follows.followedAt(0)})
                .containsExactly(1, 2, EdgeListReader.BASE_FOLLOWED_AT);
        assertThat(new long[] {follows.follower(1), follows.followee(1), follows.followedAt(1)})
                .containsExactly(6, 7, EdgeListReader.BASE_FOLLOWED_AT + 3);

        EdgeList blocks = edges.get(Relation.BLOCK);
        assertThat(blocks.size()).isEqualTo(2);
        assertThat(new long[] {blocks.follower(0), blocks.followee(0), blocks.followedAt(0)})
                .containsExactly(1, 3, EdgeListReader.BASE_FOLLOWED_AT + 1);
        assertThat(new long[] {blocks.follower(1), blocks.followee(1), blocks.followedAt(1)})
                .containsExactly(8, 9, EdgeListReader.BASE_FOLLOWED_AT + 4);

        EdgeList mutes = edges.get(Relation.MUTE);
        assertThat(mutes.size()).isEqualTo(1);
        assertThat(new long[] {mutes.follower(0), mutes.followee(0), mutes.followedAt(0)})
                .containsExactly(4, 5, EdgeListReader.BASE_FOLLOWED_AT + 2);
    }

    @Test
    void readRelations_ofAFollowsOnlyFile_givesEveryRelationAList() throws IOException {
        EnumMap<Relation, EdgeList> edges = EdgeListReader.readRelations(write("f", "1\t2\n", false), d -> { });
        assertThat(edges.get(Relation.FOLLOW).size()).isEqualTo(1);
        assertThat(edges.get(Relation.BLOCK).size()).isZero();
        assertThat(edges.get(Relation.MUTE).size()).isZero();
    }

    @Test
    void read_givesTheFollowsOnly_atTheirIndexInTheWholeFile() throws IOException {
        Path file = write("mixed", "1\t2\tblock\n3\t4\n5\t6\tmute\n7\t8\tfollow\n", false);
        EdgeList follows = EdgeListReader.read(file, d -> { });
        assertThat(follows.size()).isEqualTo(2);
        assertThat(follows.follower(0)).isEqualTo(3);
        assertThat(follows.followedAt(0)).isEqualTo(EdgeListReader.BASE_FOLLOWED_AT + 1);
        assertThat(follows.follower(1)).isEqualTo(7);
        assertThat(follows.followedAt(1)).isEqualTo(EdgeListReader.BASE_FOLLOWED_AT + 3);
    }

    @Test
    void read_validatesTheWholeFile_otherRelationsLinesIncluded() throws IOException {
        // The format's own cases are graph-common's EdgeListParserTest; here: read() refuses a file whose only bad
        // line is of a relation it leaves out.
        assertThatThrownBy(() -> EdgeListReader.read(write("r", "1\t2\n3\t4\tblok\n", false), d -> { }))
                .isInstanceOf(EdgeListFormatException.class)
                .hasMessageContaining("r:2:").hasMessageContaining("follow, block or mute");
    }

    @Test
    void containsSortedAndRemoveIf_findAndDropEdgesOfASortedList() throws IOException {
        EdgeList edges = EdgeListReader.read(write("s", "5\t1\n2\t9\n2\t3\n7\t7\n", false), d -> { });
        edges.sortByFollower();
        assertThat(edges.containsSorted(2, 3)).isTrue();
        assertThat(edges.containsSorted(2, 9)).isTrue();
        assertThat(edges.containsSorted(5, 1)).isTrue();
        assertThat(edges.containsSorted(3, 2)).isFalse();
        assertThat(edges.containsSorted(2, 4)).isFalse();
        assertThat(edges.containsSorted(8, 1)).isFalse();
        assertThat(edges.removeIf((a, b) -> a == 2)).isEqualTo(2);
        assertThat(edges.size()).isEqualTo(2);
        assertThat(edges.follower(0)).isEqualTo(5);
        assertThat(edges.follower(1)).isEqualTo(7);
        assertThat(edges.followedAt(0)).isEqualTo(EdgeListReader.BASE_FOLLOWED_AT);
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
