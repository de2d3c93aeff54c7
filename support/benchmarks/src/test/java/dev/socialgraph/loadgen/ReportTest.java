package dev.socialgraph.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

    @TempDir
    Path dir;

    private static StepResult step(String target, double offered, double achieved, double cpuSeconds, boolean saturated) {
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i * 10L); // 10 µs .. 10 ms
        }
        return new StepResult(target, Workload.CHECK_EXISTING, offered, achieved, 1000, 0, 0, 0, h, 10,
                Map.of("follow-check-service", cpuSeconds), 1.0, 3.5, saturated);
    }

    @Test
    void write_producesTableCsvAndPlot_withRatiosToThePeers() throws Exception {
        List<StepResult> steps = List.of(
                step("fleet", 1000, 1000, 5, false),
                step("fleet", 2000, 1980, 10, false),
                step("fleet", 4000, 2500, 10, true),
                step("redis", 1000, 1000, 2, false),
                step("postgres", 1000, 995, 4, false));
        Report report = new Report(steps, Map.of("commit", "abc1234"));

        report.write(dir);

        String md = Files.readString(dir.resolve("results.md"));
        assertThat(md).contains("- **commit**: abc1234");
        // fleet's sustained step is 2000 offered → 1980 achieved at 1.0 core: 1,980 req/s/core, 0.99× the plan;
        // redis sustained 1000 (→ 1.98×), postgres 995 (→ 1.99×); per core: redis 5,000/s, postgres 2,487.5/s.
        assertThat(md).contains("| check-existing | fleet | 1,980 | 5.00 | 9.90 | 9.99 | 0 | 1.00 | 1,980 | 0.99 | 1.98× | 1.99× | 0.40× | 0.80× |");
        assertThat(md).contains("| check-existing | fleet | 4,000 | 2,500 |");
        assertThat(md).contains("(check-existing.png)");

        List<String> csv = Files.readAllLines(dir.resolve("results.csv"));
        assertThat(csv).hasSize(6);
        assertThat(csv.get(0)).startsWith("workload,target,offered_rps,achieved_rps").endsWith(",cpu_s_follow-check-service");
        assertThat(csv.get(3)).startsWith("check-existing,fleet,4000.0,2500.0,").contains(",true,");

        byte[] png = Files.readAllBytes(dir.resolve("check-existing.png"));
        assertThat(png).startsWith(0x89, 'P', 'N', 'G');
    }

    @Test
    void best_allStepsSaturated_takesTheHighestAchieved() {
        Report report = new Report(List.of(step("gateway", 500, 300, 5, true), step("gateway", 1000, 350, 5, true)),
                Map.of());

        assertThat(report.best(Workload.CHECK_EXISTING, "gateway")).get()
                .extracting(StepResult::achievedRate).isEqualTo(350.0);
    }
}
