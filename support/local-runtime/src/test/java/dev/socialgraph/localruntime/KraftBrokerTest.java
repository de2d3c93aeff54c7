package dev.socialgraph.localruntime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KraftBrokerTest {

    @TempDir
    Path logDir;

    @Test
    void build_withPortsAndLogDir_derivesListenersAndVotersWithoutStarting() {
        try (KraftBroker broker = KraftBroker.builder().port(19092).controllerPort(19093).nodeId(3).logDir(logDir)
                .build()) {
            assertThat(broker.isRunning()).isFalse();
            assertThat(broker.bootstrapServers()).isEqualTo("127.0.0.1:19092");
            assertThat(broker.config())
                    .containsEntry("process.roles", "broker,controller")
                    .containsEntry("node.id", "3")
                    .containsEntry("listeners", "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093")
                    .containsEntry("advertised.listeners", "PLAINTEXT://127.0.0.1:19092")
                    .containsEntry("controller.quorum.voters", "3@127.0.0.1:19093")
                    .containsEntry("log.dirs", logDir.toAbsolutePath().toString());
        }
    }

    @Test
    void build_byDefault_configuresSingleNodeReplication() {
        try (KraftBroker broker = KraftBroker.builder().build()) {
            assertThat(broker.config())
                    .containsEntry("offsets.topic.replication.factor", "1")
                    .containsEntry("transaction.state.log.replication.factor", "1")
                    .containsEntry("transaction.state.log.min.isr", "1")
                    .containsEntry("group.initial.rebalance.delay.ms", "0")
                    .doesNotContainKey("auto.create.topics.enable");
            assertThat(broker.port()).isPositive().isNotEqualTo(broker.controllerPort());
        }
    }

    @Test
    void config_overridesDefaults() {
        try (KraftBroker broker = KraftBroker.builder()
                .config("num.partitions", 12)
                .config("auto.create.topics.enable", false)
                .config("offsets.topic.num.partitions", 3)
                .build()) {
            assertThat(broker.config())
                    .containsEntry("num.partitions", "12")
                    .containsEntry("auto.create.topics.enable", "false")
                    .containsEntry("offsets.topic.num.partitions", "3");
        }
    }

    @Test
    void config_identitySetting_throws() {
        for (String key : new String[] {"listeners", "node.id", "log.dirs", "controller.quorum.voters", "process.roles"}) {
            assertThatThrownBy(() -> KraftBroker.builder().config(key, "x")).as(key)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void port_outOfRange_throws() {
        assertThatThrownBy(() -> KraftBroker.builder().port(65_536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KraftBroker.builder().controllerPort(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void build_samePortTwice_throws() {
        assertThatThrownBy(() -> KraftBroker.builder().port(19092).controllerPort(19092).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void close_withoutLogDir_deletesTemporaryOne_butKeepsGivenOne() {
        KraftBroker temporary = KraftBroker.builder().build();
        KraftBroker given = KraftBroker.builder().logDir(logDir).build();

        temporary.close();
        given.close();

        assertThat(Files.exists(temporary.logDir())).isFalse();
        assertThat(logDir).exists();
        assertThatThrownBy(temporary::start).isInstanceOf(IllegalStateException.class);
    }
}
