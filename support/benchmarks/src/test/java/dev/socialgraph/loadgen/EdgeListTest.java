package dev.socialgraph.loadgen;

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

class EdgeListTest {

    @TempDir
    Path dir;

    @Test
    void read_gzipWithCommentsSelfLoopsAndDuplicates_keepsDistinctEdgesGroupedByFollower() throws IOException {
        Path file = dir.resolve("edges.txt.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write("# comment\n% other comment\n3\t1\n1 2\n1\t3\n7\t7\n1\t2\n3\t2\n".getBytes(StandardCharsets.US_ASCII));
        }

        EdgeList graph = EdgeList.read(file);

        assertThat(graph.edgeCount()).isEqualTo(4); // 7→7 and the second 1→2 dropped
        assertThat(graph.userCount()).isEqualTo(4); // 1, 2, 3, 7 (7 appears only as a self-loop)
        assertThat(graph.user(0)).isEqualTo(1);
        assertThat(graph.user(3)).isEqualTo(7);
        assertThat(graph.follower(0)).isEqualTo(1);
        assertThat(graph.followee(0)).isEqualTo(2);
        assertThat(graph.follower(1)).isEqualTo(1);
        assertThat(graph.followee(1)).isEqualTo(3);
        assertThat(graph.follower(2)).isEqualTo(3);
        assertThat(graph.followee(2)).isEqualTo(1);
        assertThat(graph.follower(3)).isEqualTo(3);
        assertThat(graph.contains(3, 2)).isTrue();
        assertThat(graph.contains(2, 3)).isFalse();
        assertThat(graph.contains(7, 7)).isFalse();
        assertThat(graph.rowEnd(1) - graph.rowStart(1)).isZero(); // user 2 follows nobody
    }

    @Test
    void read_malformedLine_namesFileAndLine() throws IOException {
        Path file = dir.resolve("bad.txt");
        Files.writeString(file, "1\t2\n1 x\n");

        assertThatThrownBy(() -> EdgeList.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.txt:2:")
                .hasMessageContaining("'1 x'");
    }

    @Test
    void read_aBlockOrMuteLine_namesFileAndLine_andAnExplicitFollowIsAFollow() throws IOException {
        Path file = dir.resolve("relations.txt");
        Files.writeString(file, "1\t2\n3\t1\tfollow\n1\t3\tblock\n");

        assertThatThrownBy(() -> EdgeList.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("relations.txt:3:")
                .hasMessageContaining("block");

        Files.writeString(file, "1\t2\n3\t1\tfollow\n");
        EdgeList graph = EdgeList.read(file);
        assertThat(graph.edgeCount()).isEqualTo(2);
        assertThat(graph.contains(3, 1)).isTrue();
    }

    @Test
    void mostFollowed_ranksByInDegree_tiesByUserNumber() {
        // In-degrees: 1 ← 3 users, 2 ← 2, 3 ← 2, 4 ← 1, 5 ← 0 (5 only follows).
        EdgeList graph = EdgeList.of(new long[] {2, 3, 4, 1, 4, 1, 5, 5, 5},
                new long[] {1, 1, 1, 2, 2, 3, 3, 4, 4});

        assertThat(graph.mostFollowed(5)).containsExactly(0, 1, 2, 3, 4); // users 1, 2, 3, 4, 5
        assertThat(graph.mostFollowed(1)).containsExactly(0);
        assertThat(graph.followerCount(0)).isEqualTo(3);
        assertThat(graph.followerCount(2)).isEqualTo(2);
        assertThat(graph.followerCount(4)).isZero();
        assertThatThrownBy(() -> graph.mostFollowed(6)).isInstanceOf(IllegalArgumentException.class);

        EdgeList reversed = EdgeList.of(new long[] {1, 1, 2}, new long[] {3, 2, 3});
        assertThat(reversed.mostFollowed(3)).containsExactly(2, 1, 0); // 3 ← 2, 2 ← 1, 1 ← 0
    }
}
