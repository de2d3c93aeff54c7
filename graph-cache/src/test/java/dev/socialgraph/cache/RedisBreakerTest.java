package dev.socialgraph.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.common.breaker.BreakerSettings;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The breaker's states with plain commands (suppliers that answer or throw), no Redis. */
class RedisBreakerTest {

    private static final Supplier<String> ANSWERS = () -> "OK";
    private static final Supplier<String> TIMES_OUT = () -> {
        throw new io.lettuce.core.RedisCommandTimeoutException("Command timed out after 100 millisecond(s)");
    };

    private final AtomicInteger sent = new AtomicInteger();

    private Supplier<String> counted(Supplier<String> command) {
        return () -> {
            sent.incrementAndGet();
            return command.get();
        };
    }

    private static void fail(RedisBreaker breaker, Supplier<String> command, int times) {
        for (int i = 0; i < times; i++) {
            assertThatThrownBy(() -> breaker.call(command)).isNotNull();
        }
    }

    @Test
    void call_afterMinimumCallsMostlyFailed_opens_andSendsNothing() {
        RedisBreaker breaker = new RedisBreaker(new BreakerSettings(true, 50, 10, 4, Duration.ofHours(1), 2));
        fail(breaker, counted(TIMES_OUT), 3);
        assertThat(breaker.state()).as("3 outcomes are below the minimum of 4").isEqualTo(CircuitBreaker.State.CLOSED);
        fail(breaker, counted(TIMES_OUT), 1);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.isOpen()).isTrue();
        int before = sent.get();

        assertThatThrownBy(() -> breaker.call(counted(ANSWERS))).isInstanceOf(CallNotPermittedException.class)
                .satisfies(e -> assertThat(RedisBreaker.skipped(e)).isTrue());
        assertThat(breaker.tryAcquire()).isFalse();
        assertThat(sent.get()).as("nothing sent while open").isEqualTo(before);
    }

    @Test
    void call_withFailuresBelowTheThreshold_staysClosed() {
        RedisBreaker breaker = new RedisBreaker(new BreakerSettings(true, 50, 10, 4, Duration.ofHours(1), 2));
        for (int i = 0; i < 10; i++) {
            breaker.call(ANSWERS);
            breaker.call(ANSWERS);
            fail(breaker, TIMES_OUT, 1);
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void call_afterTheOpenWait_letsTheProbesThrough_andClosesWhenTheyAnswer() {
        RedisBreaker breaker = new RedisBreaker(new BreakerSettings(true, 50, 4, 2, Duration.ofMillis(50), 2));
        fail(breaker, TIMES_OUT, 2);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);

        await().atMost(Duration.ofSeconds(5)).until(() -> breaker.tryAcquire());
        // The permission just taken is the first probe's; report it, then the second probe runs as a command.
        breaker.succeeded(System.nanoTime());
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(breaker.call(counted(ANSWERS))).isEqualTo("OK");
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(breaker.call(ANSWERS)).isEqualTo("OK");
    }

    @Test
    void call_whenAProbeFails_opensAgain() {
        RedisBreaker breaker = new RedisBreaker(new BreakerSettings(true, 50, 4, 2, Duration.ofMillis(50), 1));
        fail(breaker, TIMES_OUT, 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> breaker.tryAcquire());
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        breaker.failed(System.nanoTime(), new io.lettuce.core.RedisCommandTimeoutException("timed out"));
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThatThrownBy(() -> breaker.call(ANSWERS)).isInstanceOf(CallNotPermittedException.class);
    }

    @Test
    void call_whenDisabled_sendsEveryCommand() {
        RedisBreaker breaker = new RedisBreaker(new BreakerSettings(false, 50, 2, 2, Duration.ofHours(1), 1));
        fail(breaker, counted(TIMES_OUT), 10);
        assertThat(breaker.call(counted(ANSWERS))).isEqualTo("OK");
        assertThat(sent.get()).isEqualTo(11);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void bindTo_exportsTheStateTaggedWithItsName() {
        RedisBreaker breaker = new RedisBreaker(new BreakerSettings(true, 50, 2, 2, Duration.ofHours(1), 1));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        breaker.bindTo(meters);
        fail(breaker, TIMES_OUT, 2);
        assertThat(meters.get("resilience4j.circuitbreaker.state").tag("name", RedisBreaker.NAME)
                .tag("state", "open").gauge().value()).isEqualTo(1.0);
        assertThat(meters.get("resilience4j.circuitbreaker.state").tag("name", RedisBreaker.NAME)
                .tag("state", "closed").gauge().value()).isEqualTo(0.0);
    }

    @Test
    void settings_from_readsEachPropertyUnderThePrefix_andDefaultsTheRest() {
        java.util.Map<String, String> config = java.util.Map.of("graph.redis-breaker.window", "40",
                "graph.redis-breaker.open-wait", "250ms", "graph.redis-breaker.enabled", "false");
        BreakerSettings settings = RedisBreaker.settings(config::get);
        assertThat(settings).isEqualTo(new BreakerSettings(false, 50, 40, 5, Duration.ofMillis(250), 2));
        assertThat(RedisBreaker.settings(name -> null)).isEqualTo(RedisBreaker.DEFAULTS);
        assertThat(RedisBreaker.settings(java.util.Map.of("graph.redis-breaker.open-wait", "PT2S")::get).openWait())
                .isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> RedisBreaker.settings(java.util.Map.of("graph.redis-breaker.window", "many")::get))
                .hasMessageContaining("graph.redis-breaker.window");
    }

    @Test
    void settings_outOfRange_areRefusedWithTheirName() {
        assertThatThrownBy(() -> new BreakerSettings(true, 0, 20, 5, Duration.ofSeconds(1), 2))
                .hasMessageContaining("failure-rate-threshold");
        assertThatThrownBy(() -> new BreakerSettings(true, 50, 4, 5, Duration.ofSeconds(1), 2))
                .hasMessageContaining("minimum-calls");
        assertThatThrownBy(() -> new BreakerSettings(true, 50, 20, 5, Duration.ZERO, 2))
                .hasMessageContaining("open-wait");
        assertThatThrownBy(() -> new BreakerSettings(true, 50, 20, 5, Duration.ofSeconds(1), 0))
                .hasMessageContaining("half-open-calls");
    }
}
