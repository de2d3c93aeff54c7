package dev.socialgraph.store.outbox;

import dev.socialgraph.wire.Headers;
import io.micrometer.tracing.Baggage;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import java.util.Objects;
import org.slf4j.MDC;

/**
 * The trace context of a follow event from the request that wrote it to every consumer of {@code follow-events}
 * (DESIGN.md 8: one request is one trace, across Kafka in record headers).
 *
 * <p>The outbox relay publishes asynchronously, on a thread of its own, so the writing request's context is stored
 * with the outbox row ({@link OutboxRepository} calls {@link #current()}; columns {@code trace_parent},
 * {@code request_id}). The relay starts one {@link Span.Kind#PRODUCER} span per record as a child of that stored
 * context and sends the span's context as the record's {@value #TRACEPARENT} header (W3C Trace Context, version 00),
 * and the request id as {@value #REQUEST_ID}. Each consumer starts a {@link Span.Kind#CONSUMER} span per record from
 * those headers ({@link #startChild}) and {@link #open}s it while it logs, so its log lines carry the trace id, span
 * id and request id too.
 *
 * <p>The W3C format is written and parsed here rather than by the tracer's propagator: the stored column and the
 * record header are a contract between services (and with rows written by an older version), fixed to W3C whatever
 * a service's {@code management.tracing.propagation} says.
 *
 * <p>Sampling follows the writer's decision: an unsampled request stores its context with flags {@code 00}, and every
 * span continuing it is unsampled too (created but not recorded, the tracer's cheapest span). A row or record without
 * a context gets no span at all: a publish without a request (a background job) starts no trace of its own.
 *
 * <p>Thread-safe. {@link #NONE} when there is no tracer: nothing is stored, no span is started.
 */
public final class EventTracing {

    /** The W3C Trace Context header of an event record: {@code 00-<trace id>-<span id>-<flags>}. */
    public static final String TRACEPARENT = "traceparent";

    /**
     * The request id header of an event record, as the gateway issues it for the request that wrote the event: the
     * HTTP header's name ({@link Headers#REQUEST_ID}), so a record and a request carry the id under one name.
     */
    public static final String REQUEST_ID = Headers.REQUEST_ID;

    /** No tracer: rows carry no context and no span is ever started. */
    public static final EventTracing NONE = new EventTracing(Tracer.NOOP);

    private static final int TRACEPARENT_LENGTH = 55;
    private static final int MAX_REQUEST_ID_LENGTH = 128;

    private final Tracer tracer;

    /**
     * @param tracer the service's tracer ({@link Tracer#NOOP} for none)
     */
    public EventTracing(Tracer tracer) {
        this.tracer = Objects.requireNonNull(tracer, "tracer");
    }

    /**
     * The trace context current in this thread, as an outbox row stores it: the current span's {@code traceparent}
     * and the request id (the {@value #REQUEST_ID} baggage of the current context, else the logging context's).
     *
     * @return the context; {@link OutboxTrace#NONE} when no span is current
     */
    public OutboxTrace current() {
        Span span = tracer.currentSpan();
        if (span == null) {
            return OutboxTrace.NONE;
        }
        String traceParent = traceParent(span.context());
        if (traceParent == null) {
            return OutboxTrace.NONE;
        }
        Baggage baggage = tracer.getBaggage(REQUEST_ID);
        String requestId = baggage == null ? null : baggage.get();
        if (requestId == null) {
            requestId = MDC.get(REQUEST_ID);
        }
        return new OutboxTrace(traceParent, saneRequestId(requestId));
    }

    /**
     * Starts a span continuing a stored or received context: the relay's publish of a row, a consumer's processing of
     * a record. End it ({@link Span#end()}, after {@link Span#error} on failure) when the work is done.
     *
     * @param traceParent the parent's W3C {@code traceparent}, may be {@code null}
     * @param name        the span's name, e.g. {@code follow-events publish}
     * @param kind        {@link Span.Kind#PRODUCER} or {@link Span.Kind#CONSUMER}
     * @param topic       the Kafka topic, tagged as {@code messaging.destination.name}
     * @return the started span, or {@code null} when {@code traceParent} is {@code null} or not a valid version-00
     *         value, or there is no tracer
     */
    public Span startChild(String traceParent, String name, Span.Kind kind, String topic) {
        if (tracer == Tracer.NOOP) {
            return null;
        }
        TraceContext parent = parse(traceParent);
        if (parent == null) {
            return null;
        }
        return tracer.spanBuilder().setParent(parent).name(name).kind(kind).tag("messaging.system", "kafka")
                .tag("messaging.destination.name", topic).start();
    }

    /**
     * Makes {@code span} current on this thread, with {@code requestId} in the logging context ({@value #REQUEST_ID}),
     * until the returned scope is closed.
     *
     * @param span      a span from {@link #startChild}; {@code null} opens nothing
     * @param requestId the record's request id; {@code null} or not sane leaves the logging context alone
     * @return the scope to close (on the same thread)
     */
    public AutoCloseable open(Span span, String requestId) {
        if (span == null) {
            return () -> { };
        }
        Tracer.SpanInScope scope = tracer.withSpan(span);
        String sane = saneRequestId(requestId);
        if (sane == null) {
            return scope::close;
        }
        String before = MDC.get(REQUEST_ID);
        MDC.put(REQUEST_ID, sane);
        return () -> {
            scope.close();
            if (before == null) {
                MDC.remove(REQUEST_ID);
            } else {
                MDC.put(REQUEST_ID, before);
            }
        };
    }

    /**
     * The W3C {@code traceparent} of a span's context (version 00).
     *
     * @return {@code 00-<32 hex>-<16 hex>-01} (sampled) or {@code …-00} (a 64-bit trace id left-padded with zeros), or
     *         {@code null} when the context has no valid ids (a no-op tracer's)
     */
    public static String traceParent(TraceContext context) {
        if (context == null) {
            return null;
        }
        String traceId = context.traceId();
        String spanId = context.spanId();
        if (traceId != null && traceId.length() == 16) {
            traceId = "0000000000000000" + traceId; // a 64-bit id, left-padded as W3C Trace Context asks
        }
        if (!isHex(traceId, 32) || !isHex(spanId, 16)) {
            return null;
        }
        return "00-" + traceId + "-" + spanId + (Boolean.TRUE.equals(context.sampled()) ? "-01" : "-00");
    }

    /**
     * Whether a {@code traceparent} header value says its trace is sampled (flags' lowest bit), without parsing the
     * rest or allocating: for consumers that skip the span of an unsampled record, which would not be recorded.
     *
     * @param traceParent the header's bytes (US-ASCII)
     * @return {@code true} for a 55-byte value whose flags are odd
     */
    public static boolean isSampled(byte[] traceParent) {
        return traceParent != null && traceParent.length == TRACEPARENT_LENGTH
                && (Character.digit(traceParent[TRACEPARENT_LENGTH - 1], 16) & 1) == 1;
    }

    /**
     * Parses a version-00 W3C {@code traceparent} (https://www.w3.org/TR/trace-context/#traceparent-header).
     *
     * @return the remote parent context, or {@code null} when {@code value} is {@code null} or malformed (wrong
     *         length, not lower-case hex, all-zero ids, another version)
     */
    TraceContext parse(String value) {
        if (value == null || value.length() != TRACEPARENT_LENGTH || !value.startsWith("00-")
                || value.charAt(35) != '-' || value.charAt(52) != '-') {
            return null;
        }
        String traceId = value.substring(3, 35);
        String spanId = value.substring(36, 52);
        String flags = value.substring(53);
        if (!isHex(traceId, 32) || !isHex(spanId, 16) || !isHex(flags, 2)) {
            return null;
        }
        boolean sampled = (Integer.parseInt(flags, 16) & 1) == 1;
        return tracer.traceContextBuilder().traceId(traceId).spanId(spanId).sampled(sampled).build();
    }

    /** Lower-case hex of exactly {@code length} characters, not all zeros (W3C: an all-zero id is invalid). */
    private static boolean isHex(String s, int length) {
        if (s == null || s.length() != length) {
            return false;
        }
        boolean nonZero = length == 2; // flags may be 00
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
            nonZero |= c != '0';
        }
        return nonZero;
    }

    /** 1 to 128 printable ASCII characters without spaces (the gateway's rule), else {@code null}. */
    static String saneRequestId(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_REQUEST_ID_LENGTH) {
            return null;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= 32 || c >= 127) {
                return null;
            }
        }
        return id;
    }
}
