package dev.socialgraph.web;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.TracingObservationHandler;
import org.slf4j.MDC;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.server.ServerWebExchange;

/**
 * The logging context of a reactive request for the lines written about it: {@code traceId} and {@code spanId} of the
 * server span the request's observation opened, and its {@code X-Request-Id}, in the SLF4J MDC under the names the
 * servlet services' lines carry them ({@link ObservabilityDefaults}). On a servlet thread Micrometer Tracing keeps
 * them there for the whole request; a reactive request hops threads, and putting them there for every operator
 * (Reactor's automatic context propagation) would cost every request on the check path, so the few lines a reactive
 * request causes (an unexpected error) open this context around themselves instead.
 */
public final class ExchangeLogContext implements AutoCloseable {

    static final String TRACE_ID = "traceId";
    static final String SPAN_ID = "spanId";

    private ExchangeLogContext() {
    }

    /**
     * Puts the exchange's ids into the MDC until {@link #close()}.
     *
     * @param exchange the request being answered
     * @return the context to close after the log line
     */
    public static ExchangeLogContext open(ServerWebExchange exchange) {
        Span span = serverSpan(exchange);
        if (span != null) {
            MDC.put(TRACE_ID, span.context().traceId());
            MDC.put(SPAN_ID, span.context().spanId());
        }
        String requestId = exchange.getRequest().getHeaders().getFirst(ObservabilityDefaults.REQUEST_ID);
        if (requestId != null) {
            MDC.put(ObservabilityDefaults.REQUEST_ID, requestId);
        }
        return new ExchangeLogContext();
    }

    /**
     * The server span a reactive request's {@code http.server.requests} observation opened: what its log lines name
     * and what the gateway continues in the request it passes on.
     *
     * @param exchange the request
     * @return the span, or {@code null} when the request is not observed or not traced
     */
    public static Span serverSpan(ServerWebExchange exchange) {
        ServerRequestObservationContext observation = ServerRequestObservationContext
                .findCurrent(exchange.getAttributes()).orElse(null);
        TracingObservationHandler.TracingContext tracing = observation == null ? null
                : observation.get(TracingObservationHandler.TracingContext.class);
        return tracing == null ? null : tracing.getSpan();
    }

    /** Removes the ids again. */
    @Override
    public void close() {
        MDC.remove(TRACE_ID);
        MDC.remove(SPAN_ID);
        MDC.remove(ObservabilityDefaults.REQUEST_ID);
    }
}
