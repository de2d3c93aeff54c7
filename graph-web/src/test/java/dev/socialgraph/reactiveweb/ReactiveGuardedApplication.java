package dev.socialgraph.reactiveweb;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.web.BadParameterException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * A minimal reactive service (WebFlux functional routes on Reactor Netty) behind graph-web's reactive guard: one
 * read, one endpoint that counts the bodies it received, and endpoints that fail in each way the shared problem
 * mapping answers. Outside {@code dev.socialgraph.web} so that the servlet test application does not scan it.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ReactiveGuardedApplication {

    /** Bodies that reached the application. */
    static final AtomicInteger RECEIVED = new AtomicInteger();

    @Bean
    RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET("/internal/v1/hello", r -> ServerResponse.ok().contentType(MediaType.APPLICATION_JSON)
                        .bodyValue("{\"hello\":\"world\"}"))
                .POST("/internal/v1/echo", r -> DataBufferUtils.join(r.bodyToFlux(
                                org.springframework.core.io.buffer.DataBuffer.class))
                        .map(b -> {
                            int n = b.readableByteCount();
                            DataBufferUtils.release(b);
                            return n;
                        })
                        .defaultIfEmpty(0)
                        .flatMap(n -> {
                            RECEIVED.incrementAndGet();
                            return ServerResponse.ok().bodyValue("{\"bytes\":" + n + "}");
                        }))
                .POST("/internal/v1/decode", r -> r.bodyToMono(String.class)
                        .flatMap(body -> ServerResponse.ok().bodyValue("{\"chars\":" + body.length() + "}")))
                .GET("/internal/v1/users/{id}", r -> {
                    int limit = Integer.parseInt(r.queryParam("limit").orElse("10"));
                    if (limit > 100) {
                        throw new BadParameterException("limit", "limit: must be at most 100, was " + limit);
                    }
                    return ServerResponse.ok().bodyValue("{\"id\":" + UserIds.parse(r.pathVariable("id"), "id") + "}");
                })
                .GET("/internal/v1/down", r -> {
                    throw new ShardUnavailableException("following database graph_following_0 is unavailable",
                            new SQLException("Connection refused", "08001"));
                })
                .GET("/internal/v1/bug", r -> {
                    throw new IllegalStateException("secret internals");
                })
                .GET("/internal/v1/busy", r -> {
                    // What a bounded scheduler throws when its queue of blocking work is full.
                    throw new java.util.concurrent.RejectedExecutionException("queue of blocking reads is full");
                })
                .build();
    }
}
