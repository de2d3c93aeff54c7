package dev.socialgraph.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * {@link PublicApi} against {@code docs/openapi.yaml}, both ways: every documented operation is a descriptor with the
 * operation's {@code operationId} as its name, its method and path, and exactly the header and query parameters the
 * document lists for it; and every descriptor is documented. The gateway's routes are registered from the descriptors
 * (its {@code OpenApiDocumentTest} holds the routes against the document), so neither can drift from the other.
 */
class PublicApiDocumentTest {

    private static Map<String, Object> document;

    @BeforeAll
    static void read() throws Exception {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("docs/openapi.yaml"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("docs/openapi.yaml above " + Path.of("").toAbsolutePath()).isNotNull();
        document = new Yaml().load(Files.readString(dir.resolve("docs/openapi.yaml")));
    }

    /** One documented operation: method, path, and its header and query parameters by name. */
    private record Operation(String name, Method method, String path, Set<String> headers, Set<String> query) {
    }

    @SuppressWarnings("unchecked")
    private static List<Operation> documented() {
        Map<String, Object> parameters = (Map<String, Object>) ((Map<String, Object>) document.get("components"))
                .get("parameters");
        List<Operation> operations = new ArrayList<>();
        Map<String, Object> paths = (Map<String, Object>) document.get("paths");
        paths.forEach((path, item) -> {
            Map<String, Object> methods = (Map<String, Object>) item;
            List<Object> shared = (List<Object>) methods.getOrDefault("parameters", List.of());
            methods.forEach((key, value) -> {
                if (key.equals("parameters") || !(value instanceof Map)) {
                    return;
                }
                Map<String, Object> op = (Map<String, Object>) value;
                Set<String> headers = new TreeSet<>();
                Set<String> query = new TreeSet<>();
                List<Object> all = new ArrayList<>(shared);
                all.addAll((List<Object>) op.getOrDefault("parameters", List.of()));
                for (Object p : all) {
                    Map<String, Object> parameter = (Map<String, Object>) p;
                    if (parameter.get("$ref") instanceof String ref) {
                        parameter = (Map<String, Object>) parameters.get(ref.substring(ref.lastIndexOf('/') + 1));
                    }
                    switch (String.valueOf(parameter.get("in"))) {
                        case "header" -> headers.add((String) parameter.get("name"));
                        case "query" -> query.add((String) parameter.get("name"));
                        default -> { }
                    }
                }
                operations.add(new Operation((String) op.get("operationId"),
                        Method.valueOf(key.toUpperCase(Locale.ROOT)), path, headers, query));
            });
        });
        return operations;
    }

    private static Operation described(Endpoint e) {
        return new Operation(e.name(), e.method(), e.template(), new TreeSet<>(e.headers()),
                new TreeSet<>(e.queryParameters()));
    }

    @Test
    void everyDocumentedOperation_isADescriptor_andEveryDescriptorIsDocumented() {
        Map<String, Operation> fromDocument = new LinkedHashMap<>();
        documented().forEach(op -> fromDocument.put(op.name(), op));
        Map<String, Operation> fromDescriptors = new LinkedHashMap<>();
        PublicApi.ALL.forEach(e -> fromDescriptors.put(e.name(), described(e)));

        assertThat(fromDescriptors.keySet()).containsExactlyInAnyOrderElementsOf(fromDocument.keySet());
        fromDocument.forEach((name, op) -> assertThat(fromDescriptors.get(name)).as(name).isEqualTo(op));
    }
}
