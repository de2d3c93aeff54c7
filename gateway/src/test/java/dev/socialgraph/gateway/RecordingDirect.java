package dev.socialgraph.gateway;

import dev.socialgraph.wire.Headers;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.security.web.server.firewall.HttpStatusExchangeRejectedHandler;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebHandler;

/**
 * What answers a request {@link SingleCheckEntry} authenticates, for its unit tests: Spring Security's own firewall
 * and rejected handler (400), a headers writer that marks the response before the handler runs, and two handlers
 * that record the exchange they were given, read its {@code X-Follow-Token} (as the real ones do, so the firewall's
 * header check applies) and answer 200.
 */
final class RecordingDirect {

    /** The header the stand-in security headers writer sets. */
    static final String SECURITY_HEADERS = "X-Test-Security-Headers";

    final AtomicReference<ServerWebExchange> check = new AtomicReference<>();
    final AtomicReference<ServerWebExchange> reads = new AtomicReference<>();

    SingleCheckEntry.Direct direct(ApplicationContext context) {
        return new SingleCheckEntry.Direct(new StrictServerWebExchangeFirewall(),
                new HttpStatusExchangeRejectedHandler(),
                (exchange, chain) -> {
                    exchange.getResponse().getHeaders().set(SECURITY_HEADERS, "written");
                    return chain.filter(exchange);
                },
                recording(check), recording(reads), context);
    }

    private static WebHandler recording(AtomicReference<ServerWebExchange> into) {
        return exchange -> {
            into.set(exchange);
            exchange.getRequest().getHeaders().getFirst(Headers.FOLLOW_TOKEN);
            exchange.getResponse().setStatusCode(HttpStatus.OK);
            return exchange.getResponse().setComplete();
        };
    }
}
