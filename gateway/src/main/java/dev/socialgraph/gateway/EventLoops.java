package dev.socialgraph.gateway;

import io.netty.channel.EventLoop;
import java.util.concurrent.Executor;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import reactor.netty.Connection;

/** The Netty event loop a request arrived on: its client connection's. */
final class EventLoops {

    private static final Executor DIRECT = Runnable::run;

    private EventLoops() {
    }

    /**
     * The event loop of the client connection behind {@code exchange}.
     *
     * @param exchange a request of the gateway's server
     * @return its connection's event loop, or {@code null} when the request is not backed by a Reactor Netty
     *         connection (a mock exchange of a test)
     */
    static EventLoop of(ServerWebExchange exchange) {
        Object nativeRequest;
        try {
            nativeRequest = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
        } catch (IllegalArgumentException | IllegalStateException e) {
            return null; // a request of no known server (IllegalArgument), or a mock (IllegalState: it has none)
        }
        return nativeRequest instanceof Connection connection ? connection.channel().eventLoop() : null;
    }

    /**
     * Where work for {@code exchange} runs after what its event loop is doing now: the loop itself (a task given to a
     * Netty event loop from its own thread runs once the loop has handled the I/O it is handling, every ready
     * connection read), or the caller's own thread when there is no loop ({@link #of}).
     *
     * @param exchange a request of the gateway's server
     * @return the executor; never {@code null}
     */
    static Executor executor(ServerWebExchange exchange) {
        EventLoop loop = of(exchange);
        return loop != null ? loop : DIRECT;
    }
}
