package dev.socialgraph.tools;

import dev.socialgraph.bloom.SnapshotStore;
import dev.socialgraph.common.edges.EdgeListFormatException;
import dev.socialgraph.common.keys.Topics;
import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardDatabases;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.tools.edges.EdgeList;
import dev.socialgraph.tools.edges.EdgeListReader;
import dev.socialgraph.tools.generate.RmatGenerator;
import dev.socialgraph.tools.importer.BulkImporter;
import dev.socialgraph.tools.importer.ImportException;
import dev.socialgraph.tools.importer.ImportSummary;
import dev.socialgraph.tools.importer.SnapshotSettings;
import dev.socialgraph.tools.importer.SnapshotWriteException;
import dev.socialgraph.tools.importer.TopicOffsets;
import dev.socialgraph.tools.shards.ShardsCommand;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.zip.GZIPOutputStream;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * The project's command-line tools: {@code import} (bulk import of an edge list of follows, blocks and mutes into
 * both shard groups), {@code generate} (an R-MAT follow graph as an edge list) and {@code shards} (online shard
 * moves, {@link ShardsCommand}). Exit codes: 0 done, 1 bad input
 * or failure, 2 usage.
 */
@Command(name = "graph-tool", mixinStandardHelpOptions = true, subcommands = {GraphTool.Import.class,
        GraphTool.Generate.class, ShardsCommand.class},
        description = "Social graph tools: import graphs of follows, blocks and mutes, generate follow graphs, and move"
                + " shards between databases while the services run.")
public final class GraphTool {

    /** Longest the import may wait for Kafka when reading (or creating) the event topic, as the reconciler's default. */
    static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(30);

    /** Runs the tool; see {@code --help}. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new GraphTool()).execute(args));
    }

    /** Connection settings of the local shard topology (DESIGN.md 10). */
    static final class Postgres {
        @Option(names = "--postgres-host", defaultValue = "${env:GRAPH_POSTGRES_HOST:-127.0.0.1}",
                description = "PostgreSQL host (default: ${DEFAULT-VALUE})")
        String host;

        @Option(names = "--postgres-port", defaultValue = "${env:GRAPH_POSTGRES_PORT:-5432}",
                description = "PostgreSQL port (default: ${DEFAULT-VALUE})")
        int port;

        @Option(names = "--postgres-user", defaultValue = "${env:GRAPH_SHARDS_USERNAME:-postgres}",
                description = "database user (default: ${DEFAULT-VALUE})")
        String user;

        @Option(names = "--postgres-password", defaultValue = "${env:GRAPH_SHARDS_PASSWORD:-}",
                description = "database password (default: empty)")
        String password;

        @Option(names = "--logical-shards", defaultValue = "256", description = "logical shards (default: ${DEFAULT-VALUE})")
        int logicalShards;

        @Option(names = "--database-server", paramLabel = "DATABASE=HOST:PORT",
                description = "put one shard database on another PostgreSQL server (repeatable; the services' "
                        + "graph.postgres.servers.<database>), e.g. graph_follower_0=127.0.0.1:15433")
        Map<String, String> databaseServers = new LinkedHashMap<>();

        /**
         * Two databases per group, split at the middle logical shard, named as in DESIGN.md 10, each on {@code
         * --postgres-host:--postgres-port} unless {@code --database-server} names another server for it.
         *
         * @throws IllegalArgumentException when {@code --database-server} names a database the map does not have
         */
        ShardMap shardMap() {
            List<ShardRange> ranges = new ArrayList<>();
            int half = logicalShards / 2;
            for (ShardGroup group : ShardGroup.values()) {
                String prefix = "graph_" + group.name().toLowerCase() + "_";
                ranges.add(range(group, 0, half - 1, prefix + 0));
                ranges.add(range(group, half, logicalShards - 1, prefix + 1));
            }
            for (String database : databaseServers.keySet()) {
                if (ranges.stream().noneMatch(r -> r.database().equals(database))) {
                    throw new IllegalArgumentException("--database-server " + database + ": no such shard database");
                }
            }
            return ShardMap.of(logicalShards, ranges);
        }

        private ShardRange range(ShardGroup group, int first, int last, String db) {
            String server = databaseServers.getOrDefault(db, host + ":" + port);
            return new ShardRange(group, first, last, db, "jdbc:postgresql://" + server + "/" + db);
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Import an edge list into both shard groups: one edge per line, source<TAB>target "
                    + "(spaces also separate), optionally a third column naming the relation: follow, block or mute "
                    + "(none: follow); # comments, gzip or plain.",
                    "Follows always become the file's; blocks and mutes become the file's when it has a line of "
                    + "them and are left as stored otherwise. Follows between two users while a block stands "
                    + "between them are dropped. Re-importing the same file changes nothing."})
    static final class Import implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE",
                description = "edge list: source target [follow|block|mute] per line")
        Path file;

        @CommandLine.Mixin
        Postgres postgres = new Postgres();

        @Option(names = "--celebrity-threshold", defaultValue = "1000000",
                description = "followers at or above which a user's followers go to celebrity pages (default: ${DEFAULT-VALUE})")
        long celebrityThreshold;

        @Option(names = "--page-size", defaultValue = "100000", description = "followers per celebrity page (default: ${DEFAULT-VALUE})")
        int pageSize;

        @Option(names = "--no-progress", description = "no progress bar (for logs)")
        boolean noProgress;

        @Option(names = "--snapshot-dir", paramLabel = "DIR",
                description = "after a successful import, write a bloom snapshot of every logical shard here (the check "
                        + "service's graph.check.bloom.snapshot-dir), with the topic's end offsets read before the import "
                        + "commits; needs --kafka-bootstrap")
        Path snapshotDir;

        @Option(names = "--snapshot-keep", defaultValue = "3",
                description = "snapshots kept in --snapshot-dir per shard range (default: ${DEFAULT-VALUE})")
        int snapshotKeep;

        @Option(names = "--bloom-fpp", defaultValue = "0.001",
                description = "target false-positive probability of the snapshot's filter, 1e-7..0.5 (default: ${DEFAULT-VALUE})")
        double bloomFpp;

        @Option(names = "--kafka-bootstrap", paramLabel = "HOST:PORT",
                description = "Kafka bootstrap servers whose event topic the snapshot's offsets come from (with --snapshot-dir)")
        String kafkaBootstrap;

        @Option(names = "--topic", defaultValue = Topics.FOLLOW_EVENTS,
                description = "event topic (default: ${DEFAULT-VALUE})")
        String topic;

        @Option(names = "--partitions", defaultValue = "12",
                description = "partitions of the event topic when it must be created, replication 1 (default: ${DEFAULT-VALUE})")
        int partitions;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        /**
         * The snapshot settings of the options, or {@code null} without {@code --snapshot-dir}.
         *
         * @throws CommandLine.ParameterException naming the option, for a bad combination or value (exit code 2)
         */
        SnapshotSettings snapshotSettings() {
            if (snapshotDir == null) {
                return null;
            }
            if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
                throw usage("--snapshot-dir needs --kafka-bootstrap HOST:PORT: the snapshot records the offsets of "
                        + "topic '" + topic + "' from which the check service replays later events");
            }
            if (snapshotKeep < 1) {
                throw usage("--snapshot-keep must be >= 1, was " + snapshotKeep);
            }
            if (partitions < 1) {
                throw usage("--partitions must be >= 1, was " + partitions);
            }
            if (!(bloomFpp >= 1e-7 && bloomFpp <= 0.5)) { // the services' graph.*.bloom.fpp range
                throw usage("--bloom-fpp must be in [1e-7, 0.5], was " + bloomFpp);
            }
            if (topic.isEmpty() || topic.length() > 249) { // Kafka's limit on topic names
                throw usage("--topic must be 1..249 characters, was '" + topic + "'");
            }
            return SnapshotSettings.withDefaultSizing(new SnapshotStore(snapshotDir, snapshotKeep), bloomFpp,
                    new TopicOffsets(kafkaBootstrap, topic, partitions, KAFKA_TIMEOUT));
        }

        private CommandLine.ParameterException usage(String message) {
            return new CommandLine.ParameterException(spec.commandLine(), message);
        }

        @Override
        public Integer call() throws Exception {
            SnapshotSettings snapshot = snapshotSettings();
            if (!Files.isReadable(file)) {
                System.err.println("cannot read " + file);
                return 1;
            }
            if (snapshot != null) {
                try {
                    Files.createDirectories(snapshotDir);
                } catch (IOException e) {
                    System.err.println("cannot create snapshot directory " + snapshotDir + ": " + e);
                    return 1;
                }
                if (!Files.isWritable(snapshotDir)) {
                    System.err.println("cannot write snapshot directory " + snapshotDir);
                    return 1;
                }
            }
            ShardMap map;
            try {
                map = postgres.shardMap();
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            ShardDatabases.createMissing(map.databases(), postgres.user, postgres.password);
            try (ShardDataSources dataSources = new ShardDataSources(map, new ShardDataSources.PoolSettings(
                    postgres.user, postgres.password, 2, Duration.ofSeconds(10), "import"));
                 ProgressListener progress = new ProgressListener(!noProgress)) {
                ShardMigrations.migrateAll(dataSources);
                BulkImporter importer = new BulkImporter(dataSources,
                        new BulkImporter.Settings(10_000, celebrityThreshold, pageSize), progress);
                ImportSummary summary = importer.importFile(file, snapshot);
                progress.close();
                System.out.print(summary.report());
                return 0;
            } catch (EdgeListFormatException | ImportException e) {
                System.err.println("import stopped, nothing written: " + e.getMessage());
                return 1;
            } catch (SnapshotWriteException e) {
                System.err.println(e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "generate", mixinStandardHelpOptions = true,
            description = "Generate an R-MAT follow graph (Graph500 parameters) as an edge list.")
    static final class Generate implements Callable<Integer> {
        @Option(names = "--users", required = true, description = "number of users (ids 1..users)")
        long users;

        @Option(names = "--edges", required = true, description = "number of distinct edges")
        int edges;

        @Option(names = "--seed", defaultValue = "1", description = "random seed (default: ${DEFAULT-VALUE})")
        long seed;

        @Option(names = "--out", required = true, description = "output file; gzip when it ends in .gz")
        Path out;

        @Override
        public Integer call() throws IOException {
            long start = System.nanoTime();
            EdgeList graph;
            try {
                graph = RmatGenerator.generate(users, edges, 10_000, seed, EdgeListReader.BASE_FOLLOWED_AT);
            } catch (IllegalArgumentException | IllegalStateException e) {
                System.err.println(e.getMessage());
                return 1;
            }
            try (OutputStream raw = Files.newOutputStream(out);
                 OutputStream stream = out.toString().endsWith(".gz") ? new GZIPOutputStream(raw, 1 << 16) : raw;
                 BufferedWriter w = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.US_ASCII), 1 << 16)) {
                w.write("# R-MAT follow graph (Graph500 a=0.57 b=0.19 c=0.19 d=0.05), seed " + seed + "\n");
                w.write("# Users: " + users + " Edges: " + graph.size() + "\n");
                w.write("# FollowerId\tFolloweeId\n");
                for (int i = 0; i < graph.size(); i++) {
                    w.write(Long.toString(graph.follower(i)));
                    w.write('\t');
                    w.write(Long.toString(graph.followee(i)));
                    w.write('\n');
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("wrote %,d edges among %,d users to %s in %.2f s (%,.0f edges/min)%n", graph.size(),
                    users, out, seconds, graph.size() / seconds * 60);
            return 0;
        }
    }

    /** Shows import phases as progress bars (me.tongfei:progressbar). */
    static final class ProgressListener implements BulkImporter.Listener, AutoCloseable {
        private final boolean enabled;
        private ProgressBar bar;

        ProgressListener(boolean enabled) {
            this.enabled = enabled;
        }

        @Override
        public void phase(String name, long total) {
            close();
            if (enabled) {
                bar = new ProgressBarBuilder().setTaskName(name).setInitialMax(total)
                        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).build();
            }
        }

        @Override
        public void progress(long done) {
            if (bar != null) {
                bar.stepTo(done);
            }
        }

        @Override
        public void close() {
            if (bar != null) {
                bar.close();
                bar = null;
            }
        }
    }
}
