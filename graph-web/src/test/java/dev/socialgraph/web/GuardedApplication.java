package dev.socialgraph.web;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** A minimal servlet service behind the guard: one read and one endpoint that counts the bodies it received. */
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
    }
}
