package dev.socialgraph.gateway;

import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Refuses request bodies larger than {@code graph.gateway.max-body-size} with 413 problem+json
 * ({@code parameter: body}) before any byte of them reaches a service.
 *
 * <ul>
 *   <li>A {@code Content-Length} over the limit is refused from the header alone, without reading the body (Spring
 *       Cloud Gateway's {@code RequestSize} filter does the same, but only per route and only for this case).</li>
 *   <li>A body of unknown length ({@code Transfer-Encoding: chunked}) is read into memory up to the limit before the
 *       request goes on ({@link DataBufferUtils#join(org.reactivestreams.Publisher, int)}, which stops reading and
 *       fails as soon as the count passes the limit). The service is then sent the whole body or nothing: streaming
 *       it on while counting would have opened a connection and sent a partial request before the refusal. The
 *       API's only body is a batch check of at most a few hundred kilobytes, so holding it costs little.</li>
 * </ul>
 *
 * Ordered right after Spring Security's filter chain: a body is read only for an authenticated request (an
 * anonymous one is refused with 401 without it), and the length check needs no read at all. The rest of an
 * unread body is discarded by Reactor Netty on a keep-alive connection, so the client does read the 413.
 */
@Component
@Order(RequestBodyLimit.ORDER)
class RequestBodyLimit implements WebFilter {

    /** Right after Spring Security's {@code WebFilterChainProxy} (order -100, not public in its configuration). */
    static final int ORDER = -99;

    private final ProblemResponses problems;
    private final int maxBytes;

    RequestBodyLimit(ProblemResponses problems, GatewayProperties properties) {
        this.problems = problems;
        this.maxBytes = properties.maxBodyBytes();
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        HttpHeaders headers = exchange.getRequest().getHeaders();
        long declared = headers.getContentLength();
        if (declared > maxBytes) {
            return tooLarge(exchange);
        }
        if (declared >= 0 || !headers.containsHeader(HttpHeaders.TRANSFER_ENCODING)) {
            return chain.filter(exchange); // no body, or one whose length Netty's decoder holds it to
        }
        return DataBufferUtils.join(exchange.getRequest().getBody(), maxBytes)
                .map(joined -> exchange.mutate().request(withBody(exchange, copy(joined))).build())
                .defaultIfEmpty(exchange)
                .onErrorResume(DataBufferLimitException.class, e -> tooLarge(exchange).then(Mono.empty()))
                .flatMap(chain::filter);
    }

    /** The bytes of a (pooled) buffer, which is released: a route that never sends the body then leaks nothing. */
    private static byte[] copy(DataBuffer joined) {
        try {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            return bytes;
        } finally {
            DataBufferUtils.release(joined);
        }
    }

    private Mono<Void> tooLarge(ServerWebExchange exchange) {
        return problems.write(exchange, HttpStatus.CONTENT_TOO_LARGE, "Content Too Large",
                "the request body is larger than " + maxBytes + " bytes", "body");
    }

    /** The request with {@code body} as its body, wrapped anew (unpooled) for each subscriber. */
    private static ServerHttpRequest withBody(ServerWebExchange exchange, byte[] body) {
        return new ServerHttpRequestDecorator(exchange.getRequest()) {
            @Override
            public Flux<DataBuffer> getBody() {
                return Flux.defer(() -> Flux.just(exchange.getResponse().bufferFactory().wrap(body)));
            }
        };
    }
}
