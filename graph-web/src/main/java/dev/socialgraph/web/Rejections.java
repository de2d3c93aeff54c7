package dev.socialgraph.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The guard's one meter: requests it answered itself, by reason (a fixed, small set of tag values). */
final class Rejections {

    /** Meter name; Prometheus: {@code graph_web_rejected_total{reason}}. */
    static final String METER = "graph.web.rejected";

    private Rejections() {
    }

    static Counter counter(MeterRegistry meters, String reason) {
        return Counter.builder(METER).tag("reason", reason)
                .description("Requests refused by the service guard before reaching the service")
                .register(meters);
    }
}
