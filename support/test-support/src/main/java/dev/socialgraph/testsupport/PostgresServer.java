package dev.socialgraph.testsupport;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.postgresql.Driver;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A running PostgreSQL server on which tests create their own databases. The user it connects as
 * can create and drop databases (a superuser for the embedded server and the container).
 *
 * <p>Obtain it from {@link TestServers#postgres()}. Each test class should {@link
 * #createDatabase(String) create} a fresh database rather than share one; creating one costs tens of
 * milliseconds.
 *
 * <pre>{@code
 * PostgresServer postgres = TestServers.postgres();
 * String database = postgres.createDatabase("graph_following");  // "graph_following_k3x9q0a1zz"
 * DataSource dataSource = postgres.dataSource(database);
 * }</pre>
 */
public final class PostgresServer {

    private final Source source;
    private final String hosts;
    private final String adminDatabase;
    private final Map<String, String> parameters;
    private final String username;
    private final String password;
    private final AutoCloseable resource;

    private PostgresServer(Source source, String hosts, String adminDatabase, Map<String, String> parameters,
            String username, String password, AutoCloseable resource) {
        this.source = source;
        this.hosts = hosts;
        this.adminDatabase = adminDatabase;
        this.parameters = parameters;
        this.username = username;
        this.password = password;
        this.resource = resource;
    }

    /**
     * Describes a server from an admin JDBC URL such as {@code
     * jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&password=secret}.
     *
     * @param username overrides the URL's {@code user}; {@code null} keeps it (default {@code postgres})
     * @param password overrides the URL's {@code password}; {@code null} keeps it (default empty)
     * @param resource closed when the server is no longer needed; {@code null} for an external server
     * @throws IllegalArgumentException if the URL is not a PostgreSQL JDBC URL
     */
    static PostgresServer fromAdminUrl(Source source, String adminUrl, String username, String password,
            AutoCloseable resource) {
        Properties parsed = Driver.parseURL(adminUrl, null);
        if (parsed == null) {
            throw new IllegalArgumentException("Not a PostgreSQL JDBC URL: " + adminUrl);
        }
        String[] hostNames = parsed.getProperty("PGHOST", "localhost").split(",");
        String[] ports = parsed.getProperty("PGPORT", "5432").split(",");
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < hostNames.length; i++) {
            if (i > 0) {
                hosts.append(',');
            }
            String host = hostNames[i].contains(":") ? "[" + hostNames[i] + "]" : hostNames[i];
            hosts.append(host).append(':').append(ports[Math.min(i, ports.length - 1)]);
        }
        Map<String, String> parameters = new TreeMap<>();
        for (String name : parsed.stringPropertyNames()) {
            if (!name.startsWith("PG") && !name.equals("user") && !name.equals("password")) {
                parameters.put(name, parsed.getProperty(name));
            }
        }
        String adminDatabase = parsed.getProperty("PGDBNAME", "postgres");
        String user = username != null ? username : parsed.getProperty("user", "postgres");
        String secret = password != null ? password : parsed.getProperty("password", "");
        return new PostgresServer(source, hosts.toString(), adminDatabase, Map.copyOf(parameters), user, secret,
                resource);
    }

    /**
     * Creates a new, empty database with a unique name. It stays until {@link #dropDatabase(String)}
     * or, for the embedded server, until the test JVM ends.
     *
     * @param prefix 1..40 letters, digits and underscores, not starting with a digit; lower-cased
     * @return the new database's name, {@code prefix_} followed by ten random lower-case letters and
     *     digits
     * @throws IllegalArgumentException if the prefix is not usable in a database name
     * @throws IllegalStateException if the server refuses
     */
    public String createDatabase(String prefix) {
        String database = UniqueNames.database(prefix);
        executeAsAdmin("CREATE DATABASE " + quote(database));
        return database;
    }

    /**
     * Drops a database, closing any connections still open to it first ({@code WITH (FORCE)}). A
     * database that does not exist is not an error.
     *
     * @param database the name {@link #createDatabase(String)} returned
     * @throws IllegalArgumentException for the server's admin database
     * @throws IllegalStateException if the server refuses
     */
    public void dropDatabase(String database) {
        Objects.requireNonNull(database, "database");
        if (database.equals(adminDatabase)) {
            throw new IllegalArgumentException("Refusing to drop the admin database " + database);
        }
        executeAsAdmin("DROP DATABASE IF EXISTS " + quote(database) + " WITH (FORCE)");
    }

    /**
     * The JDBC URL of one database on this server, without credentials: connect with {@link
     * #username()} and {@link #password()}.
     *
     * @param database a database name, e.g. one {@link #createDatabase(String)} returned
     * @return e.g. {@code jdbc:postgresql://127.0.0.1:5432/graph_following_k3x9q0a1zz}; connection
     *     parameters of an external admin URL other than user and password are kept
     */
    public String jdbcUrl(String database) {
        Objects.requireNonNull(database, "database");
        String url = "jdbc:postgresql://" + hosts + "/" + URLEncoder.encode(database, StandardCharsets.UTF_8);
        if (parameters.isEmpty()) {
            return url;
        }
        return url + parameters.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&", "?", ""));
    }

    /**
     * The user to connect as; it may create and drop databases.
     *
     * @return a user name, {@code postgres} for the embedded server
     */
    public String username() {
        return username;
    }

    /**
     * The password of {@link #username()}.
     *
     * @return the password, or an empty string where the server trusts local connections
     */
    public String password() {
        return password;
    }

    /**
     * A non-pooled {@link DataSource} for one database: every {@code getConnection()} opens a new
     * connection as {@link #username()}. Wrap it in a pool if a test opens many connections.
     *
     * @param database a database name, e.g. one {@link #createDatabase(String)} returned
     * @return a new data source
     */
    public DataSource dataSource(String database) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl(database));
        dataSource.setUser(username);
        if (!password.isEmpty()) {
            dataSource.setPassword(password);
        }
        return dataSource;
    }

    Source source() {
        return source;
    }

    void close() throws Exception {
        if (resource != null) {
            resource.close();
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL " + hosts + " (" + source.name().toLowerCase(Locale.ROOT) + ")";
    }

    private void executeAsAdmin(String sql) {
        try (Connection connection = dataSource(adminDatabase).getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL " + hosts + " refused: " + sql, e);
        }
    }

    /** Quotes an identifier; the names this class makes need no quoting, other callers' may. */
    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
