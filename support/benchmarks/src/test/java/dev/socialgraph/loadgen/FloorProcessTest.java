package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FloorProcessTest {

    @Test
    void theBareGateway_runsWithTheGatewaysFlags() {
        // The launcher's Specs.gatewayJvmOptions, with its heap and OOM exit.
        assertThat(FloorProcess.jvmOptions(FloorProcess.BARE_GATEWAY, 25)).containsExactly("-Xms64m", "-Xmx384m",
                "-XX:+ExitOnOutOfMemoryError", "-XX:+UseParallelGC", "-XX:+UseCompactObjectHeaders",
                "-Dreactor.netty.ioWorkerCount=1");
        assertThat(FloorProcess.jvmOptions(FloorProcess.BARE_GATEWAY, 21))
                .doesNotContain("-XX:+UseCompactObjectHeaders").contains("-Dreactor.netty.ioWorkerCount=1");
    }

    @Test
    void hello_runsWithTheCheckServicesFlags() {
        // The launcher's Specs.CHECK_JVM_OPTIONS: the whole 768 MB heap from the start, pre-touched.
        assertThat(FloorProcess.jvmOptions(FloorProcess.HELLO, 25)).containsExactly("-Xms768m", "-Xmx768m",
                "-XX:+ExitOnOutOfMemoryError", "-XX:+AlwaysPreTouch");
    }

    @Test
    void anUnknownFloor_isRefused() {
        assertThatThrownBy(() -> FloorProcess.jvmOptions("gateway", 25)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bare-gateway, hello");
    }
}
