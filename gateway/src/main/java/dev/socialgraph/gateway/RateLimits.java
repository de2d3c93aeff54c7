package dev.socialgraph.gateway;

import dev.socialgraph.web.ProblemMapping;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.google.common.util.concurrent.RateLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoop;
import java.security.Principal;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Per-user rate limits: a token bucket per user and budget in Redis, spent through
 * {@link LocalTokenBuckets} (batches reserved ahead, answered in process; its javadoc states how far over budget a
 * user can get), keyed by the token's subject. Over budget: 429 problem+json with {@code Retry-After: 1}.
 *
 * <p>Redis down (no local token left and the reservation failed): reads stay open, counted in
 * {@code graph.gateway.ratelimit.failopen}; writes fall back to an in-process Guava {@link RateLimiter} per user at
 * the write budget's rate, so an outage does not lift the write limit.
 */
final class RateLimits {

    private final ProblemResponses problems;
    private final Counter failOpen;
    private final Counter rejected;
    /** One scheduler per event loop: there are as many as {@code reactor.netty.ioWorkerCount}. */
    private final Map<EventLoop, Scheduler> loopSchedulers = new ConcurrentHashMap<>();

    RateLimits(ProblemResponses problems, MeterRegistry meters) {
        this.problems = problems;
        this.failOpen = meters.counter("graph.gateway.ratelimit.failopen");
        this.rejected = meters.counter("graph.gateway.ratelimit.rejected");
    }

    /**
     * A filter applying {@code limiter} (one budget) per user.
     *
     * @param limiter        the budget's local buckets
     * @param budgetName     the budget's name in the 429's detail ({@code reads}, {@code writes})
     * @param fallbackPerSec when not 0, the in-process limit per user (requests per second) while Redis is
     *                       unreachable; 0 lets requests through instead
     */
    GatewayFilter filter(LocalTokenBuckets limiter, String budgetName, double fallbackPerSec) {
        LoadingCache<String, RateLimiter> fallback = fallbackPerSec <= 0 ? null : Caffeine.newBuilder()
                .expireAfterAccess(Duration.ofMinutes(10)).maximumSize(1_000_000)
                .build(user -> RateLimiter.create(fallbackPerSec));
        return (exchange, chain) -> exchange.getPrincipal().map(Principal::getName).defaultIfEmpty("anonymous")
                .flatMap(user -> {
                    Mono<LocalTokenBuckets.Decision> decision = limiter.acquire(user);
                    // A decision made in process is already there; only one that waited on Redis changes thread.
                    return (decision instanceof reactor.core.Fuseable.ScalarCallable<?> ? decision
                            : backOnEventLoop(decision, exchange)).flatMap(d -> switch (d) {
                                case ALLOWED -> chain.filter(exchange);
                                case REJECTED -> reject(exchange, budgetName);
                                case REDIS_DOWN -> {
                                    failOpen.increment();
                                    yield fallback == null || fallback.get(user).tryAcquire()
                                            ? chain.filter(exchange) : reject(exchange, budgetName);
                                }
                            });
                });
    }

    private Mono<Void> reject(ServerWebExchange exchange, String budgetName) {
        rejected.increment();
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, ProblemMapping.RETRY_AFTER_SECONDS);
        return problems.write(exchange, HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests",
                "over the " + budgetName + " budget; retry after 1 s", null);
    }

    /**
     * {@code answer} delivered on the event loop of the client's connection rather than on Lettuce's.
     *
     * <p>Why: Lettuce completes every Redis reply on the I/O thread of its one shared connection, and Reactor runs
     * whatever follows on the thread that completed the signal. Without this hop the rest of every request (path
     * rewrite, header filters, acquiring a pooled connection to the service and writing to it) ran on that single
     * Lettuce thread: 22 % of the gateway's sampled CPU in its profile, all of it serialised on one core and
     * handed back and forth between threads. On the client connection's own event loop, Reactor Netty also
     * acquires the pooled service connection from that same loop (its colocation), so request and response stay on
     * one thread.
     */
    <T> Mono<T> backOnEventLoop(Mono<T> answer, ServerWebExchange exchange) {
        Scheduler loop = eventLoopOf(exchange);
        return loop == null ? answer : answer.publishOn(loop);
    }

    /** The scheduler of the client connection's Netty event loop, or {@code null} when not on Reactor Netty. */
    Scheduler eventLoopOf(ServerWebExchange exchange) {
        EventLoop loop = EventLoops.of(exchange);
        return loop == null ? null : loopSchedulers.computeIfAbsent(loop, Schedulers::fromExecutor);
    }

}
