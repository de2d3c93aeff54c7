package dev.socialgraph.tools.importer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.relation.Relation;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ImportSummaryTest {

    private static ImportSummary summary() {
        EnumMap<Relation, ImportSummary.RelationCounts> relations = new EnumMap<>(Relation.class);
        relations.put(Relation.FOLLOW, new ImportSummary.RelationCounts(1_200, 3, 4, true, 1_190, 900, 12, 800, 11, 1, 2));
        relations.put(Relation.BLOCK, new ImportSummary.RelationCounts(7, 0, 1, true, 6, 5, 5, 4, 4, 0, 0));
        relations.put(Relation.MUTE, ImportSummary.RelationCounts.keptAsStored());
        Map<String, Duration> phases = new LinkedHashMap<>();
        phases.put("read", Duration.ofMillis(500));
        phases.put("sort", Duration.ofMillis(500));
        return new ImportSummary(relations, 3, 1_000, phases, Optional.empty());
    }

    @Test
    void accessorsWithoutARelation_areTheFollows() {
        ImportSummary summary = summary();
        assertThat(summary.edgesRead()).isEqualTo(1_200);
        assertThat(summary.selfLoopsSkipped()).isEqualTo(3);
        assertThat(summary.duplicatesSkipped()).isEqualTo(4);
        assertThat(summary.edgesImported()).isEqualTo(1_190);
        assertThat(summary.followingRows()).isEqualTo(900);
        assertThat(summary.followingChanged()).isEqualTo(12);
        assertThat(summary.followerRows()).isEqualTo(800);
        assertThat(summary.followerChanged()).isEqualTo(11);
        assertThat(summary.celebrities()).isEqualTo(1);
        assertThat(summary.celebrityPages()).isEqualTo(2);
        assertThat(summary.counts(Relation.BLOCK).edgesImported()).isEqualTo(6);
        // Every relation's imported edges over the 1 s of the phases.
        assertThat(summary.edgesPerSecond()).isEqualTo(1_196.0);
    }

    @Test
    void report_hasAColumnPerRelation_keptForARelationLeftAsStored_andNoReverseSideForMutes() {
        String report = summary().report();
        assertThat(report).contains(String.format("%-20s %14s %14s %14s%n", "relation", "follow", "block", "mute"))
                .contains(String.format("%-20s %14s %14s %14s%n", "lines read", "1,200", "7", "0"))
                .contains(String.format("%-20s %14s %14s %14s%n", "forbidden by block", "3", "-", "-"))
                .contains(String.format("%-20s %14s %14s %14s%n", "edges imported", "1,190", "6", "kept"))
                .contains(String.format("%-20s %14s %14s %14s%n", "target rows", "800", "4", "-"))
                .contains("users                1,000")
                .contains("total                1.00 s, 1,196 edges/s");
    }

    @Test
    void aMissingRelation_isRefused() {
        assertThatThrownBy(() -> new ImportSummary(Map.of(), 0, 0, Map.of(), Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("every relation");
    }
}
