package dev.socialgraph.store.outbox;

/**
 * The trace context an outbox row carries from the request that wrote it to the relay that publishes it (columns
 * {@code trace_parent} and {@code request_id}); see {@link EventTracing}.
 *
 * @param traceParent the W3C Trace Context {@code traceparent} value of the writing span
 *                    ({@code 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>}), or {@code null} without a trace
 * @param requestId   the request's {@code X-Request-Id} (1 to 128 printable ASCII characters), or {@code null}
 */
public record OutboxTrace(String traceParent, String requestId) {

    /** No trace: the row is published without trace headers. */
    public static final OutboxTrace NONE = new OutboxTrace(null, null);
}
