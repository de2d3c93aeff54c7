package dev.socialgraph.testsupport;

import java.util.Optional;

import dev.socialgraph.localruntime.KraftBroker;
import dev.socialgraph.localruntime.PostgresProcess;
import dev.socialgraph.localruntime.RedisProcess;

/** Starts the servers of the default path (local-runtime's): processes on this machine, or threads in this JVM. */
final class Embedded {

    private Embedded() {
    }

    /**
     * A {@link PostgresProcess} on a free port with a temporary data directory, fsync and full-page writes off: test
     * data need not survive a crash of the machine.
     */
    static PostgresServer postgres() {
        PostgresProcess postgres = PostgresProcess.builder()
                .setting("fsync", "off")
                .setting("full_page_writes", "off")
                .start();
        return PostgresServer.fromAdminUrl(Source.EMBEDDED, postgres.jdbcUrl("postgres"), PostgresProcess.USER, "",
                postgres);
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
