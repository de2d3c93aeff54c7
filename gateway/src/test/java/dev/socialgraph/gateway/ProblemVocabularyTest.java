package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.localruntime.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The problem types are listed in three places that must agree: graph-common's {@link ProblemType} (what the code
 * answers), {@code docs/problems.md} (what each means, one section per type) and the OpenAPI document's
 * {@code Problem.type} enum (what clients are told to expect). Same types, same order, and each section gives its
 * type's URI and status.
 */
class ProblemVocabularyTest {

    private static final Path PROBLEMS = RepositoryRoot.find().resolve("docs/problems.md");

    @Test
    void problemsMd_hasOneSectionPerType_inTheEnumsOrder_withItsUriAndStatus() throws Exception {
        Map<String, String> sections = sections(Files.readString(PROBLEMS));

        assertThat(sections.keySet()).containsExactlyElementsOf(
                Arrays.stream(ProblemType.values()).map(ProblemType::slug).toList());
        for (ProblemType type : ProblemType.values()) {
            assertThat(sections.get(type.slug())).as(type.slug())
                    .contains("`" + type.uriText() + "`")
                    .contains("**" + type.status() + "**");
        }
    }

    @Test
    void openApiProblemSchema_listsTheEnumsUris_inOrder() throws Exception {
        Map<String, Object> document = new Yaml().load(Files.readString(OpenApiDocumentTest.DOCUMENT));

        Object types = path(document, "components", "schemas", "Problem", "properties", "type", "enum");

        assertThat(types).asInstanceOf(InstanceOfAssertFactories.LIST).containsExactlyElementsOf(
                Arrays.stream(ProblemType.values()).map(ProblemType::uriText).toList());
    }

    @Test
    void everyProblemExampleOfTheDocument_isATypeOfTheVocabulary_withItsStatus() throws Exception {
        Map<String, Object> document = new Yaml().load(Files.readString(OpenApiDocumentTest.DOCUMENT));
        List<Map<?, ?>> examples = new ArrayList<>();
        collectProblemExamples(document, examples);

        assertThat(examples).hasSizeGreaterThan(10);
        for (Map<?, ?> example : examples) {
            ProblemType type = ProblemType.fromUri((String) example.get("type")).orElseThrow(
                    () -> new AssertionError("unknown problem type in example " + example));
            assertThat(example.get("status")).as(example.toString()).isEqualTo(type.status());
            assertThat(example.get("title")).as(example.toString()).isEqualTo(type.title());
        }
    }

    /** {@code ## slug} heading → the section's text up to the next heading. */
    private static Map<String, String> sections(String markdown) {
        Map<String, String> sections = new LinkedHashMap<>();
        String current = null;
        StringBuilder text = new StringBuilder();
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("## ")) {
                if (current != null) {
                    sections.put(current, text.toString());
                }
                current = line.substring(3).strip();
                text.setLength(0);
            } else if (current != null) {
                text.append(line).append('\n');
            }
        }
        if (current != null) {
            sections.put(current, text.toString());
        }
        return sections;
    }

    /** Every {@code example} (or item of {@code examples}) that has a problem's {@code type}. */
    private static void collectProblemExamples(Object node, List<Map<?, ?>> out) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> {
                if ("example".equals(key) && value instanceof Map<?, ?> example && example.containsKey("type")) {
                    out.add(example);
                } else if ("examples".equals(key) && value instanceof List<?> list) {
                    for (Object item : list) {
                        if (item instanceof Map<?, ?> example && example.containsKey("type")
                                && example.containsKey("status")) {
                            out.add(example);
                        }
                    }
                } else {
                    collectProblemExamples(value, out);
                }
            });
        } else if (node instanceof List<?> list) {
            list.forEach(e -> collectProblemExamples(e, out));
        }
    }

    private static Object path(Map<String, Object> document, String... keys) {
        Object node = document;
        for (String key : keys) {
            node = ((Map<?, ?>) node).get(key);
        }
        return node;
    }
}
