package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;

/**
 * {@link EventLoops} on a real Reactor Netty server (the exchange's connection's loop, and a task given to it from the
 * loop's own thread running after the handler, on that thread) and on a mock exchange (none: at once, on the caller's
 * thread).
 */
class EventLoopsTest {

    @Test
    void aRequestOfTheServer_hasItsConnectionsLoop_whichRunsAGivenTaskAfterTheHandler_onTheLoop() throws Exception {
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Boolean> handlerOnItsLoop = new CompletableFuture<>();
        CompletableFuture<Boolean> taskOnTheLoop = new CompletableFuture<>();
        HttpHandler handler = WebHttpHandlerBuilder.webHandler(exchange -> {
            EventLoop loop = EventLoops.of(exchange);
            handlerOnItsLoop.complete(loop != null && loop.inEventLoop());
            EventLoops.executor(exchange).execute(() -> {
                order.add("task");
                taskOnTheLoop.complete(loop != null && loop.inEventLoop());
            });
            order.add("handler");
            return exchange.getResponse().setComplete();
        }).build();
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
                .handle(new ReactorHttpHandlerAdapter(handler)).bindNow();
        try {
            Integer status = HttpClient.create().get().uri("http://127.0.0.1:" + server.port() + "/")
                    .responseSingle((response, body) -> Mono.just(response.status().code()))
                    .block(Duration.ofSeconds(10));
            assertThat(status).isEqualTo(200);
            assertThat(handlerOnItsLoop.get(10, TimeUnit.SECONDS)).as("the handler runs on the exchange's loop")
                    .isTrue();
            assertThat(taskOnTheLoop.get(10, TimeUnit.SECONDS)).as("the task runs on the same loop").isTrue();
            assertThat(order).containsExactly("handler", "task");
        } finally {
            server.disposeNow();
        }
    }

    @Test
    void aMockExchange_hasNoLoop_andItsExecutorRunsATaskAtOnce() {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/v1/users/1/followers"));
        assertThat(EventLoops.of(exchange)).isNull();
        List<String> ran = new ArrayList<>();
        Executor executor = EventLoops.executor(exchange);
        executor.execute(() -> ran.add("task"));
        assertThat(ran).containsExactly("task");
    }
}
