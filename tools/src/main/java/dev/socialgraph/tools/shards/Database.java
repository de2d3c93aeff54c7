package dev.socialgraph.tools.shards;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One shard database as the mover reaches it: a fresh, unpooled connection per use (a move opens a few dozen), so the
 * fence's session is a connection of its own that no pool can hand to anyone else.
 *
 * @param name     the database's short name, for messages and the {@code shard_moves} record
 * @param jdbcUrl  its JDBC URL
 * @param username database user
 * @param password database password, may be empty
 */
record Database(String name, String jdbcUrl, String username, String password) {

    /**
     * Opens a connection (auto-commit on, no statement timeout: the mover's statements are bounded by itself).
     *
     * @throws SQLException when the database cannot be reached
     */
    Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", username);
        if (password != null && !password.isEmpty()) {
            props.setProperty("password", password);
        }
        props.setProperty("ApplicationName", "graph-tool shards move");
        return DriverManager.getConnection(jdbcUrl, props);
    }

    /** The same database as an unpooled {@link DataSource}, for Flyway. */
    DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        ds.setUser(username);
        if (password != null && !password.isEmpty()) {
            ds.setPassword(password);
        }
        return ds;
    }

    @Override
    public String toString() {
        return name;
    }
}
