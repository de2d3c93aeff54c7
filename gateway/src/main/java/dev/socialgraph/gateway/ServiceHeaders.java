package dev.socialgraph.gateway;

import dev.socialgraph.web.ExchangeLogContext;
import dev.socialgraph.wire.Headers;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.propagation.Propagator;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;

/**
 * The headers the gateway sets on every request it proxies to a service, replacing whatever values a client sent:
 * <ul>
 *   <li>{@code X-Service-Token: <graph.service-token>}, on every route: only the gateway vouches for a request, and a
 *       client that knew the credential still cannot pick the identity a service sees (the actor comes from the
 *       JWT);</li>
 *   <li>{@code X-Request-Id}, the id {@link RequestIds} chose for the request;</li>
 *   <li>{@code X-Public-Path} ({@link Headers#PUBLIC_PATH}), the path the caller sent, which a service's problem
 *       answer names as its {@code instance} instead of the internal path it received;</li>
 *   <li>{@code X-Viewer-Id} ({@link Headers#VIEWER_ID}), the token's subject, for the reads whose answer depends on
 *       who asks ({@link #VIEWER_ATTRIBUTE}), and on no other request;</li>
 *   <li>the trace context of the gateway's server span for the request ({@code traceparent}, W3C, as the
 *       tracer's propagator writes it), so the service's span is its child: one request, one trace. Written from
 *       the span that the server's {@code http.server.requests} observation already opened; the proxied call gets no
 *       client span and no observation of its own (Spring Cloud Gateway's {@code observability} stays off, see
 *       application.yml), which is the whole per-request cost of propagation here: a lookup of the exchange's
 *       observation and one header written.</li>
 * </ul>
 *
 * <p>An {@link HttpHeadersFilter} rather than a route filter: Spring Cloud Gateway applies these to the outgoing
 * request of every route in its Netty routing filter, so a route added later cannot forget it. It runs last, after
 * the hop-by-hop and forwarding filters, and writes its headers into the one copy of the outgoing headers the
 * routing filter needs anyway; setting the request id by mutating the exchange instead copied every header once
 * more per request.
 */
@Component
class ServiceHeaders implements HttpHeadersFilter, Ordered {

    /**
     * The exchange attribute holding the path the caller sent, set by a filter that rewrites the request's path (the
     * {@code /v1/me} routes); without it the request's path is the caller's (the reads route by the URL instead).
     */
    static final String PUBLIC_PATH_ATTRIBUTE = ServiceHeaders.class.getName() + ".publicPath";

    /**
     * The exchange attribute holding the viewer, the token's subject, set by the filter of a read whose answer depends
     * on who asks ({@link RoutesConfiguration#viewerFromToken}); written as {@code X-Viewer-Id}
     * ({@link Headers#VIEWER_ID}). Without it the outgoing request has no {@code X-Viewer-Id}, whatever the client
     * sent.
     */
    static final String VIEWER_ATTRIBUTE = ServiceHeaders.class.getName() + ".viewer";

    /** The header the services check (graph-web) and graph-client sends. */
    static final String HEADER = Headers.SERVICE_TOKEN;

    /**
     * Longest trace header of a batch's first request that its call carries, characters (a W3C {@code traceparent}
     * is 55; 512 is what W3C Trace Context asks a platform to pass on of a {@code tracestate} at least). A longer value
     * is left out: it is one caller's choice, and it must not push the call's headers towards the service's 8 KB
     * header limit, past which every check in the batch would be answered 431.
     */
    static final int MAX_COPIED_TRACE_FIELD = 512;

    private final String token;
    private final Propagator propagator;
    /** The headers the propagator reads and writes ({@code traceparent}, {@code tracestate}, baggage fields). */
    private final List<String> traceFields;

    ServiceHeaders(ServiceCredential credential, ObjectProvider<Propagator> propagator) {
        this.token = credential.serviceToken();
        this.propagator = propagator.getIfAvailable(() -> Propagator.NOOP);
        this.traceFields = List.copyOf(this.propagator.fields());
    }

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        HttpHeaders out = HttpHeaders.copyOf(input); // the incoming request's headers are read-only
        writeCommon(exchange, out, HttpHeaders::set);
        // The service's own path is internal; its problem answers name the caller's path as their instance.
        String publicPath = exchange.getAttribute(PUBLIC_PATH_ATTRIBUTE);
        out.set(Headers.PUBLIC_PATH, publicPath != null ? publicPath : exchange.getRequest().getPath().value());
        String viewer = viewer(exchange);
        if (viewer != null) {
            out.set(Headers.VIEWER_ID, viewer);
        } else {
            out.remove(Headers.VIEWER_ID);
        }
        return out;
    }

    /**
     * Writes the headers of a call the gateway makes for several requests at once (a batch of coalesced follow
     * checks, {@link FollowPairsClient}): the credential, and the request id and trace context of {@code first}, the
     * batch's first request. One call has one id and one parent span, so the others' traces end at the gateway; a
     * lone request, the common case below concurrency, gets exactly what a proxied one gets. No
     * {@code X-Public-Path}: the call is not one caller's, and the gateway names each caller's own path in the
     * problems it relays ({@link ProblemResponses#relay}). The single check, the one caller of such batches, has no
     * server span ({@link SingleCheckEntry} leaves it out of the observation): then the first request's own trace
     * headers (the propagator's fields, as the caller sent them) are passed on, as a proxied request's copied headers
     * would carry them, so a caller's trace still reaches the service, whose span is then the caller's child; each
     * only up to {@value #MAX_COPIED_TRACE_FIELD} characters.
     *
     * @param first   the batch's first request
     * @param carrier the outgoing request's headers
     * @param setter  sets one header on {@code carrier}, replacing any value
     */
    <C> void writeBatchHeaders(ServerWebExchange first, C carrier, Propagator.Setter<C> setter) {
        if (ExchangeLogContext.serverSpan(first) == null) {
            HttpHeaders incoming = first.getRequest().getHeaders();
            for (String field : traceFields) {
                String value = incoming.getFirst(field);
                if (value != null && value.length() <= MAX_COPIED_TRACE_FIELD) {
                    setter.set(carrier, field, value);
                }
            }
        }
        writeCommon(first, carrier, setter);
    }

    /**
     * The viewer of {@code exchange}'s read: the token's subject, when the read's filters made it the viewer.
     *
     * @return a positive user id in decimal, or {@code null}
     */
    static String viewer(ServerWebExchange exchange) {
        return exchange.getAttribute(VIEWER_ATTRIBUTE);
    }

    /** The credential, the request id and the trace context, for {@code exchange}'s request. */
    private <C> void writeCommon(ServerWebExchange exchange, C carrier, Propagator.Setter<C> setter) {
        // First, so that the headers below win over the same names the propagator may write (its baggage fields).
        Span span = ExchangeLogContext.serverSpan(exchange); // none when not observed: nothing to continue
        if (span != null) {
            propagator.inject(span.context(), carrier, setter);
        }
        setter.set(carrier, HEADER, token);
        String requestId = exchange.getAttribute(RequestIds.ATTRIBUTE);
        if (requestId != null) {
            setter.set(carrier, RequestIds.HEADER, requestId);
        }
    }

    @Override
    public boolean supports(Type type) {
        return type == Type.REQUEST;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
