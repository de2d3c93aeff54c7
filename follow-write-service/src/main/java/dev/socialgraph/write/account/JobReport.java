package dev.socialgraph.write.account;

import dev.socialgraph.common.relation.Relation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A job's counters, stored as JSON in {@code account_jobs.report} after every batch, so a resumed job goes on
 * counting where the killed one stopped: edges walked per relation and direction ({@code following}: X's own rows;
 * {@code followers}: rows of others naming X), count exclusions added and removed, rows changed on other users' sides,
 * rows of X's own deleted, and, once done, the job's milliseconds. The counters of changes are exact for a job that
 * ran uninterrupted; after a crash they lack the changes of the one batch that was running (its redo finds them done
 * and changes nothing), while the edge counters and {@code done} are exact. Not thread-safe (one worker per job).
 */
final class JobReport {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String[] DIRECTIONS = {"following", "followers"};

    private final long[][] edges = new long[Relation.values().length][2];
    private long exclusionsAdded;
    private long exclusionsRemoved;
    private long rowsChanged;
    private long rowsDeleted;

    /** The counters of {@code json} (as {@link #toJson} wrote them), or zeros for {@code null}. */
    static JobReport parse(String json) {
        JobReport report = new JobReport();
        if (json == null || json.isBlank()) {
            return report;
        }
        JsonNode root = JSON.readTree(json);
        JsonNode edges = root.path("edges");
        for (Relation relation : Relation.values()) {
            for (int d = 0; d < 2; d++) {
                report.edges[relation.code()][d] = edges.path(relation.wireName()).path(DIRECTIONS[d]).asLong(0);
            }
        }
        report.exclusionsAdded = root.path("exclusionsAdded").asLong(0);
        report.exclusionsRemoved = root.path("exclusionsRemoved").asLong(0);
        report.rowsChanged = root.path("rowsChanged").asLong(0);
        report.rowsDeleted = root.path("rowsDeleted").asLong(0);
        return report;
    }

    void edge(Relation relation, boolean followers) {
        edges[relation.code()][followers ? 1 : 0]++;
    }

    void exclusionAdded() {
        exclusionsAdded++;
    }

    void exclusionRemoved() {
        exclusionsRemoved++;
    }

    void rowChanged() {
        rowsChanged++;
    }

    void rowsDeleted(long rows) {
        rowsDeleted += rows;
    }

    long exclusionsAdded() {
        return exclusionsAdded;
    }

    long exclusionsRemoved() {
        return exclusionsRemoved;
    }

    /**
     * The JSON of the counters.
     *
     * @param millis the job's duration in ms, or a negative number while it runs (then left out)
     */
    String toJson(long millis) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode byRelation = root.putObject("edges");
        for (Relation relation : Relation.values()) {
            ObjectNode directions = byRelation.putObject(relation.wireName());
            for (int d = 0; d < 2; d++) {
                directions.put(DIRECTIONS[d], edges[relation.code()][d]);
            }
        }
        root.put("exclusionsAdded", exclusionsAdded);
        root.put("exclusionsRemoved", exclusionsRemoved);
        root.put("rowsChanged", rowsChanged);
        root.put("rowsDeleted", rowsDeleted);
        if (millis >= 0) {
            root.put("millis", millis);
        }
        return JSON.writeValueAsString(root);
    }
}
