package dev.socialgraph.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/** Starts the servers of the default path: processes on this machine, or threads in this JVM. */
final class Embedded {

    private Embedded() {
    }

    /**
     * Zonky's embedded PostgreSQL: the binaries come from a Maven artifact (unpacked once under
     * {@code /tmp/embedded-pg}), {@code initdb} makes a fresh data directory in a temporary
     * directory, and {@code pg_ctl} starts the server on a free port with trust authentication for
     * the superuser {@code postgres}. As root, zonky runs the binaries through {@code unshare -U},
     * because PostgreSQL refuses to run as root.
     */
    static PostgresServer postgres() {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    // Test data need not survive a crash of the machine.
                    .setServerConfig("fsync", "off")
                    .setServerConfig("full_page_writes", "off")
                    .start();
            return PostgresServer.fromAdminUrl(Source.EMBEDDED,
                    "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres", "postgres", "", postgres);
        } catch (IOException e) {
            throw new UncheckedIOException("Embedded PostgreSQL did not start", e);
        }
    }

    /** A {@code redis-server} child process; see {@link RedisProcess}. */
    static RedisServer redis() {
        RedisProcess process = RedisProcess.start(Optional.empty(), true);
        return new RedisServer(Source.EMBEDDED, "redis", null, process.host(), process.port(), process);
    }

    /** An in-process {@link KraftBroker} on free ports with a temporary log directory. */
    static KraftBroker kraftBroker(int nodeId) {
        return KraftBroker.builder().nodeId(nodeId).build().start();
    }
}
