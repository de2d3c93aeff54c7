package dev.socialgraph.check.api;

import dev.socialgraph.wire.InternalApi;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationPredicate;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;

/**
 * Leaves the single follow check ({@code GET /internal/v1/users/{id}/following/{targetId}}) out of the server's
 * {@code http.server.requests} observation, which every other route of the service has: its latency and error meter,
 * and its span when the request is traced. The check is the service's hot path (hundreds of thousands per second
 * per fleet at well under a millisecond each) and is timed already by {@code graph.check.latency}, tagged by the
 * layer that answered; the observation would add a second timer with its tags, a context and, while tracing, a span
 * (the check makes no call that a trace context would need to reach). Its cost on the skipped path is this test: a
 * method comparison and one scan of the path against {@link InternalApi#CHECK} ({@code Endpoint.matches}), no
 * allocation.
 *
 * <p>Runs when each observation is created, before routing, so it matches the raw path: {@code GET} and exactly
 * {@code /internal/v1/users/<segment>/following/<segment>}. {@code /following/contains} is a {@code POST} and stays
 * observed.
 */
final class SingleCheckUnobserved implements ObservationPredicate {

    @Override
    public boolean test(String name, Observation.Context context) {
        if (context instanceof ServerRequestObservationContext server) {
            return !isSingleCheck(server.getCarrier());
        }
        return true;
    }

    static boolean isSingleCheck(ServerHttpRequest request) {
        return request != null && HttpMethod.GET.equals(request.getMethod())
                && isSingleCheckPath(request.getPath().value());
    }

    /** {@code /internal/v1/users/<one segment>/following/<one segment>}, segments non-empty. */
    static boolean isSingleCheckPath(String path) {
        return InternalApi.CHECK.matches(path);
    }
}
