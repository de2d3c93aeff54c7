package dev.socialgraph.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The decision records ({@code docs/decisions/NNNN-title.md}) against their index ({@code docs/decisions.md}), both
 * ways: every record file is listed once and every listed file exists, numbered from 0001 without a gap, in order,
 * each line naming its record's number and title; every record has a Context, a Decision and Consequences; a record
 * a later one replaced, wholly or partly, is marked so in the index and named by its successor; and every relative
 * link of the index and the records resolves. Written when the one 1,625-line {@code docs/decisions.md} was split into
 * records. Needs no server: it reads the checkout.
 */
class DecisionRecordsTest {

    private static final String INDEX = "docs/decisions.md";
    private static final String RECORDS = "docs/decisions";
    /** A record's file name: four digits, a dash, a kebab-case title. */
    private static final Pattern FILE_NAME = Pattern.compile("(\\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\\.md");
    /** An index line: {@code - [NNNN. Title](decisions/NNNN-title.md): summary}; groups: number, title, file. */
    private static final Pattern INDEX_LINE =
            Pattern.compile("^- \\[(\\d{4})\\. (.+?)]\\(decisions/([^)]+)\\): (.+)$", Pattern.MULTILINE);
    /** A record's first line: {@code # NNNN. Title}. */
    private static final Pattern TITLE = Pattern.compile("\\A# (\\d{4})\\. (.+)\\n");
    /** A record's status line, right under its title. */
    private static final Pattern STATUS = Pattern.compile("^Status: (.+?)(?:\\n\\n|\\z)", Pattern.MULTILINE
            | Pattern.DOTALL);
    /** An inline Markdown link's target. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    private static String index;
    /** Every record file by name, in name order. */
    private static final Map<String, String> records = new LinkedHashMap<>();

    /** One line of the index. */
    private record Entry(String number, String title, String file, String rest) {
    }

    @BeforeAll
    static void read() throws IOException {
        index = Repo.read(Repo.path(INDEX));
        try (Stream<Path> files = Files.list(Repo.path(RECORDS))) {
            files.map(f -> f.getFileName().toString()).sorted()
                    .forEach(name -> records.put(name, Repo.read(Repo.path(RECORDS).resolve(name))));
        }
    }

    private static List<Entry> entries() {
        List<Entry> entries = new ArrayList<>();
        Matcher m = INDEX_LINE.matcher(index);
        while (m.find()) {
            entries.add(new Entry(m.group(1), m.group(2), m.group(3), m.group(4)));
        }
        return entries;
    }

    @Test
    void everyRecordFile_isListedInTheIndex_andEveryListedFileExists() {
        List<String> listed = entries().stream().map(Entry::file).toList();

        assertThat(records.keySet()).as("files in " + RECORDS).allMatch(name -> FILE_NAME.matcher(name).matches(),
                "named NNNN-kebab-title.md");
        assertThat(listed).as("records listed in " + INDEX).doesNotHaveDuplicates()
                .containsExactlyElementsOf(records.keySet());
        assertThat(index.lines().filter(line -> line.startsWith("- ")))
                .as("every list item of " + INDEX + " is a record's line").hasSameSizeAs(listed);
    }

    @Test
    void records_areNumberedFromOneWithoutAGap_andEachIndexLineNamesItsRecordsNumberAndTitle() {
        List<Entry> entries = entries();
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.get(i);
            String expected = String.format("%04d", i + 1);
            assertThat(entry.number()).as(entry.file()).isEqualTo(expected);
            assertThat(entry.file()).as("file of record " + expected).startsWith(expected + "-");
            String record = records.get(entry.file());
            assertThat(record).as(entry.file()).isNotNull();
            Matcher title = TITLE.matcher(record);
            assertThat(title.find()).as(entry.file() + " starts with '# " + expected + ". Title'").isTrue();
            assertThat(title.group(1)).as(entry.file()).isEqualTo(expected);
            assertThat(title.group(2)).as("title of " + entry.file() + " in " + INDEX).isEqualTo(entry.title());
            assertThat(entry.rest()).as("summary of " + entry.file()).isNotBlank();
        }
    }

    @Test
    void everyRecord_hasAStatus_aContext_aDecision_andConsequences() {
        records.forEach((name, text) -> {
            assertThat(STATUS.matcher(text).find()).as(name + " has a 'Status: ' line").isTrue();
            int context = text.indexOf("\n## Context\n");
            int decision = text.indexOf("\n## Decision\n");
            int consequences = text.indexOf("\n## Consequences\n");
            assertThat(context).as(name + ": '## Context'").isPositive();
            assertThat(decision).as(name + ": '## Decision' after Context").isGreaterThan(context);
            assertThat(consequences).as(name + ": '## Consequences' after Decision").isGreaterThan(decision);
            assertThat(text.substring(consequences + "\n## Consequences\n".length())).as(name + ": consequences")
                    .isNotBlank();
        });
    }

    @Test
    void aSupersededRecord_isMarkedInTheIndex_andNamedByTheRecordThatSupersedesIt() {
        for (Entry entry : entries()) {
            Matcher status = STATUS.matcher(records.get(entry.file()));
            assertThat(status.find()).as(entry.file()).isTrue();
            boolean superseded = status.group(1).matches("(?s)(partly )?superseded\\b.*");
            int mark = entry.rest().toLowerCase().indexOf("superseded by");
            assertThat(mark >= 0).as(entry.file() + ": its status says '" + status.group(1).lines().findFirst()
                    .orElse("") + "', so the index line must (not) say 'superseded by'").isEqualTo(superseded);
            if (mark < 0) {
                continue;
            }
            Matcher successors = LINK.matcher(entry.rest().substring(mark));
            int named = 0;
            while (successors.find()) {
                String successor = successors.group(1).substring("decisions/".length());
                assertThat(records.get(successor)).as(successor + ", named as superseding " + entry.file())
                        .isNotNull().contains("](" + entry.file() + ")");
                named++;
            }
            assertThat(named).as(entry.file() + ": the index links the record that supersedes it").isPositive();
        }
    }

    @Test
    void everyRelativeLink_ofTheIndexAndTheRecords_resolves() {
        Map<Path, String> documents = new LinkedHashMap<>();
        documents.put(Repo.path(INDEX), index);
        records.forEach((name, text) -> documents.put(Repo.path(RECORDS).resolve(name), text));
        List<String> broken = new ArrayList<>();
        documents.forEach((file, text) -> {
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.startsWith("#") || target.matches("[a-z][a-z0-9+.-]*:.*")) {
                    continue; // an anchor in the same page, or a URL
                }
                String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                if (!Files.exists(file.getParent().resolve(path).normalize())) {
                    broken.add(Repo.ROOT.relativize(file) + ": " + target);
                }
            }
        });
        assertThat(broken).as("relative links that point at nothing").isEmpty();
    }
}
