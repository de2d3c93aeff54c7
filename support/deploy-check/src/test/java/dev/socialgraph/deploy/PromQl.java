package dev.socialgraph.deploy;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The metric names a PromQL expression reads, found lexically (enough for the expressions of deploy/). */
final class PromQl {

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING =
            Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*(\\s*\\()?");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "bool", "inf", "nan");

    private PromQl() {
    }

    /**
     * @param expression a PromQL expression
     * @return the metric names it selects, e.g. {@code graph_check_latency_seconds_bucket}
     */
    static Set<String> metricNames(String expression) {
        String text = STRING.matcher(expression).replaceAll(" ");
        text = MATCHERS.matcher(text).replaceAll(" ");
        text = RANGE.matcher(text).replaceAll(" ");
        text = GROUPING.matcher(text).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(text);
        while (m.find()) {
            boolean function = m.group(1) != null;
            boolean partOfNumber = m.start() > 0 && Character.isDigit(text.charAt(m.start() - 1));
            String name = m.group().replaceAll("\\s*\\($", "");
            if (!function && !partOfNumber && !KEYWORDS.contains(name.toLowerCase())) {
                names.add(name);
            }
        }
        return names;
    }
}
