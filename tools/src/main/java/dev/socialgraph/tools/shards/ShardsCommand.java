package dev.socialgraph.tools.shards;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.shard.ShardDirectory;
import dev.socialgraph.store.shard.ShardFence;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code graph-tool shards}: online shard moves (docs/shard-moves.md). {@code move} moves a range of logical shards to
 * another database while the services run, {@code show} prints the directory (map versions, the newest map, its
 * readers, the records of moved shards), {@code cleanup} deletes an old owner's rows a move left behind. Exit codes:
 * 0 done, 1 refused, aborted or failed (the message says which step and what to do), 2 usage.
 */
@Command(name = "shards", mixinStandardHelpOptions = true,
        subcommands = {ShardsCommand.Move.class, ShardsCommand.Show.class, ShardsCommand.Cleanup.class},
        description = "Move logical shards between databases while the services run, and inspect the shard directory.")
public final class ShardsCommand {

    /** The shard directory and the credentials of every shard database. */
    static final class Directory {
        @Option(names = "--directory-url", required = true, paramLabel = "JDBC_URL",
                description = "the shard directory database (the services' graph.shards.directory.jdbc-url)")
        String directoryUrl;

        @Option(names = "--username", defaultValue = "${env:GRAPH_SHARDS_USERNAME:-postgres}",
                description = "user of the directory and the shard databases (default: ${DEFAULT-VALUE})")
        String username;

        @Option(names = "--password", defaultValue = "${env:GRAPH_SHARDS_PASSWORD:-}",
                description = "its password (default: GRAPH_SHARDS_PASSWORD, else empty)")
        String password;

        ShardDirectory directory() throws SQLException {
            ShardDirectory directory = new ShardDirectory(
                    new Database("directory", directoryUrl, username, password).dataSource());
            directory.install();
            return directory;
        }
    }

    @Command(name = "move", mixinStandardHelpOptions = true,
            description = {"Move logical shards of one group to another database while the services run: copy rounds,"
                    + " a short fence of the range's writers in the old owner (final copy, outbox drained, next shard"
                    + " map published), then, once every service reads the new map, the old owner's rows deleted.",
                    "Safe to run again after a failure: it starts over, or does nothing when the range is there."})
    static final class Move implements Callable<Integer> {
        @CommandLine.Mixin
        Directory directory = new Directory();

        @Option(names = "--group", required = true, description = "following or follower")
        String group;

        @Option(names = "--shards", required = true, paramLabel = "FIRST-LAST",
                description = "logical shards to move, all in one database today, e.g. 128-191")
        String shards;

        @Option(names = "--to-database", required = true, paramLabel = "NAME",
                description = "the new owner's short name (logs, shard map), e.g. graph_following_2")
        String toDatabase;

        @Option(names = "--to-url", required = true, paramLabel = "JDBC_URL", description = "the new owner's JDBC URL")
        String toUrl;

        @Option(names = "--create-database", description = "create the new owner when missing (local topologies)")
        boolean createDatabase;

        @Option(names = "--no-cleanup", description = "leave the range's rows in the old owner ('shards cleanup' later)")
        boolean noCleanup;

        @Option(names = "--max-rounds", defaultValue = "5",
                description = "copy rounds before the fence at most (default: ${DEFAULT-VALUE})")
        int maxRounds;

        @Option(names = "--reader-wait", defaultValue = "30", paramLabel = "SECONDS",
                description = "longest wait for every service to read the new map before the clean-up"
                        + " (default: ${DEFAULT-VALUE})")
        int readerWaitSeconds;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            ShardMover.Settings defaults = ShardMover.Settings.defaults();
            ShardMover.Request request;
            ShardMover.Settings settings;
            try {
                // The map's logical shard count bounds the range; the mover checks it against the newest map.
                int[] range = ShardMover.parseShards(shards, Integer.MAX_VALUE);
                request = new ShardMover.Request(ShardMover.parseGroup(group), range[0], range[1], toDatabase, toUrl,
                        createDatabase);
                if (readerWaitSeconds < 1) {
                    throw new IllegalArgumentException("--reader-wait must be >= 1 second, was " + readerWaitSeconds);
                }
                settings = new ShardMover.Settings(maxRounds, defaults.quietRows(), defaults.batchSize(),
                        defaults.fenceLockTimeout(), defaults.drainTimeout(), defaults.backlogWait(),
                        defaults.readerWindow(), Duration.ofSeconds(readerWaitSeconds), !noCleanup);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try {
                MoveSummary summary = new ShardMover(directory.directory(), directory.username, directory.password,
                        settings).move(request);
                out.print(summary.report());
                out.flush();
                return 0;
            } catch (ShardMoveException e) {
                err.println("shard move stopped: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "cleanup", mixinStandardHelpOptions = true,
            description = "Delete the rows of moved shards from their old owner, once every service reads a map that"
                    + " routes them elsewhere (for a move that skipped its clean-up).")
    static final class Cleanup implements Callable<Integer> {
        @CommandLine.Mixin
        Directory directory = new Directory();

        @Option(names = "--group", required = true, description = "following or follower")
        String group;

        @Option(names = "--shards", required = true, paramLabel = "FIRST-LAST", description = "the moved shards")
        String shards;

        @Option(names = "--database", required = true, paramLabel = "NAME", description = "the old owner's name")
        String database;

        @Option(names = "--database-url", required = true, paramLabel = "JDBC_URL",
                description = "the old owner's JDBC URL")
        String databaseUrl;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            int[] range;
            ShardGroup g;
            try {
                range = ShardMover.parseShards(shards, Integer.MAX_VALUE);
                g = ShardMover.parseGroup(group);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            try {
                long rows = new ShardMover(directory.directory(), directory.username, directory.password,
                        ShardMover.Settings.defaults()).cleanup(g, range[0], range[1], database, databaseUrl);
                spec.commandLine().getOut().printf(Locale.ROOT, "%,d rows deleted from %s%n", rows, database);
                spec.commandLine().getOut().flush();
                return 0;
            } catch (ShardMoveException e) {
                spec.commandLine().getErr().println("cleanup refused: " + e.getMessage());
                return 1;
            }
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print the shard map versions, the newest map, the services that read it and the version"
                    + " each applied, and the records of shards moved away in each database of the map.")
    static final class Show implements Callable<Integer> {
        @CommandLine.Mixin
        Directory directory = new Directory();

        @Option(names = "--readers-since", defaultValue = "600", paramLabel = "SECONDS",
                description = "list the readers that reported within this many seconds (default: ${DEFAULT-VALUE})")
        int readersSince;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            ShardDirectory shardDirectory = directory.directory();
            ShardDirectory.Versioned latest = shardDirectory.latest();
            if (latest == null) {
                out.println("the shard directory is empty (no service with graph.shards.directory.jdbc-url started)");
                out.flush();
                return 0;
            }
            out.println("versions:");
            for (String version : versions(directory)) {
                out.println("  " + version);
            }
            out.println("shard map version " + latest.version() + " (" + latest.map().logicalShardCount()
                    + " logical shards):");
            for (ShardGroup group : ShardGroup.values()) {
                for (ShardRange r : latest.map().ranges(group)) {
                    out.printf(Locale.ROOT, "  %-9s %3d..%-3d %-30s %s%n", group.name().toLowerCase(Locale.ROOT),
                            r.firstShard(), r.lastShard(), r.database(), r.jdbcUrl());
                }
            }
            long now = System.currentTimeMillis();
            out.println("readers (reported within " + readersSince + " s):");
            for (ShardDirectory.Reader r : shardDirectory.readers(now - readersSince * 1000L)) {
                out.printf(Locale.ROOT, "  %-50s version %d%s, %.1f s ago%n", r.reader(), r.version(),
                        r.version() < latest.version() ? " (behind)" : "", (now - r.seenAt()) / 1000.0);
            }
            out.println("shards moved away (records in their old owners):");
            for (Map.Entry<String, String> db : latest.map().databases().entrySet()) {
                out.println("  " + db.getValue() + ": " + moved(db.getValue(), db.getKey(), latest.map()));
            }
            out.flush();
            return 0;
        }

        private String moved(String name, String url, ShardMap map) {
            List<String> parts = new ArrayList<>();
            try (Connection c = new Database(name, url, directory.username, directory.password)
                    .connect()) {
                for (ShardGroup group : ShardGroup.values()) {
                    List<Integer> shards = ShardFence.moved(c, group);
                    if (!shards.isEmpty()) {
                        parts.add(group.name().toLowerCase(Locale.ROOT) + " " + ranges(shards));
                    }
                }
            } catch (SQLException e) {
                return "unreadable (" + e.getMessage() + ")";
            }
            return parts.isEmpty() ? "none" : String.join(", ", parts);
        }

        /** Every published version and when, from the directory's table (read only). */
        private static List<String> versions(Directory directory) throws SQLException {
            List<String> out = new ArrayList<>();
            try (Connection c = new Database("directory", directory.directoryUrl, directory.username,
                    directory.password).connect();
                 PreparedStatement ps = c.prepareStatement(
                         "SELECT version, published_at FROM shard_map_versions ORDER BY version");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1) + " published " + Instant.ofEpochMilli(rs.getLong(2)));
                }
            }
            return out;
        }
    }

    /** {@code [1, 2, 3, 7]} as {@code 1..3, 7}. */
    static String ranges(List<Integer> shards) {
        List<String> parts = new ArrayList<>();
        int i = 0;
        while (i < shards.size()) {
            int j = i;
            while (j + 1 < shards.size() && shards.get(j + 1) == shards.get(j) + 1) {
                j++;
            }
            parts.add(i == j ? Integer.toString(shards.get(i)) : shards.get(i) + ".." + shards.get(j));
            i = j + 1;
        }
        return String.join(", ", parts);
    }
}
