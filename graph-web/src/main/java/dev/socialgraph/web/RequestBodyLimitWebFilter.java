package dev.socialgraph.web;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import java.util.function.Function;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The request body limit of every Reactor Netty server: the reactive services' {@link BodySizeLimitFilter} (a body
 * over {@code graph.web.max-request-size} gets 413 problem+json, {@code parameter: body}, counted as
 * {@code graph.web.rejected{reason=body-too-large}}) and the gateway's ({@code graph.gateway.max-body-size}, with its
 * own problems), refused before the application reads a byte of it.
 * <ul>
 *   <li>A {@code Content-Length} over the limit is refused from the header alone.</li>
 *   <li>A body of unknown length ({@code Transfer-Encoding: chunked}) is read into memory up to the limit
 *       ({@link DataBufferUtils#join(org.reactivestreams.Publisher, int)} fails as soon as the count passes it) and
 *       handed on from that copy, or refused: the service never holds more than the limit of any request.</li>
 * </ul>
 * In a service it runs right after the credential check, in the gateway right after Spring Security, so an
 * anonymous caller cannot make either read even a bounded body. The rest of an unread body is discarded by Reactor
 * Netty on a keep-alive connection, so the client does read the 413.
 */
public final class RequestBodyLimitWebFilter implements WebFilter, Ordered {

    private final BodyLimit limit;
    private final int order;
    private final Function<ServerWebExchange, Mono<Void>> refusal;

    /**
     * The service guard's limit: its 413 problem ({@link Problems#bodyTooLarge}), counted.
     *
     * @param maxBytes largest accepted body, 1 byte to 1 GB
     * @param meters   where the rejections are counted
     */
    RequestBodyLimitWebFilter(long maxBytes, MeterRegistry meters) {
        this(maxBytes, ServiceGuardAutoConfiguration.TOKEN_ORDER + 1, guardRefusal(maxBytes, meters));
    }

    /**
     * A limit that answers in its owner's own way (the gateway's problems).
     *
     * @param maxBytes largest accepted body, 1 byte to 1 GB
     * @param order    the filter's place among the web filters
     * @param refusal  completes an exchange whose body is too large with a 413
     */
    public RequestBodyLimitWebFilter(long maxBytes, int order, Function<ServerWebExchange, Mono<Void>> refusal) {
        this.limit = new BodyLimit(maxBytes);
        this.order = order;
        this.refusal = refusal;
    }

    private static Function<ServerWebExchange, Mono<Void>> guardRefusal(long maxBytes, MeterRegistry meters) {
        Supplier<Problems> tooLarge = BodyLimit.guardRefusal(maxBytes, meters);
        return exchange -> {
            Problems problem = tooLarge.get();
            return ReactiveProblems.write(exchange, problem.status(), problem.body());
        };
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        HttpHeaders headers = exchange.getRequest().getHeaders();
        BodyLimit.Verdict verdict = limit.judge(headers.getContentLength(),
                headers.containsHeader(HttpHeaders.TRANSFER_ENCODING));
        if (verdict == BodyLimit.Verdict.REFUSE) {
            return reject(exchange);
        }
        if (verdict == BodyLimit.Verdict.PASS) {
            return chain.filter(exchange); // no body, or one Netty's decoder holds to its declared length
        }
        return DataBufferUtils.join(exchange.getRequest().getBody(), (int) limit.maxBytes())
                .map(joined -> exchange.mutate().request(withBody(exchange.getRequest(), copy(joined))).build())
                .defaultIfEmpty(exchange)
                .onErrorResume(DataBufferLimitException.class, e -> reject(exchange).then(Mono.empty()))
                .flatMap(chain::filter);
    }

    private Mono<Void> reject(ServerWebExchange exchange) {
        return refusal.apply(exchange);
    }

    /** The bytes of a (pooled) buffer, which is released. */
    private static byte[] copy(DataBuffer joined) {
        try {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            return bytes;
        } finally {
            DataBufferUtils.release(joined);
        }
    }

    /** The request with {@code body} as its body, wrapped anew for each subscriber. */
    private static ServerHttpRequest withBody(ServerHttpRequest request, byte[] body) {
        return new ServerHttpRequestDecorator(request) {
            @Override
            public Flux<DataBuffer> getBody() {
                return Flux.defer(() -> Flux.just(
                        org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance.wrap(body)));
            }
        };
    }
}
