package dev.socialgraph.gateway;

import dev.socialgraph.gateway.FollowPairsClient.BatchProblem;
import dev.socialgraph.gateway.ReadBatchClient.Answer;
import dev.socialgraph.gateway.ReadBatchClient.Query;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.ReadBatch;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.cloud.gateway.support.NotFoundException;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebHandler;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * A public GET read of {@link LeanReads#ENDPOINTS} forwarded to the check instance that owns its user's logical
 * shard, outside Spring Cloud Gateway's routes, with the same observable answer as its route gives, in the route's
 * order of steps:
 * <ol>
 *   <li>the global filters every route runs first: the request id ({@link RequestIds}), an over-long
 *       {@code X-Follow-Token} refused ({@link FollowTokenGuard});</li>
 *   <li>the read's route filters ({@link RoutesConfiguration#leanReadFilters}): the read budget (429 with
 *       {@code Retry-After}), the path's user ids (400 naming the variable), the viewer from the token, a user's own
 *       lists on the subject's path (403 for another's);</li>
 *   <li>the instance {@link ShardAffineLoadBalancer} chooses for the path's user (none: 503 naming the service, as
 *       Spring Cloud Gateway's load-balancer filter answers);</li>
 *   <li>{@code GET} of the internal path ({@link InternalPath#internal(String)}, or the subject's path a filter set)
 *       with the query as the caller sent it, on Spring Cloud Gateway's own client ({@link HttpClientTuning}: its
 *       pool, connect and response timeouts), with the request's headers as the routes' header filters make them
 *       ({@link ServiceHeaders}' credential, request id, public path and trace context; hop-by-hop headers and
 *       {@code Host} dropped), and no body: none of these reads has one;</li>
 *   <li>the answer relayed as it came: status, headers (but hop-by-hop ones), body. A failed call is an error
 *       {@link GatewayErrors} answers (503 unreachable or pool exhausted, 504 silent).</li>
 * </ol>
 * With {@code graph.gateway.lean-reads.coalesce} (the default), steps 4 and 5 are first one read of a batch: the
 * internal path, the raw query and the headers its internal endpoint declares go into the instance's read
 * {@link Coalescer} ({@link ReadBatchClient}, {@code POST /internal/v1/reads}), sent with the reads of other callers
 * bound for the same instance, and the read's own result comes back: a 200 is written as {@code application/json} with
 * the instance's {@code X-Served-By}, a problem as this caller's ({@link ProblemResponses#relay}, with its
 * {@code Retry-After}); a failed batch call is answered as a failed {@code GET} would be. The batch answers only what
 * the instance's memory holds; a read it defers (it would wait for Redis or a database) then takes steps 4 and 5 as
 * above. A read that cannot go into a batch (suggestions, block and mute lists, which memory never answers; a value
 * past a batch's bounds: {@link ReadBatch#fits}) takes them at once. With {@code graph.gateway.lean-reads.alone-as-get}
 * (the default), so does a read the coalescer would send alone (no other read waiting for its instance): one hop,
 * whatever answers it, and it holds the coalescer's slot meanwhile, so the reads arriving then still go together.
 * The body is read whole before it is written, with its {@code Content-Length}: these answers are a page of ids at
 * most, a few tens of KB, and the route streamed them only because it streams everything.
 */
final class LeanReadHandler implements WebHandler {

    private static final String INTERNAL_USERS = InternalApi.USERS + "/";
    private static final byte[] EMPTY = new byte[0];

    /** The steps of each read, composed once; the last forwards the request. */
    private final Map<Endpoint, GatewayFilterChain> chains = new HashMap<>();
    private final ShardAffineLoadBalancer balancer;
    /** {@code GET} on the proxying client, built once: each further step copies the client's configuration. */
    private final HttpClient.RequestSender get;
    private final List<HttpHeadersFilter> headerFilters;
    /** Each check instance's read coalescer, or {@code null} when every read is a {@code GET} of its own. */
    private final Function<ServiceInstance, Coalescer<Query, Answer>> coalescers;
    private final ProblemResponses problems;
    /** Whether a read that would be alone in its batch is sent as its own {@code GET} instead. */
    private final boolean aloneAsGet;

    /**
     * @param first         the global filters every route runs first, in order
     * @param filters       each read's own filters, in order
     * @param balancer      the check service's balancer
     * @param client        Spring Cloud Gateway's proxying client
     * @param headerFilters the routes' header filters, in their order
     * @param coalescers    each check instance's read coalescer, or {@code null} to send each read on its own
     * @param problems      the gateway's problem answers, for a batched read's problem
     * @param aloneAsGet    {@code true}: a read that would be alone in its batch goes as its own {@code GET}
     */
    LeanReadHandler(List<GatewayFilter> first, Map<Endpoint, List<GatewayFilter>> filters,
                    ShardAffineLoadBalancer balancer, HttpClient client, List<HttpHeadersFilter> headerFilters,
                    Function<ServiceInstance, Coalescer<Query, Answer>> coalescers, ProblemResponses problems,
                    boolean aloneAsGet) {
        this.aloneAsGet = aloneAsGet;
        this.coalescers = coalescers;
        this.problems = problems;
        this.balancer = balancer;
        this.get = client.request(io.netty.handler.codec.http.HttpMethod.GET);
        this.headerFilters = headerFilters;
        filters.forEach((read, steps) -> {
            GatewayFilterChain chain = this::forward;
            for (int i = steps.size() - 1; i >= 0; i--) {
                chain = then(steps.get(i), chain);
            }
            for (int i = first.size() - 1; i >= 0; i--) {
                chain = then(first.get(i), chain);
            }
            chains.put(read, chain);
        });
    }

    private static GatewayFilterChain then(GatewayFilter filter, GatewayFilterChain next) {
        return exchange -> filter.filter(exchange, next);
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange) {
        Endpoint read = exchange.getRequiredAttribute(LeanReads.ATTRIBUTE);
        // Where the routes' filters read them, as the route's path predicate leaves them (the entry matched the path).
        ServerWebExchangeUtils.putUriTemplateVariables(exchange, read.variables(exchange.getRequest().getURI()
                .getRawPath()));
        return chains.get(read).filter(exchange);
    }

    /** The last step: the request, as the filters left it, to the chosen instance; its answer to the caller. */
    private Mono<Void> forward(ServerWebExchange exchange) {
        String raw = exchange.getRequest().getURI().getRawPath();
        String path = raw.startsWith(INTERNAL_USERS) ? raw : InternalPath.internal(raw);
        ReadBatch.Read batched = coalescers == null ? null : batched(exchange, path);
        return balancer.choose(ShardAffineLoadBalancer.userId(path))
                .flatMap(chosen -> !chosen.hasServer()
                        ? Mono.error(new NotFoundException("Unable to find instance for " + LoadBalancing.CHECK_SERVICE))
                        : batched != null ? coalesce(exchange, chosen.getServer(), batched)
                        : send(exchange, chosen.getServer(), path));
    }

    /**
     * The request as a read of a batch: its internal path, raw query and the headers its internal endpoint declares
     * ({@code X-Follow-Token}; {@code X-Viewer-Id} as {@link ServiceHeaders} writes it, the viewer the filters set);
     * {@code null} when it cannot be one (a path no batch holds, or a value past a batch's bounds), and is sent on its
     * own.
     */
    private static ReadBatch.Read batched(ServerWebExchange exchange, String path) {
        ServerHttpRequest request = exchange.getRequest();
        Endpoint internal = ReadBatch.endpoint(path);
        if (internal == null) {
            return null;
        }
        Map<String, String> headers = Map.of();
        for (String name : internal.headers()) {
            String value = name.equals(Headers.VIEWER_ID) ? ServiceHeaders.viewer(exchange)
                    : request.getHeaders().getFirst(name);
            if (value != null) {
                if (headers.isEmpty()) {
                    headers = new HashMap<>(4);
                }
                headers.put(name, value);
            }
        }
        ReadBatch.Read read = new ReadBatch.Read(path, request.getURI().getRawQuery(), headers);
        return ReadBatch.fits(read) ? read : null;
    }

    /**
     * The read into the instance's batches; its own result to the caller, or, when the instance's memory did not hold
     * it (deferred), the read sent on its own.
     */
    private Mono<Void> coalesce(ServerWebExchange exchange, ServiceInstance instance, ReadBatch.Read read) {
        Query query = new Query(read, exchange, aloneAsGet ? () -> send(exchange, instance, read.path()) : null);
        return coalescers.apply(instance).submit(query)
                .flatMap(answer -> answer == Answer.ANSWERED ? Mono.<Void>empty()
                        : answer.result().deferred() ? send(exchange, instance, read.path())
                        : answer(exchange, answer))
                .onErrorResume(BatchProblem.class, problem -> relay(exchange, problem));
    }

    /** A read's result: its JSON as the instance wrote it, or its problem as the caller's. */
    private Mono<Void> answer(ServerWebExchange exchange, Answer answer) {
        ReadBatch.Result result = answer.result();
        if (result.status() != 200) {
            return problems.relayAnswer(exchange, result.status(), MediaType.APPLICATION_JSON_VALUE,
                    result.retryAfter(), answer.servedBy(), result.body());
        }
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        if (answer.servedBy() != null) {
            response.getHeaders().set(Headers.SERVED_BY, answer.servedBy());
        }
        response.setStatusCode(HttpStatus.OK);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        response.getHeaders().setContentLength(result.body().length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(result.body())));
    }

    /** The whole batch's error answer, to this caller: a problem as this caller's, anything else as it came. */
    private Mono<Void> relay(ServerWebExchange exchange, BatchProblem batch) {
        return problems.relayAnswer(exchange, batch.status(), batch.contentType(), batch.retryAfter(),
                batch.servedBy(), batch.body());
    }

    private Mono<Void> send(ServerWebExchange exchange, ServiceInstance instance, String path) {
        ServerHttpRequest request = exchange.getRequest();
        DefaultHttpHeaders headers = new DefaultHttpHeaders();
        HttpHeadersFilter.filterRequest(headerFilters, exchange).forEach(headers::set);
        headers.remove(HttpHeaders.HOST); // the instance's, set by the client
        headers.remove(HttpHeaders.CONTENT_LENGTH); // no body is sent
        URI base = instance.getUri();
        String query = request.getURI().getRawQuery();
        String uri = base.getScheme() + "://" + base.getRawAuthority() + path + (query == null ? "" : "?" + query);
        return get.uri(uri)
                .send((outgoing, outbound) -> {
                    outgoing.headers(headers);
                    return outbound;
                })
                .responseSingle((response, body) -> body.asByteArray().defaultIfEmpty(EMPTY).map(bytes -> {
                    HttpHeaders received = new HttpHeaders();
                    response.responseHeaders().forEach(h -> received.add(h.getKey(), h.getValue()));
                    return new Forwarded(response.status().code(), received, bytes);
                }))
                .flatMap(answer -> relay(exchange, answer));
    }

    /** A service's answer: status, headers, body. */
    private record Forwarded(int status, HttpHeaders headers, byte[] body) {
    }

    private Mono<Void> relay(ServerWebExchange exchange, Forwarded answer) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(HttpStatusCode.valueOf(answer.status()));
        HttpHeaders headers = HttpHeadersFilter.filter(headerFilters, answer.headers(), exchange,
                HttpHeadersFilter.Type.RESPONSE);
        headers.remove(HttpHeaders.TRANSFER_ENCODING);
        headers.remove(HttpHeaders.CONTENT_LENGTH);
        response.getHeaders().addAll(headers);
        response.getHeaders().setContentLength(answer.body().length);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(answer.body())));
    }
}
