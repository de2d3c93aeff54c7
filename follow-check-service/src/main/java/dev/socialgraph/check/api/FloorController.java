package dev.socialgraph.check.api;

import java.nio.charset.StandardCharsets;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /internal/v1/hello}: a constant pre-encoded body through the same server, filters and converters as the
 * follow check, and nothing else. The fleet benchmark measures it in the same run as the check: the ratio of the
 * two is what the check's own work costs over this stack's floor. Reveals nothing and touches no store.
 */
@RestController
class FloorController {

    private static final byte[] HELLO = "{\"hello\":\"world\"}".getBytes(StandardCharsets.US_ASCII);

    @GetMapping(path = "/internal/v1/hello", produces = MediaType.APPLICATION_JSON_VALUE)
    byte[] hello() {
        return HELLO;
    }
}
