package dev.socialgraph.gateway;

import dev.socialgraph.wire.Headers;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code X-Request-Id}: kept when the client sends a sane one, generated otherwise; returned to the client, passed to
 * the service (by {@link ServiceHeaders}, from the exchange attribute {@link #ATTRIBUTE}), and logged at DEBUG with
 * the route. The coalesced single check, which no route serves, gets its id from {@link #assign} as well.
 */
@Component
class RequestIds implements GlobalFilter, Ordered {

    static final String HEADER = Headers.REQUEST_ID;
    /** Exchange attribute holding the request's id, for {@link ServiceHeaders}. */
    static final String ATTRIBUTE = RequestIds.class.getName() + ".id";
    private static final Logger log = LoggerFactory.getLogger(RequestIds.class);

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
        assign(exchange);
        return chain.filter(exchange);
    }

    /**
     * Gives a request its id: the client's when sane ({@link #isSane}), else a random one; set on the response and
     * kept as {@link #ATTRIBUTE} for the services' requests. Run for every routed request by this filter, and by
     * {@link CoalescedCheckHandler} for the single checks it serves outside Spring Cloud Gateway's routes.
     *
     * @return the id
     */
    static String assign(ServerWebExchange exchange) {
        String id = exchange.getRequest().getHeaders().getFirst(HEADER);
        if (!isSane(id)) {
            id = randomId();
        }
        exchange.getResponse().getHeaders().set(HEADER, id);
        exchange.getAttributes().put(ATTRIBUTE, id);
        if (log.isDebugEnabled()) {
            log.debug("request {} {} {}", id, exchange.getRequest().getMethod(), exchange.getRequest().getPath());
        }
        return id;
    }

    /** 1 to 128 printable ASCII characters, no spaces: safe to log and to pass on. */
    static boolean isSane(String id) {
        if (id == null || id.isEmpty() || id.length() > 128) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= 32 || c >= 127) {
                return false;
            }
        }
        return true;
    }

    /**
     * A random version-4 UUID (RFC 9562 section 5.4) from {@link ThreadLocalRandom}. Request ids only correlate log
     * lines, they guard nothing, so they do not need {@link UUID#randomUUID()}'s {@code SecureRandom}, which the
     * gateway's profile showed on every request without a client id (a shared generator behind a lock).
     */
    static String randomId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long msb = (random.nextLong() & ~0xF000L) | 0x4000L;                         // version 4
        long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // variant 10
        return new UUID(msb, lsb).toString();
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
