package floor;

import java.nio.charset.StandardCharsets;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@SpringBootApplication
@RestController
public class Floor {
    static final byte[] HELLO = "{\"hello\":\"world\"}".getBytes(StandardCharsets.US_ASCII);
    static final byte[] YES = "{\"following\":true}".getBytes(StandardCharsets.US_ASCII);

    @GetMapping(path = "/internal/v1/hello", produces = MediaType.APPLICATION_JSON_VALUE)
    byte[] hello() {
        return HELLO;
    }

    @GetMapping(path = "/internal/v1/users/{id}/following/{targetId}", produces = MediaType.APPLICATION_JSON_VALUE)
    byte[] check(@PathVariable("id") String id, @PathVariable("targetId") String targetId) {
        return Long.parseLong(id) != Long.parseLong(targetId) ? YES : HELLO;
    }

    public static void main(String[] args) {
        SpringApplication.run(Floor.class, args);
    }
}
