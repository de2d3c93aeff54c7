package dev.socialgraph.gateway;

import io.netty.handler.timeout.ReadTimeoutException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.webflux.error.ErrorWebExceptionHandler;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Every error the gateway itself raises becomes problem+json: no route (404), wrong method (405), a service that
 * cannot be reached or whose connection pool (or, for a coalesced check, its instance's queue) is exhausted, or
 * that answers a coalesced batch with what the gateway cannot use (503, {@code Retry-After: 1}), or that does not
 * answer in time (504). Errors a service returns are passed through as they are (they are problem+json already).
 */
@Component
@Order(-2) // before Spring Boot's DefaultErrorWebExceptionHandler (-1)
class GatewayErrors implements ErrorWebExceptionHandler {

    private final ProblemResponses problems;

    GatewayErrors(ProblemResponses problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
        // HttpClientTuning's response timeout; or a coalesced check that waited as long for the calls ahead of it.
        if (hasCause(error, ReadTimeoutException.class) || error instanceof Coalescer.Expired) {
            return problems.write(exchange, HttpStatus.GATEWAY_TIMEOUT, "Gateway Timeout",
                    "the service behind this route did not answer in time", null);
        }
        // Before the TimeoutException case: a pool that found no free connection in time is an overload (503,
        // retry later), not a service that failed to answer. Reactor Netty shades reactor-pool, hence the names.
        // The coalescer's queue is the same kind of wait (CoalescedCheckHandler), and gets the same answer.
        if (hasCauseNamed(error, "PoolAcquireTimeoutException") || hasCauseNamed(error, "PoolAcquirePendingLimitException")
                || error instanceof Coalescer.Overloaded) {
            return problems.write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
                    "too many requests are waiting for the service behind this route", null);
        }
        if (hasCause(error, ConnectException.class) || hasCause(error, java.nio.channels.ClosedChannelException.class)
                || error.getClass().getName().contains("PrematureCloseException")) {
            return problems.write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
                    "the service behind this route cannot be reached", null);
        }
        // A coalesced check's batch answered with what the gateway cannot use (not one result per pair, or over the
        // size its pairs can take): the service failed that call, as a proxied check's 5xx is answered below.
        if (error instanceof FollowPairsClient.UnusableAnswer) {
            return problems.write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
                    "the service behind this route gave an answer the gateway cannot use", null);
        }
        if (hasCause(error, TimeoutException.class)) {
            return problems.write(exchange, HttpStatus.GATEWAY_TIMEOUT, "Gateway Timeout",
                    "the service behind this route did not answer in time", null);
        }
        if (error instanceof ResponseStatusException rse) {
            HttpStatusCode code = rse.getStatusCode();
            HttpStatus status = HttpStatus.resolve(code.value());
            if (status == null) {
                status = HttpStatus.INTERNAL_SERVER_ERROR;
            }
            if (status.is5xxServerError() && status != HttpStatus.SERVICE_UNAVAILABLE && status != HttpStatus.GATEWAY_TIMEOUT) {
                return problems.write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
                        "the service behind this route failed", null);
            }
            String detail = status == HttpStatus.NOT_FOUND ? "no such resource" : rse.getReason();
            return problems.write(exchange, status, status.getReasonPhrase(), detail, null);
        }
        return problems.write(exchange, HttpStatus.SERVICE_UNAVAILABLE, "Service Unavailable",
                "the request could not be completed", null);
    }

    private static boolean hasCauseNamed(Throwable t, String simpleName) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getClass().getSimpleName().equals(simpleName)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
