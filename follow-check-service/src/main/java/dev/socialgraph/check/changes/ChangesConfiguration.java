package dev.socialgraph.check.changes;

import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.common.cursor.ChangeCursor;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The change stream's parts ({@code graph.check.changes.*}): the log the event feed appends to, the wake-ups, the
 * topic for older cursors, and the stream over them. Cursors are signed with the list cursors' key
 * ({@code graph.check.cursor-key}, the same on every instance), under a domain of their own.
 */
@Configuration(proxyBeanMethods = false)
public class ChangesConfiguration {

    @Bean
    ChangeSignals changeSignals() {
        return new ChangeSignals();
    }

    /**
     * Ends the change stream's waits and server-sent streams first when the instance stops, before the web server's
     * graceful shutdown (a lower phase) waits for the requests in flight: an open stream would never end by itself.
     */
    @Bean
    SmartLifecycle changeStreamShutdown(ChangeSignals signals) {
        return new SmartLifecycle() {
            private volatile boolean running;

            @Override
            public void start() {
                running = true;
            }

            @Override
            public void stop() {
                signals.close();
                running = false;
            }

            @Override
            public boolean isRunning() {
                return running;
            }

            @Override
            public int getPhase() {
                return SmartLifecycle.DEFAULT_PHASE; // stopped first: graceful shutdown is DEFAULT_PHASE - 1024
            }
        };
    }

    @Bean
    ChangeLog changeLog(CheckProperties properties, ChangeSignals signals, MeterRegistry meters) {
        ChangeLog log = new ChangeLog(properties.changes().window());
        log.onAppend(signals::appended);
        Gauge.builder("graph.check.changes.serving", log, l -> l.serving() ? 1 : 0)
                .description("Whether this instance serves the change stream (its event feed runs)").register(meters);
        return log;
    }

    @Bean(destroyMethod = "close")
    KafkaChangeArchive changeArchive(CheckProperties properties) {
        CheckProperties.Changes changes = properties.changes();
        return new KafkaChangeArchive(properties.bloom().kafkaBootstrap(), properties.bloom().topic(),
                changes.catchUpReaders(), changes.catchUpTimeout());
    }

    @Bean
    ChangeStream changeStream(CheckProperties properties, ChangeLog log, KafkaChangeArchive archive) {
        return new ChangeStream(log, archive,
                new ChangeCursor(properties.cursorKey().getBytes(StandardCharsets.UTF_8)),
                properties.changes().maxScan(), properties.changes().retention());
    }
}
