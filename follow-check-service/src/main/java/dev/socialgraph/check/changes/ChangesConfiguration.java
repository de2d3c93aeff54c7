package dev.socialgraph.check.changes;

import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.common.cursor.ChangeCursor;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
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
