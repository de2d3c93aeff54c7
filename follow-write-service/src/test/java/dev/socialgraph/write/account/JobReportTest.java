package dev.socialgraph.write.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.relation.Relation;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class JobReportTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void aResumedReport_goesOnCountingFromTheStoredCounters() {
        JobReport report = new JobReport();
        report.edge(Relation.FOLLOW, false);
        report.edge(Relation.FOLLOW, true);
        report.edge(Relation.BLOCK, true);
        report.exclusionAdded();
        report.exclusionRemoved();
        report.rowChanged();
        report.rowsDeleted(4);

        JobReport resumed = JobReport.parse(report.toJson(-1));
        resumed.edge(Relation.FOLLOW, true);
        resumed.exclusionAdded();
        JsonNode json = JSON.readTree(resumed.toJson(1500));

        assertThat(json.get("edges").get("follow").get("following").asLong()).isEqualTo(1);
        assertThat(json.get("edges").get("follow").get("followers").asLong()).isEqualTo(2);
        assertThat(json.get("edges").get("block").get("followers").asLong()).isEqualTo(1);
        assertThat(json.get("edges").get("mute").get("followers").asLong()).isZero();
        assertThat(json.get("exclusionsAdded").asLong()).isEqualTo(2);
        assertThat(json.get("exclusionsRemoved").asLong()).isEqualTo(1);
        assertThat(json.get("rowsChanged").asLong()).isEqualTo(1);
        assertThat(json.get("rowsDeleted").asLong()).isEqualTo(4);
        assertThat(json.get("millis").asLong()).isEqualTo(1500);
    }

    @Test
    void aRunningReport_hasNoMillis_andNullParsesAsZeros() {
        assertThat(JSON.readTree(JobReport.parse(null).toJson(-1)).has("millis")).isFalse();
        assertThat(JobReport.parse(null).exclusionsAdded()).isZero();
    }
}
