package dev.socialgraph.check.api;

import dev.socialgraph.check.bloom.BloomHandlers;
import dev.socialgraph.check.changes.ChangeSignals;
import dev.socialgraph.check.changes.ChangeStream;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.web.ServiceGuardProperties;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.InternalApi;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationPredicate;
import java.util.ArrayList;
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
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Every endpoint of the check service but the actuator, as WebFlux functional routes on Reactor Netty: the server
 * stack chosen by measurement (docs/decisions/0014-the-check-services-http-path.md), with no annotation processing, argument resolution or content
 * negotiation per request. A path served for other methods answers 405 with {@code Allow}, and the batch check
 * with a body that is not JSON 415, as annotated controllers would.
 */
@Configuration(proxyBeanMethods = false)
class ReadRoutes {

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

    /** Stops start-up when {@code batch-max} reads may not fit in the body limit ({@link ReadBatchHandler}). */
    @Bean
    ReadBatchHandler readBatchHandler(GraphReadHandlers reads, CheckProperties properties,
                                      ServiceGuardProperties guard, MeterRegistry meters) {
        return new ReadBatchHandler(reads, properties.readBatchMax(), guard.web().maxRequestSize().toBytes(), meters);
    }

    @Bean
    ChangeHandlers changeHandlers(ChangeStream stream, ChangeSignals signals, GraphReads graphReads,
                                  CheckProperties properties, Scheduler blockingReads) {
        return new ChangeHandlers(stream, signals, graphReads, blockingReads, properties.changes().checkpointInterval());
    }

    @Bean
    RouterFunction<ServerResponse> checkServiceRoutes(GraphReadHandlers reads, FollowingPairsHandler pairs,
                                                      ReadBatchHandler batch, BloomHandlers bloom,
                                                      ChangeHandlers changes, Scheduler blockingReads) {
        Table table = new Table();
        table.add(InternalApi.CHECK, reads::isFollowing);
        table.addJson(InternalApi.CONTAINS, reads::contains);
        table.addJson(InternalApi.PAIRS, pairs::check);
        table.addJson(InternalApi.READS, batch::read);
        table.add(InternalApi.FOLLOWING, reads.route(InternalApi.FOLLOWING));
        table.add(InternalApi.FOLLOWERS, reads.route(InternalApi.FOLLOWERS));
        table.add(InternalApi.COUNTS, reads.route(InternalApi.COUNTS));
        table.add(InternalApi.COMMON_FOLLOWING, reads.route(InternalApi.COMMON_FOLLOWING));
        table.add(InternalApi.KNOWN_FOLLOWERS, reads.route(InternalApi.KNOWN_FOLLOWERS));
        table.add(InternalApi.RELATIONSHIP, reads.route(InternalApi.RELATIONSHIP));
        table.add(InternalApi.FOLLOW_REQUESTS, reads.route(InternalApi.FOLLOW_REQUESTS));
        table.add(InternalApi.SUGGESTIONS, reads.route(InternalApi.SUGGESTIONS));
        table.add(InternalApi.BLOCKING, reads.route(InternalApi.BLOCKING));
        table.add(InternalApi.MUTING, reads.route(InternalApi.MUTING));
        table.addJson(InternalApi.HIDDEN, reads::hidden);
        table.add(InternalApi.BLOOM, bloom::state);
        table.add(InternalApi.BLOOM_SWAP, request -> bloom.swap(request, blockingReads));
        table.add(InternalApi.CHANGES, changes::changes);
        table.add(InternalApi.CHANGES_HEAD, changes::head);
        table.add(InternalApi.USER_CHANGES, changes::userChanges);
        return table.routes(InternalApi.CHECK_SERVICE);
    }

    /** Routes by method and path, in order, then a 405 for each path's other methods. */
    private static final class Table {

        private final List<Route> routes = new ArrayList<>();
        private final Map<String, Set<HttpMethod>> methods = new LinkedHashMap<>();
        private final Set<Endpoint> served = new LinkedHashSet<>();

        void add(Endpoint endpoint, HandlerFunction<ServerResponse> handler) {
            HttpMethod method = HttpMethod.valueOf(endpoint.method().name());
            routes.add(new Route(RequestPredicates.method(method).and(RequestPredicates.path(endpoint.template())),
                    handler));
            methods.computeIfAbsent(endpoint.template(), p -> new LinkedHashSet<>()).add(method);
            served.add(endpoint);
        }

        /** As {@link #add}, for a JSON body: any other {@code Content-Type} is answered 415. */
        void addJson(Endpoint endpoint, HandlerFunction<ServerResponse> handler) {
            RequestPredicate json = RequestPredicates.contentType(MediaType.APPLICATION_JSON);
            add(endpoint, request -> json.test(request) ? handler.handle(request) : Mono.error(
                    new UnsupportedMediaTypeStatusException(request.headers().contentType().orElse(null),
                            List.of(MediaType.APPLICATION_JSON))));
        }

        /**
         * The routes, once every endpoint of {@code expected} has a handler and none else does.
         *
         * @throws IllegalStateException naming what is missing or extra: the service serves exactly its part of the
         *                               wire ({@link InternalApi#CHECK_SERVICE})
         */
        RouterFunction<ServerResponse> routes(List<Endpoint> expected) {
            if (!served.equals(new LinkedHashSet<>(expected))) {
                Set<Endpoint> missing = new LinkedHashSet<>(expected);
                missing.removeAll(served);
                Set<Endpoint> extra = new LinkedHashSet<>(served);
                extra.removeAll(expected);
                throw new IllegalStateException("the check service's routes are not InternalApi.CHECK_SERVICE: missing "
                        + missing + ", extra " + extra);
            }
            List<Route> all = new ArrayList<>(routes);
            for (Map.Entry<String, Set<HttpMethod>> path : methods.entrySet()) {
                Set<HttpMethod> allowed = Set.copyOf(path.getValue());
                all.add(new Route(RequestPredicates.path(path.getKey()),
                        request -> Mono.error(new MethodNotAllowedException(request.method(), allowed))));
            }
            return new FlatRoutes(all);
        }
    }

    /** One route: what it matches (method and path, or path alone), and its handler. */
    record Route(RequestPredicate predicate, HandlerFunction<ServerResponse> handler) {
    }

    /**
     * Routes tried in order, the first whose predicate matches answering: what {@code RouterFunctions.route(p, h)}
     * joined with {@code and} does, without the reactive composition. Spring composes each {@code and} as
     * {@code Flux.concat(first.route(r), defer(second.route(r))).next()}, so a table of n routes nests n levels of
     * it, which every request subscribes through and the match cancels back through: with this service's 37 routes,
     * about a tenth of its CPU on the read mix (its JFR profile of 2026-11-30,
     * benchmark-results/2026-11-30-read-profile).
     * A predicate's test is synchronous, and on a match sets the request's attributes (path variables, matching
     * pattern) as the composed routes did.
     */
    static final class FlatRoutes implements RouterFunction<ServerResponse> {

        private final Route[] routes;

        FlatRoutes(List<Route> routes) {
            this.routes = routes.toArray(Route[]::new);
        }

        @Override
        public Mono<HandlerFunction<ServerResponse>> route(ServerRequest request) {
            for (Route route : routes) {
                if (route.predicate().test(request)) {
                    return Mono.just(route.handler());
                }
            }
            return Mono.empty();
        }

        @Override
        public void accept(RouterFunctions.Visitor visitor) {
            for (Route route : routes) {
                visitor.route(route.predicate(), route.handler());
            }
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder();
            for (Route route : routes) {
                out.append(route.predicate()).append(" -> ").append(route.handler()).append('\n');
            }
            return out.toString();
        }
    }
}
