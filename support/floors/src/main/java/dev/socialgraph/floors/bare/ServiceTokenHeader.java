package dev.socialgraph.floors.bare;

import dev.socialgraph.wire.Headers;
import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

/**
 * Sets {@code X-Service-Token} on every proxied request, replacing whatever the client sent. The way the product
 * gateway's {@code ServiceHeaders} sets it: an {@link HttpHeadersFilter} that writes into the copy of the outgoing
 * headers Spring Cloud Gateway's routing filter makes anyway, rather than a route filter that would copy the request
 * once more; so the floor pays for the credential what the gateway pays.
 */
final class ServiceTokenHeader implements HttpHeadersFilter, Ordered {

    private final String token;

    ServiceTokenHeader(String token) {
        this.token = token;
    }

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        HttpHeaders out = HttpHeaders.copyOf(input); // the incoming request's headers are read-only
        out.set(Headers.SERVICE_TOKEN, token);
        return out;
    }

    @Override
    public boolean supports(Type type) {
        return type == Type.REQUEST;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE; // last, after the hop-by-hop headers filter, as the gateway's
    }
}
