package floor;

import java.nio.charset.StandardCharsets;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

@SpringBootApplication
public class Floor {
    static final byte[] HELLO = "{\"hello\":\"world\"}".getBytes(StandardCharsets.US_ASCII);
    static final byte[] YES = "{\"following\":true}".getBytes(StandardCharsets.US_ASCII);

    @Bean
    RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET("/internal/v1/hello", r -> ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(HELLO))
                .GET("/internal/v1/users/{id}/following/{targetId}", r -> {
                    long a = Long.parseLong(r.pathVariable("id"));
                    long b = Long.parseLong(r.pathVariable("targetId"));
                    return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(a != b ? YES : HELLO);
                })
                .build();
    }

    public static void main(String[] args) {
        SpringApplication.run(Floor.class, args);
    }
}
