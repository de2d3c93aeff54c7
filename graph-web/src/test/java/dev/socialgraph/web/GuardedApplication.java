package dev.socialgraph.web;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.shard.ShardUnavailableException;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * A minimal servlet service behind the guard, with the shared error mapping: one read, one endpoint that counts the
 * bodies it received, and endpoints that fail in each way {@link ProblemAdvice} maps.
 */
@SpringBootApplication
class GuardedApplication {

    @RestController
    static class Endpoints {

        /** Bodies that reached the application. */
        static final AtomicInteger RECEIVED = new AtomicInteger();

        @GetMapping("/internal/v1/hello")
        String hello() {
            return "{\"hello\":\"world\"}";
        }

        @PostMapping("/internal/v1/echo")
        String echo(@RequestBody byte[] body) {
            RECEIVED.incrementAndGet();
            return "{\"bytes\":" + body.length + "}";
        }

        @GetMapping("/internal/v1/users/{id}")
        String user(@PathVariable String id, @RequestParam(defaultValue = "10") int limit) {
            if (limit > 100) {
                throw new BadParameterException("limit", "limit: must be at most 100, was " + limit);
            }
            return "{\"id\":" + UserIds.parse(id, "id") + "}";
        }

        @GetMapping("/internal/v1/down")
        String down() {
            throw new ShardUnavailableException("following database graph_following_0 is unavailable",
                    new SQLException("Connection refused", "08001"));
        }

        @GetMapping("/internal/v1/bug")
        String bug() {
            throw new IllegalStateException("secret internals");
        }

        @GetMapping("/internal/v1/teapot")
        String teapot() {
            throw new TeapotException();
        }

        @PostMapping("/internal/v1/ranges")
        String range(@Valid @RequestBody Range range) {
            return "{\"first\":" + range.first() + "}";
        }
    }

    record Range(@NotNull @Min(0) Integer first, @NotNull @Min(0) Integer last) {
    }

    static final class TeapotException extends RuntimeException {
    }

    /** A service's advice: the shared mapping plus one exception of its own. */
    @RestControllerAdvice
    static class Problems extends ProblemAdvice {

        /** 400s the shared mapping reported through {@link #rejected}. */
        static final AtomicInteger REJECTED = new AtomicInteger();

        @Override
        protected void rejected(Exception e) {
            REJECTED.incrementAndGet();
        }

        @ExceptionHandler(TeapotException.class)
        ProblemDetail teapot(TeapotException e) {
            return problem(HttpStatus.I_AM_A_TEAPOT, "short and stout", "kettle");
        }
    }
}
