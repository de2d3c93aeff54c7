package dev.socialgraph.gateway;

import dev.socialgraph.wire.PublicApi;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Refuses {@code /v1} paths whose segments are not plain tokens ({@code [A-Za-z0-9_-]}, as every id and name of
 * the API is): dot segments, encoded slashes or backslashes, and empty segments get 400 problem+json before
 * authentication and routing, so a rewritten path cannot escape {@code /internal/v1/users} on a service.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class PathGuard implements WebFilter {

    private final ProblemResponses problems;

    PathGuard(ProblemResponses problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String raw = exchange.getRequest().getURI().getRawPath();
        if (raw != null && raw.startsWith(PublicApi.PREFIX + "/") && !isPlain(raw)) {
            return problems.write(exchange, HttpStatus.BAD_REQUEST, "Bad Request",
                    "path segments may only contain letters, digits, '-' and '_'", "path");
        }
        return chain.filter(exchange);
    }

    static boolean isPlain(String rawPath) {
        int segmentLength = 0;
        for (int i = 1; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            if (c == '/') {
                if (segmentLength == 0) {
                    return false; // empty segment: "//"
                }
                segmentLength = 0;
            } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
                segmentLength++;
            } else {
                return false;
            }
        }
        return segmentLength > 0;
    }
}
