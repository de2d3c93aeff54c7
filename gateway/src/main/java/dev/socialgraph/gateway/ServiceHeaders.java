package dev.socialgraph.gateway;

import org.springframework.cloud.gateway.filter.headers.HttpHeadersFilter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;

/**
 * Sets {@code X-Service-Token: <graph.service-token>} on every request the gateway proxies to a service, on every
 * route, replacing whatever value a client sent: only the gateway vouches for a request, and a client that knew
 * the credential still cannot pick the identity a service sees (the actor comes from the JWT).
 *
 * <p>An {@link HttpHeadersFilter} rather than a route filter: Spring Cloud Gateway applies these to the outgoing
 * request of every route in its Netty routing filter, so a route added later cannot forget it. It runs last, after
 * the hop-by-hop and forwarding filters.
 */
@Component
class ServiceTokenHeaders implements HttpHeadersFilter, Ordered {

    /** The header the services check (graph-web) and graph-client sends. */
    static final String HEADER = dev.socialgraph.common.token.ServiceCredential.HEADER;

    private final String token;

    ServiceTokenHeaders(ServiceCredential credential) {
        this.token = credential.serviceToken();
    }

    @Override
    public HttpHeaders filter(HttpHeaders input, ServerWebExchange exchange) {
        HttpHeaders out = HttpHeaders.copyOf(input); // the incoming request's headers are read-only
        out.set(HEADER, token);
        return out;
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
