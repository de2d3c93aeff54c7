package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.InternalApi;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The internal API table of the root README ("The services") against graph-wire's {@link InternalApi}, both ways, as
 * {@code PublicApiDocumentTest} holds the public API against {@code docs/openapi.yaml}: every row is exactly one
 * endpoint, {@code `METHOD /path/{var}`}, that the service it names serves ({@link InternalApi#CHECK_SERVICE},
 * {@link InternalApi#WRITE_SERVICE}, {@link InternalApi#RECONCILER}), with the same method and template; and every
 * endpoint a service serves has its row. The services' own tests hold their routes against the same lists, so the
 * README cannot drift from what runs. Written after the README was found to say every service serves
 * {@code /internal/**} (the reconciler serves {@code /admin/**}) and to miss the write service's
 * {@code /internal/v1/admin/**} routes. Needs no server: it reads the checkout.
 */
class ReadmeInternalApiTest {

    private static final String README = "README.md";
    private static final String SECTION = "## The services";
    /** The table's header row: its first two cells. */
    private static final Pattern HEADER = Pattern.compile("^\\| endpoint \\| service \\|.*$", Pattern.MULTILINE);
    /** A row's first cell: exactly one endpoint. */
    private static final Pattern ENDPOINT = Pattern.compile("`(GET|POST|PUT|DELETE) (/\\S+)`");

    /** The services by the name their rows give in the service column, with what each serves. */
    private static final Map<String, List<Endpoint>> SERVED = new LinkedHashMap<>();

    static {
        SERVED.put("check", InternalApi.CHECK_SERVICE);
        SERVED.put("write", InternalApi.WRITE_SERVICE);
        SERVED.put("reconciler", InternalApi.RECONCILER);
    }

    /** One row of the table: the endpoint cell as written and the service it names. */
    private record Row(String endpoint, String service, String line) {
    }

    private static List<Row> rows;

    @BeforeAll
    static void read() {
        String readme = Repo.read(Repo.path(README));
        int start = readme.indexOf("\n" + SECTION + "\n");
        assertThat(start).as(README + " has a section '" + SECTION + "'").isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        String section = readme.substring(start, end < 0 ? readme.length() : end);
        Matcher header = HEADER.matcher(section);
        assertThat(header.find()).as("'" + SECTION + "' has a table starting '| endpoint | service |'").isTrue();
        rows = new ArrayList<>();
        List<String> lines = section.substring(header.end() + 1).lines().skip(1).toList(); // after the |---| line
        for (String line : lines) {
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.split("\\|", -1);
            assertThat(cells.length).as("row: " + line).isGreaterThan(3);
            rows.add(new Row(cells[1].trim(), cells[2].trim(), line));
        }
        assertThat(rows).as("rows of the internal API table").isNotEmpty();
    }

    private static String route(Endpoint endpoint) {
        return endpoint.method() + " " + endpoint.template();
    }

    /** {@code METHOD /path} of a row, or an assertion error naming a row that is not exactly one endpoint. */
    private static String route(Row row) {
        Matcher m = ENDPOINT.matcher(row.endpoint());
        assertThat(m.matches()).as("the first cell is exactly one `METHOD /path` (one endpoint per row): " + row.line())
                .isTrue();
        return m.group(1) + " " + m.group(2);
    }

    private static Set<String> documented() {
        Set<String> routes = new TreeSet<>();
        rows.forEach(row -> assertThat(routes.add(route(row))).as("documented once: " + row.line()).isTrue());
        return routes;
    }

    private static Set<String> served() {
        Set<String> routes = new TreeSet<>();
        SERVED.values().forEach(list -> list.forEach(e -> routes.add(route(e))));
        return routes;
    }

    @Test
    void everyDocumentedRoute_isServedByAService() {
        Set<String> notServed = new TreeSet<>(documented());
        notServed.removeAll(served());

        assertThat(notServed).as("routes in " + README + " that no service serves (InternalApi)").isEmpty();
    }

    @Test
    void everyServedRoute_isDocumented() {
        Set<String> undocumented = new TreeSet<>(served());
        undocumented.removeAll(documented());

        assertThat(undocumented).as("routes InternalApi lists that the table in " + README + " omits").isEmpty();
    }

    @Test
    void eachRow_namesTheServiceThatServesIt() {
        for (Row row : rows) {
            String route = route(row);
            String service = row.service().split("[\\s(]", 2)[0];
            assertThat(SERVED).as("service column of " + row.line()).containsKey(service);
            assertThat(SERVED.get(service).stream().map(ReadmeInternalApiTest::route))
                    .as(route + " is served by " + service).contains(route);
        }
    }
}
