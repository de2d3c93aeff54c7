package dev.socialgraph.launcher;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.common.shard.ShardRange;
import dev.socialgraph.store.shard.ShardDirectory;
import dev.socialgraph.tools.GraphTool;
import dev.socialgraph.tools.shards.ShardMover;
import java.net.URI;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ./graph shards move|show}: the tools module's {@code shards} commands run against the local fleet's shard
 * directory ({@link Stores#DIRECTORY_DATABASE} on the first PostgreSQL server), with the directory URL, the
 * credentials and the target database's JDBC URL filled in. Also what an import needs to know of the directory:
 * an import writes every shard into the configured databases, so it is refused once shards live elsewhere
 * ({@link #importRefusal}).
 */
@Command(name = "shards", mixinStandardHelpOptions = true, subcommands = {Shards.Move.class, Shards.Show.class},
        description = "Move logical shards between databases while the fleet runs, and show the shard map.")
final class Shards {

    /** Logical shards of the local topology (graph-store's {@code graph-shards-local.yml}, the importer's default). */
    static final int LOGICAL_SHARDS = 256;

    /** PostgreSQL identifiers the launcher puts into a JDBC URL: graph-store's {@code ShardDatabases} accepts these. */
    private static final Pattern DATABASE = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** SQLState of a database that does not exist (invalid_catalog_name) and of a missing table (undefined_table). */
    private static final Set<String> NO_DIRECTORY = Set.of("3D000", "42P01");

    @ParentCommand
    GraphLauncher root;

    // ------------------------------------------------------------------------------------------------ arguments

    /**
     * The tools command line of a move.
     *
     * @param endpoints the fleet's stores
     * @param current   the directory's newest map (where the shards are now)
     * @param group     {@code following} or {@code follower} (any case)
     * @param shards    {@code A-B} or {@code N}, logical shards of {@code current}
     * @param database  the target database's name
     * @param server    the target's PostgreSQL server (0 = the first, 15432), or {@code null}: the server of
     *                  {@code database} when the map already has it (a move back), else the server that holds the
     *                  shards now
     * @return {@code shards move --group G --shards A-B --to-database D --to-url URL --directory-url URL --username U
     *     --password P --create-database}
     * @throws IllegalArgumentException naming the option, for a bad value, a server the fleet does not have, or shards
     *                                  on several servers without {@code server}
     */
    static List<String> moveArguments(Stores.Endpoints endpoints, ShardMap current, String group, String shards,
                                      String database, Integer server) {
        ShardGroup g = group(group);
        int[] range = shards(shards, current.logicalShardCount());
        if (database == null || !DATABASE.matcher(database).matches()) {
            throw new IllegalArgumentException("--to must be a lower-case PostgreSQL name ([a-z_][a-z0-9_]*, at most "
                    + "63 characters), was '" + database + "'");
        }
        if (database.equals(Stores.DIRECTORY_DATABASE)) {
            throw new IllegalArgumentException("--to " + database + " is the shard directory, not a shard database");
        }
        List<Stores.HostPort> servers = endpoints.postgresServers();
        Stores.HostPort target;
        if (server != null) {
            if (server < 0 || server >= servers.size()) {
                throw new IllegalArgumentException("--server " + server + ": this fleet has " + servers.size()
                        + " PostgreSQL server(s), numbered 0.." + (servers.size() - 1) + " (0 is "
                        + servers.get(0) + ")");
            }
            target = servers.get(server);
        } else if (current.databases().containsValue(database)) {
            // Back to (or on to) a database the map already has: it stays where it is.
            target = Stores.HostPort.parse(only(current.databases().entrySet().stream()
                    .filter(e -> e.getValue().equals(database)).map(e -> server(e.getKey())).toList(),
                    "database " + database), "the target database's server");
        } else {
            Set<String> holding = new LinkedHashSet<>();
            for (ShardRange r : current.ranges(g)) {
                if (r.lastShard() >= range[0] && r.firstShard() <= range[1]) {
                    holding.add(server(r.jdbcUrl()));
                }
            }
            target = Stores.HostPort.parse(only(List.copyOf(holding), "shards " + shards + " of " + name(g)),
                    "the source database's server");
        }
        return new ArrayList<>(List.of("shards", "move",
                "--group", name(g),
                "--shards", range[0] + "-" + range[1],
                "--to-database", database,
                "--to-url", Stores.jdbcUrl(target, database),
                "--directory-url", endpoints.directoryUrl(),
                "--username", endpoints.postgresUser(),
                "--password", endpoints.postgresPassword(),
                "--create-database"));
    }

    /**
     * The tools command line of {@code show}.
     *
     * @return {@code shards show --directory-url URL --username U --password P}
     */
    static List<String> showArguments(Stores.Endpoints endpoints) {
        return List.of("shards", "show", "--directory-url", endpoints.directoryUrl(),
                "--username", endpoints.postgresUser(), "--password", endpoints.postgresPassword());
    }

    /**
     * @return the group of {@code --group}
     * @throws IllegalArgumentException for anything but following or follower
     */
    static ShardGroup group(String text) {
        try {
            return ShardMover.parseGroup(text == null ? "" : text.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--group must be following or follower, was '" + text + "'", e);
        }
    }

    /**
     * @param logicalShards the map's logical shard count
     * @return {@code [first, last]} of {@code --shards A-B} (or {@code N}: one shard), parsed as the tools parse it
     * @throws IllegalArgumentException when it is not a range within {@code 0..logicalShards-1}
     */
    static int[] shards(String text, int logicalShards) {
        try {
            return ShardMover.parseShards(text, logicalShards);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--shards must be A-B with 0 <= A <= B <= " + (logicalShards - 1)
                    + " (logical shards), was '" + text + "'", e);
        }
    }

    /** The one distinct server of {@code servers}; several need {@code --server}. */
    private static String only(List<String> servers, String what) {
        List<String> distinct = servers.stream().distinct().toList();
        if (distinct.size() != 1) {
            throw new IllegalArgumentException(what + " are on several servers (" + String.join(", ", distinct)
                    + "): choose the target's with --server N");
        }
        return distinct.get(0);
    }

    private static String name(ShardGroup group) {
        return group.name().toLowerCase(Locale.ROOT);
    }

    /** The {@code host:port} of a {@code jdbc:postgresql://host:port/name} URL. */
    private static String server(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        return uri.getHost() + ":" + (uri.getPort() < 0 ? 5432 : uri.getPort());
    }

    // ------------------------------------------------------------------------------------------------ the directory

    /**
     * The shard map the importer writes and the services start from (version 1 of their directory): graph-store's
     * {@code graph-shards-local.yml}, two databases per group split at the middle logical shard, each on the server
     * {@link ShardServers} gives it. The tools' {@code import} builds the same map from the same endpoints.
     */
    static ShardMap configuredMap(Stores.Endpoints endpoints) {
        Map<String, Stores.HostPort> elsewhere = endpoints.databaseServers();
        Stores.HostPort first = endpoints.postgresServers().get(0);
        List<ShardRange> ranges = new ArrayList<>();
        int half = LOGICAL_SHARDS / 2;
        for (ShardGroup group : ShardGroup.values()) {
            for (int i = 0; i < 2; i++) {
                String database = "graph_" + name(group) + "_" + i;
                ranges.add(new ShardRange(group, i == 0 ? 0 : half, i == 0 ? half - 1 : LOGICAL_SHARDS - 1, database,
                        Stores.jdbcUrl(elsewhere.getOrDefault(database, first), database)));
            }
        }
        return ShardMap.of(LOGICAL_SHARDS, ranges);
    }

    /**
     * The newest map of the fleet's shard directory.
     *
     * @return it; empty when the directory database or its tables do not exist yet (no write service ever started)
     * @throws SQLException when the server cannot be reached or refuses the user
     */
    static Optional<ShardDirectory.Versioned> latest(Stores.Endpoints endpoints) throws SQLException {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(endpoints.directoryUrl());
        ds.setUser(endpoints.postgresUser());
        ds.setPassword(endpoints.postgresPassword());
        ds.setConnectTimeout(10); // seconds
        try {
            return Optional.ofNullable(new ShardDirectory(ds).latest());
        } catch (SQLException e) {
            if (NO_DIRECTORY.contains(e.getSQLState())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * Why an import must not run on a directory that moves changed, if it must not.
     *
     * <p>The importer writes every logical shard into the database {@code configured} gives it and leaves the others
     * alone; the services route by the directory's newest map. Where the two differ, the imported rows of a moved
     * shard would land in a database nobody reads any more (whose fence refuses writes to it), and the database that
     * is read would keep the old graph. A directory whose newest version routes every shard as configured (no move,
     * or every moved shard moved back) is fine, whatever its version.
     *
     * @param configured the map the importer writes ({@link #configuredMap})
     * @param latest     the directory's newest map, empty when there is no directory yet
     * @return the message refusing the import; empty when it may run
     */
    static Optional<String> importRefusal(ShardMap configured, Optional<ShardDirectory.Versioned> latest) {
        if (latest.isEmpty() || latest.get().version() == 1) {
            return Optional.empty();
        }
        ShardMap now = latest.get().map();
        int n = configured.logicalShardCount();
        if (now.logicalShardCount() != n) {
            return Optional.of("The import is refused: the shard directory " + Stores.DIRECTORY_DATABASE + " has "
                    + now.logicalShardCount() + " logical shards, the importer writes " + n + ".");
        }
        List<String> moved = new ArrayList<>();
        List<String> back = new ArrayList<>();
        for (ShardGroup group : ShardGroup.values()) {
            int s = 0;
            while (s < n) {
                if (!isMoved(configured, now, group, s)) {
                    s++;
                    continue;
                }
                // One run: consecutive moved shards on the same database now, from the same configured database.
                int first = s;
                ShardRange to = now.rangeOfShard(group, s);
                ShardRange from = configured.rangeOfShard(group, s);
                while (s + 1 < n && isMoved(configured, now, group, s + 1)
                        && now.rangeOfShard(group, s + 1).jdbcUrl().equals(to.jdbcUrl())
                        && configured.rangeOfShard(group, s + 1).database().equals(from.database())) {
                    s++;
                }
                moved.add(name(group) + " " + first + "-" + s + " on " + to.database() + " (configured: "
                        + from.database() + ")");
                back.add("./graph shards move --group " + name(group) + " --shards " + first + "-" + s + " --to "
                        + from.database());
                s++;
            }
        }
        if (moved.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("The import is refused: shards were moved (shard map version " + latest.get().version()
                + " of " + Stores.DIRECTORY_DATABASE + "): " + String.join(", ", moved) + ". An import writes every "
                + "shard into its configured database, where the services no longer read the moved ones. Move them "
                + "back first (" + String.join("; ", back) + "), or start a fresh data directory with the file "
                + "(./graph down; GRAPH_DATA_DIR=... ./graph up --dataset FILE).");
    }

    private static boolean isMoved(ShardMap configured, ShardMap now, ShardGroup group, int shard) {
        return !now.rangeOfShard(group, shard).jdbcUrl().equals(configured.rangeOfShard(group, shard).jdbcUrl());
    }

    /**
     * Runs {@code shards ...} of the tools module in this JVM, as the importer runs.
     *
     * @return its exit code
     */
    static int runTool(List<String> arguments) {
        return new CommandLine(new GraphTool()).execute(arguments.toArray(String[]::new));
    }

    /** The stores of the ready fleet in the data directory, or a message on stderr and empty. */
    private Optional<Stores.Endpoints> fleet() throws java.io.IOException {
        FleetDir dir = root.fleetDir();
        if (dir.runningLauncher().isEmpty() || !java.nio.file.Files.exists(dir.ready())) {
            System.err.println("No ready fleet in " + dir.root() + ". Start one first: ./graph up");
            return Optional.empty();
        }
        Map<String, String> env = System.getenv();
        return Optional.of(Stores.Endpoints.read(dir.ports(), env.getOrDefault("GRAPH_SHARDS_USERNAME", "postgres"),
                env.getOrDefault("GRAPH_SHARDS_PASSWORD", "")));
    }

    // ------------------------------------------------------------------------------------------------ commands

    @Command(name = "move", mixinStandardHelpOptions = true,
            description = {"Move logical shards of one group to another database while the fleet runs (the tools' "
                    + "'shards move': copy, fence, publish the next shard map version, wait for every service to "
                    + "switch).",
                    "The target is created when missing, on the server that holds the shards now unless --server "
                    + "names another."})
    static final class Move implements Callable<Integer> {
        @ParentCommand
        Shards shards;

        @Option(names = "--group", required = true, paramLabel = "following|follower",
                description = "the shard group: following (the following side) or follower (the follower side)")
        String group;

        @Option(names = "--shards", required = true, paramLabel = "A-B",
                description = "the logical shards to move, inclusive (0-255), e.g. 128-191")
        String range;

        @Option(names = "--to", required = true, paramLabel = "DATABASE",
                description = "the target database's name, e.g. graph_following_2 (created when missing)")
        String database;

        @Option(names = "--server", paramLabel = "N",
                description = "the target's PostgreSQL server with --postgres-servers: 0 is the first (15432), 1 the "
                        + "second (15433), ... (default: the server that holds the shards now)")
        Integer server;

        @Override
        public Integer call() throws Exception {
            Optional<Stores.Endpoints> endpoints = shards.fleet();
            if (endpoints.isEmpty()) {
                return 1;
            }
            Optional<ShardDirectory.Versioned> latest = latest(endpoints.get());
            if (latest.isEmpty()) {
                System.err.println("The fleet has no shard directory yet (" + endpoints.get().directoryUrl()
                        + "): its write service creates it at start-up.");
                return 1;
            }
            List<String> arguments;
            try {
                arguments = moveArguments(endpoints.get(), latest.get().map(), group, range, database, server);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return runTool(arguments);
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Show the fleet's newest shard map, its version, and the version each service reads by "
                    + "(the tools' 'shards show').")
    static final class Show implements Callable<Integer> {
        @ParentCommand
        Shards shards;

        @Override
        public Integer call() throws Exception {
            Optional<Stores.Endpoints> endpoints = shards.fleet();
            if (endpoints.isEmpty()) {
                return 1;
            }
            return runTool(showArguments(endpoints.get()));
        }
    }
}
