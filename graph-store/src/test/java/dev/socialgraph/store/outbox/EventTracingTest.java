package dev.socialgraph.store.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.MDC;

class EventTracingTest {

    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String SPAN_ID = "00f067aa0ba902b7";
    static final String SAMPLED = "00-" + TRACE_ID + "-" + SPAN_ID + "-01";

    private final SimpleTracer tracer = new SimpleTracer();
    private final EventTracing tracing = new EventTracing(tracer);

    @Test
    void current_withoutASpan_isNone() {
        assertThat(tracing.current()).isEqualTo(OutboxTrace.NONE);
    }

    @Test
    void current_inASpan_isItsTraceParent_andTheRequestIdOfTheLoggingContext() {
        Span span = tracer.nextSpan().start();
        try (Tracer.SpanInScope ignored = tracer.withSpan(span)) {
            MDC.put(EventTracing.REQUEST_ID, "req-1");
            OutboxTrace trace = tracing.current();

            // SimpleTracer's trace ids have 64 bits: left-padded to W3C's 128.
            assertThat(trace.traceParent()).isEqualTo(
                    "00-0000000000000000" + span.context().traceId() + "-" + span.context().spanId()
                            + (Boolean.TRUE.equals(span.context().sampled()) ? "-01" : "-00"));
            assertThat(trace.requestId()).isEqualTo("req-1");
        } finally {
            MDC.remove(EventTracing.REQUEST_ID);
            span.end();
        }
    }

    @Test
    void startChild_ofAStoredContext_continuesItsTrace_withItsSpanAsParent() {
        Span child = tracing.startChild(SAMPLED, "follow-events publish", Span.Kind.PRODUCER, "follow-events");
        child.end();

        SimpleSpan recorded = tracer.onlySpan();
        assertThat(recorded.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(recorded.getParentId()).isEqualTo(SPAN_ID);
        assertThat(recorded.getSpanId()).isNotEqualTo(SPAN_ID);
        assertThat(recorded.getName()).isEqualTo("follow-events publish");
        assertThat(recorded.getKind()).isEqualTo(Span.Kind.PRODUCER);
        assertThat(recorded.getTags()).containsEntry("messaging.destination.name", "follow-events");
        assertThat(EventTracing.traceParent(child.context()))
                .isEqualTo("00-" + TRACE_ID + "-" + recorded.getSpanId() + "-01");
    }

    @Test
    void anUnsampledContext_staysUnsampled() {
        Span child = tracing.startChild("00-" + TRACE_ID + "-" + SPAN_ID + "-00", "x", Span.Kind.CONSUMER, "t");

        assertThat(EventTracing.traceParent(child.context())).endsWith("-00");
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "01-" + TRACE_ID + "-" + SPAN_ID + "-01", "00-" + TRACE_ID + "-" + SPAN_ID + "-01-x",
            "00-00000000000000000000000000000000-" + SPAN_ID + "-01", "00-" + TRACE_ID + "-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-" + SPAN_ID + "-01", "00-" + TRACE_ID + "_" + SPAN_ID + "-01"})
    void startChild_ofNoOrAMalformedContext_startsNothing(String traceParent) {
        assertThat(tracing.startChild(traceParent, "x", Span.Kind.CONSUMER, "t")).isNull();
        assertThat(tracer.getSpans()).isEmpty();
    }

    @Test
    void withoutATracer_nothingIsStoredOrStarted() {
        assertThat(EventTracing.NONE.current()).isEqualTo(OutboxTrace.NONE);
        assertThat(EventTracing.NONE.startChild(SAMPLED, "x", Span.Kind.CONSUMER, "t")).isNull();
    }

    @Test
    void open_makesTheSpanCurrent_andPutsTheRequestIdInTheLoggingContext_untilClosed() throws Exception {
        Span span = tracing.startChild(SAMPLED, "x", Span.Kind.CONSUMER, "t");
        try (AutoCloseable ignored = tracing.open(span, "req-2")) {
            assertThat(tracer.currentSpan()).isEqualTo(span);
            assertThat(MDC.get(EventTracing.REQUEST_ID)).isEqualTo("req-2");
        }
        assertThat(MDC.get(EventTracing.REQUEST_ID)).isNull();
    }

    @Test
    void aRequestIdThatIsNotSane_isDropped() {
        assertThat(EventTracing.saneRequestId("has space")).isNull();
        assertThat(EventTracing.saneRequestId("x".repeat(129))).isNull();
        assertThat(EventTracing.saneRequestId("x".repeat(128))).hasSize(128);
    }

    @Test
    void isSampled_readsTheFlagsOnly() {
        assertThat(EventTracing.isSampled(SAMPLED.getBytes())).isTrue();
        assertThat(EventTracing.isSampled(("00-" + TRACE_ID + "-" + SPAN_ID + "-00").getBytes())).isFalse();
        assertThat(EventTracing.isSampled(("00-" + TRACE_ID + "-" + SPAN_ID + "-03").getBytes())).isTrue();
        assertThat(EventTracing.isSampled("01".getBytes())).isFalse();
        assertThat(EventTracing.isSampled(null)).isFalse();
    }
}
