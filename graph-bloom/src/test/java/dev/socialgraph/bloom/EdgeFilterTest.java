package dev.socialgraph.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EdgeFilterTest {

    @Test
    void put_thenMightContain_hasNoFalseNegative_andAboutTheTargetFpp() {
        EdgeFilter filter = EdgeFilter.create(20_000, 0.001);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            filter.put(random.nextLong(1, 1L << 40), random.nextLong(1, 1L << 40));
        }
        random = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            assertThat(filter.mightContain(random.nextLong(1, 1L << 40), random.nextLong(1, 1L << 40))).isTrue();
        }
        int falsePositives = 0;
        for (int i = 0; i < 100_000; i++) {
            falsePositives += filter.mightContain(-1 - i, 5) ? 1 : 0;
        }
        assertThat(falsePositives).isLessThan(300); // 0.1 % of 100,000 = 100 expected
    }

    @Test
    void mightContain_isDirected() {
        EdgeFilter filter = EdgeFilter.create(1000, 0.001);
        filter.put(1, 2);
        assertThat(filter.mightContain(1, 2)).isTrue();
        assertThat(filter.mightContain(2, 1)).isFalse();
    }

    @Test
    void expectedEdges_isEdgesTimesGrowth_butAtLeastTheMinimum() {
        assertThat(EdgeFilter.expectedEdges(1000, 1.5, 10)).isEqualTo(1500);
        assertThat(EdgeFilter.expectedEdges(0, 1.5, 10)).isEqualTo(10);
        assertThatThrownBy(() -> EdgeFilter.expectedEdges(1, 0.5, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EdgeFilter.create(0, 0.001)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EdgeFilter.create(10, 1.0)).isInstanceOf(IllegalArgumentException.class);
    }
}
