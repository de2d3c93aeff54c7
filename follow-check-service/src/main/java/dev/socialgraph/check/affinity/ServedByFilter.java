package dev.socialgraph.check.affinity;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Adds {@code X-Served-By: <graph.check.affinity.instance-id>} to every answer of the read API
 * ({@code /internal/v1/users/**}), errors included, so that operators and tests can see which instance the
 * gateway's shard-affine routing picked. The gateway passes it through.
 */
@Component
class ServedByFilter extends OncePerRequestFilter {

    /** Response header naming the instance that answered. */
    static final String HEADER = "X-Served-By";

    private final String instanceId;

    ServedByFilter(ShardOwnership ownership) {
        this.instanceId = ownership.instanceId();
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/internal/v1/users/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        response.setHeader(HEADER, instanceId); // before the body commits the response
        chain.doFilter(request, response);
    }
}
