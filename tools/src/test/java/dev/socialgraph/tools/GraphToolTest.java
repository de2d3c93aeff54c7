package dev.socialgraph.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.tools.importer.SnapshotSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line as the launcher calls it, without servers: options that must stop an import before it starts. */
class GraphToolTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    /** Runs the tool in-process like the launcher; the PostgreSQL port is closed, so reaching the import fails. */
    private int run(String... args) {
        CommandLine cli = new CommandLine(new GraphTool());
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private Path edges() throws Exception {
        return Files.writeString(dir.resolve("edges.txt"), "1\t2\n");
    }

    @Test
    void importHelp_documentsTheOptionalRelationColumn() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new GraphTool());
        cli.setOut(new PrintWriter(out, true));
        assertThat(cli.execute("import", "--help")).isZero();
        assertThat(out.toString()).contains("follow, block or mute").contains("source target [follow|block|mute]")
                .contains("left as stored");
    }

    @Test
    void import_withSnapshotDirButNoKafkaBootstrap_isAUsageErrorBeforeImporting() throws Exception {
        Path snapshots = dir.resolve("snapshots");
        int code = run("import", edges().toString(), "--postgres-port", "1", "--snapshot-dir", snapshots.toString());
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--snapshot-dir needs --kafka-bootstrap HOST:PORT")
                .contains("'follow-events'").contains("Usage:");
        assertThat(snapshots).doesNotExist();
    }

    @Test
    void import_withABloomFppOutOfRange_isAUsageErrorNamingIt() throws Exception {
        int code = run("import", edges().toString(), "--postgres-port", "1", "--snapshot-dir", dir.toString(),
                "--kafka-bootstrap", "127.0.0.1:1", "--bloom-fpp", "0.9");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--bloom-fpp must be in [1e-7, 0.5], was 0.9");
    }

    @Test
    void import_withNoSnapshotKept_isAUsageError() throws Exception {
        int code = run("import", edges().toString(), "--postgres-port", "1", "--snapshot-dir", dir.toString(),
                "--kafka-bootstrap", "127.0.0.1:1", "--snapshot-keep", "0");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--snapshot-keep must be >= 1, was 0");
    }

    @Test
    void import_snapshotOptions_giveTheServicesSizingAndTheTopic() {
        GraphTool.Import command = new GraphTool.Import();
        new CommandLine(command).parseArgs("edges.txt", "--snapshot-dir", "/tmp/snap", "--kafka-bootstrap",
                "kafka:9092", "--topic", "events", "--partitions", "6", "--bloom-fpp", "0.01");
        SnapshotSettings settings = command.snapshotSettings();
        assertThat(settings.store().directory()).isEqualTo(Path.of("/tmp/snap"));
        assertThat(settings.fpp()).isEqualTo(0.01);
        assertThat(settings.growth()).isEqualTo(1.5);
        assertThat(settings.minimumExpectedEdges()).isEqualTo(1_000_000);
        assertThat(settings.offsets().topic()).isEqualTo("events");
        assertThat(settings.offsets().bootstrap()).isEqualTo("kafka:9092");
    }

    @Test
    void import_withoutSnapshotDir_needsNoKafka() {
        GraphTool.Import command = new GraphTool.Import();
        new CommandLine(command).parseArgs("edges.txt");
        assertThat(command.snapshotSettings()).isNull();
        assertThat(command.topic).isEqualTo("follow-events");
        assertThat(command.partitions).isEqualTo(12);
        assertThat(command.snapshotKeep).isEqualTo(3);
        assertThat(command.bloomFpp).isEqualTo(0.001);
    }
}
