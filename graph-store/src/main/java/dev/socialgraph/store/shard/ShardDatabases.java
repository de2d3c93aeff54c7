package dev.socialgraph.store.shard;

import dev.socialgraph.store.sql.SqlErrors;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the physical shard databases that do not exist yet, for local and test topologies where several
 * shard databases live on one PostgreSQL server (DESIGN.md 10). Production databases are provisioned by
 * operators; this is off there.
 */
public final class ShardDatabases {

    private static final Logger log = LoggerFactory.getLogger(ShardDatabases.class);

    /** PostgreSQL identifiers we are willing to put into {@code CREATE DATABASE} (which takes no bind parameter). */
    private static final Pattern SAFE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private static final String EXISTS = """
            SELECT 1 FROM pg_database WHERE datname = ?
            """;

    private ShardDatabases() {
    }

    /**
     * For every database of {@code dataSources}' shard map, connects to the {@code postgres} maintenance database
     * of the same server and creates the database when it is missing.
     *
     * @return the number of databases created
     * @throws SQLException             when a server cannot be reached or the user may not create databases
     * @throws IllegalArgumentException when a JDBC URL is not {@code jdbc:postgresql://host[:port]/name[?params]} or
     *                                  the name is not a plain lower-case identifier
     */
    public static int createMissing(Map<String, String> databasesByJdbcUrl, String username, String password)
            throws SQLException {
        int created = 0;
        for (String jdbcUrl : databasesByJdbcUrl.keySet()) {
            String name = databaseName(jdbcUrl);
            Properties props = new Properties();
            props.setProperty("user", username);
            if (password != null && !password.isEmpty()) {
                props.setProperty("password", password);
            }
            try (Connection c = DriverManager.getConnection(maintenanceUrl(jdbcUrl), props)) {
                boolean exists;
                try (PreparedStatement ps = c.prepareStatement(EXISTS)) {
                    ps.setString(1, name);
                    try (ResultSet rs = ps.executeQuery()) {
                        exists = rs.next();
                    }
                }
                if (!exists) {
                    try (Statement st = c.createStatement()) {
                        st.execute("CREATE DATABASE " + name);
                        created++;
                        log.info("Created shard database {}", name);
                    } catch (SQLException e) {
                        if (SqlErrors.classify(e) != SqlErrors.Kind.ALREADY_EXISTS) { // another instance won the race
                            throw e;
                        }
                    }
                }
            }
        }
        return created;
    }

    /**
     * The database name of a PostgreSQL JDBC URL.
     *
     * @param jdbcUrl e.g. {@code jdbc:postgresql://host:port/name?params}
     * @return e.g. {@code name}
     * @throws IllegalArgumentException when the URL names no database
     */
    public static String databaseName(String jdbcUrl) {
        URI uri = parse(jdbcUrl);
        String path = uri.getPath();
        String name = path == null ? "" : path.replaceFirst("^/", "");
        if (!SAFE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("shard database name in " + jdbcUrl
                    + " must be a lower-case identifier ([a-z_][a-z0-9_]*), was '" + name + "'");
        }
        return name;
    }

    /** The same URL pointing at the {@code postgres} maintenance database, parameters kept. */
    static String maintenanceUrl(String jdbcUrl) {
        URI uri = parse(jdbcUrl);
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        return "jdbc:postgresql://" + uri.getRawAuthority() + "/postgres" + query;
    }

    private static URI parse(String jdbcUrl) {
        if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host/database URL: " + jdbcUrl);
        }
        return URI.create(jdbcUrl.substring("jdbc:".length()));
    }
}
