package dev.socialgraph.reconciler.scan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FullScanTest {

    @Test
    void containsEdge_matchesIdAndTimeExactly() {
        long[] ids = {5, 2, 9, 1};
        long[] times = {10, 20, 20, 30};

        assertThat(FullScan.containsEdge(ids, times, 9, 20)).isTrue();
        assertThat(FullScan.containsEdge(ids, times, 2, 20)).isTrue();
        assertThat(FullScan.containsEdge(ids, times, 9, 30)).isFalse();
        assertThat(FullScan.containsEdge(ids, times, 3, 20)).isFalse();
        assertThat(FullScan.containsEdge(new long[0], new long[0], 1, 1)).isFalse();
    }
}
