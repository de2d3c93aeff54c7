package dev.socialgraph.check.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.check.api.ReadRoutes.FlatRoutes;
import dev.socialgraph.check.api.ReadRoutes.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpMethod;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** {@link FlatRoutes}: routes tried in order, the first match answering with the path variables its pattern set. */
class FlatRoutesTest {

    private static RequestPredicate get(String path) {
        return RequestPredicates.method(HttpMethod.GET).and(RequestPredicates.path(path));
    }

    private final FlatRoutes routes = new FlatRoutes(List.of(
            new Route(get("/users/{id}/following"),
                    r -> ServerResponse.ok().bodyValue("following " + r.pathVariable("id"))),
            new Route(get("/users/{id}/{list}"), r -> ServerResponse.ok().bodyValue("list " + r.pathVariable("list"))),
            new Route(get("/users/{id}/following"), r -> ServerResponse.ok().bodyValue("never: an earlier route matches")),
            new Route(RequestPredicates.path("/users/{id}/following"), r -> ServerResponse.status(405).build())));
    private final WebTestClient client = WebTestClient.bindToRouterFunction(routes).build();

    @Test
    void theFirstMatchingRouteAnswers_withItsPathVariables() {
        client.get().uri("/users/7/following").exchange().expectStatus().isOk()
                .expectBody(String.class).isEqualTo("following 7");
        client.get().uri("/users/7/followers").exchange().expectStatus().isOk()
                .expectBody(String.class).isEqualTo("list followers");
    }

    @Test
    void aPathAloneRoute_takesTheOtherMethods_andNothingMatchesTheRest() {
        client.post().uri("/users/7/following").exchange().expectStatus().isEqualTo(405);
        client.get().uri("/users/7").exchange().expectStatus().isNotFound();
        client.post().uri("/users/7/followers").exchange().expectStatus().isNotFound();
    }

    @Test
    void aVisitorSeesEveryRoute_inOrder() {
        List<RequestPredicate> seen = new ArrayList<>();
        routes.accept(new RouterFunctions.Visitor() {
            @Override
            public void startNested(RequestPredicate predicate) {
            }

            @Override
            public void endNested(RequestPredicate predicate) {
            }

            @Override
            public void route(RequestPredicate predicate,
                              HandlerFunction<?> handlerFunction) {
                seen.add(predicate);
            }

            @Override
            public void resources(Function<ServerRequest, Mono<Resource>> lookupFunction) {
            }

            @Override
            public void attributes(Map<String, Object> attributes) {
            }

            @Override
            public void unknown(RouterFunction<?> routerFunction) {
            }
        });
        assertThat(seen).hasSize(4);
        assertThat(seen.get(3).toString()).isEqualTo("/users/{id}/following");
    }
}
