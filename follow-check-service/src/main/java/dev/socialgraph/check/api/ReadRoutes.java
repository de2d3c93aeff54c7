package dev.socialgraph.check.api;

import dev.socialgraph.common.api.ApiPaths;
import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.bloom.BloomHandlers;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.web.ServiceGuardProperties;
import io.micrometer.observation.ObservationPredicate;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Every endpoint of the check service but the actuator, as WebFlux functional routes on Reactor Netty: the server
 * stack chosen by measurement (docs/decisions.md), with no annotation processing, argument resolution or content
 * negotiation per request. A path served for other methods answers 405 with {@code Allow}, and the batch check
 * with a body that is not JSON 415, as annotated controllers would.
 */
@Configuration(proxyBeanMethods = false)
class ReadRoutes {

    private static final String USERS = ApiPaths.USERS + "/{id}";

    /**
     * The threads reads that may wait for Redis or a shard run on ({@code graph.check.blocking-threads}, queue
     * {@code graph.check.blocking-queue}; a full queue answers 503).
     */
    @Bean(destroyMethod = "dispose")
    Scheduler blockingReads(CheckProperties properties) {
        // Daemon threads: an idle pool must not keep a stopping JVM alive (the bean's dispose stops it in order).
        return Schedulers.newBoundedElastic(properties.blockingThreads(), properties.blockingQueue(), "graph-reads",
                60, true);
    }

    /** Every route has {@code http.server.requests} but the single check (see there why). */
    @Bean
    ObservationPredicate singleCheckUnobserved() {
        return new SingleCheckUnobserved();
    }

    @Bean
    GraphReadHandlers graphReadHandlers(GraphReads graphReads, CheckProperties properties, Scheduler blockingReads) {
        return new GraphReadHandlers(graphReads, properties, blockingReads);
    }

    /** Stops start-up when {@code batch-max} pairs may not fit in the body limit ({@link FollowingPairsHandler}). */
    @Bean
    FollowingPairsHandler followingPairsHandler(GraphReads graphReads, CheckProperties properties,
                                                ServiceGuardProperties guard, Scheduler blockingReads) {
        return new FollowingPairsHandler(graphReads, properties.batchMax(), guard.web().maxRequestSize().toBytes(),
                properties.pairTimeout(), blockingReads);
    }

    @Bean
    RouterFunction<ServerResponse> checkServiceRoutes(GraphReadHandlers reads, FollowingPairsHandler pairs,
                                                      BloomHandlers bloom, Scheduler blockingReads) {
        Table table = new Table();
        table.add(HttpMethod.GET, USERS + "/following/{targetId}", reads::isFollowing);
        table.addJson(HttpMethod.POST, USERS + "/following/contains", reads::contains);
        table.addJson(HttpMethod.POST, ApiPaths.FOLLOWING_PAIRS, pairs::check);
        table.add(HttpMethod.GET, USERS + "/following", reads::following);
        table.add(HttpMethod.GET, USERS + "/followers", reads::followers);
        table.add(HttpMethod.GET, USERS + "/counts", reads::counts);
        table.add(HttpMethod.GET, USERS + "/common-following/{otherId}", reads::commonFollowing);
        table.add(HttpMethod.GET, USERS + "/relationship/{otherId}", reads::relationship);
        table.add(HttpMethod.GET, USERS + "/suggestions", reads::suggestions);
        table.add(HttpMethod.GET, USERS + "/blocking", reads::blocking);
        table.add(HttpMethod.GET, USERS + "/muting", reads::muting);
        table.addJson(HttpMethod.POST, USERS + "/hidden", reads::hidden);
        table.add(HttpMethod.GET, ApiPaths.BLOOM, bloom::state);
        table.add(HttpMethod.POST, ApiPaths.BLOOM_SWAP, request -> bloom.swap(request, blockingReads));
        return table.routes();
    }

    /** Routes by method and path, in order, then a 405 for each path's other methods. */
    private static final class Table {

        private RouterFunction<ServerResponse> routes;
        private final Map<String, Set<HttpMethod>> methods = new LinkedHashMap<>();

        void add(HttpMethod method, String path, HandlerFunction<ServerResponse> handler) {
            route(RequestPredicates.method(method).and(RequestPredicates.path(path)), handler);
            methods.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(method);
        }

        /** As {@link #add}, for a JSON body: any other {@code Content-Type} is answered 415. */
        void addJson(HttpMethod method, String path, HandlerFunction<ServerResponse> handler) {
            RequestPredicate json = RequestPredicates.contentType(MediaType.APPLICATION_JSON);
            add(method, path, request -> json.test(request) ? handler.handle(request) : Mono.error(
                    new UnsupportedMediaTypeStatusException(request.headers().contentType().orElse(null),
                            List.of(MediaType.APPLICATION_JSON))));
        }

        RouterFunction<ServerResponse> routes() {
            for (Map.Entry<String, Set<HttpMethod>> path : methods.entrySet()) {
                Set<HttpMethod> allowed = Set.copyOf(path.getValue());
                route(RequestPredicates.path(path.getKey()),
                        request -> Mono.error(new MethodNotAllowedException(request.method(), allowed)));
            }
            return routes;
        }

        private void route(RequestPredicate predicate, HandlerFunction<ServerResponse> handler) {
            RouterFunction<ServerResponse> route = RouterFunctions.route(predicate, handler);
            routes = routes == null ? route : routes.and(route);
        }
    }
}
