package dev.socialgraph.store.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InactiveSetTest {

    @Test
    void matchesAHashSet_underRandomAddsAndRemoves_acrossRebuilds() {
        InactiveSet set = new InactiveSet();
        Set<Long> model = new HashSet<>();
        Random random = new Random(7);
        for (int step = 0; step < 200_000; step++) {
            long id = 1 + random.nextInt(5_000); // few distinct ids: many removed slots, many rebuilds
            if (random.nextInt(3) == 0) {
                assertThat(set.remove(id)).isEqualTo(model.remove(id));
            } else {
                assertThat(set.add(id)).isEqualTo(model.add(id));
            }
            long probe = 1 + random.nextInt(6_000);
            assertThat(set.contains(probe)).as("contains %d at step %d", probe, step).isEqualTo(model.contains(probe));
        }
        assertThat(set.size()).isEqualTo(model.size());
        assertThat(set.isEmpty()).isEqualTo(model.isEmpty());
    }

    @Test
    void neverHoldsNonPositiveIds() {
        InactiveSet set = new InactiveSet();
        assertThat(set.contains(0)).isFalse();
        assertThat(set.contains(-1)).isFalse(); // the removed marker is not an id
        assertThat(set.remove(-1)).isFalse();
        assertThatThrownBy(() -> set.add(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
        assertThat(set.isEmpty()).isTrue();
    }

    @Test
    void readers_seeEveryIdThatStaysIn_whileTheWriterAddsRemovesAndRebuilds() throws InterruptedException {
        InactiveSet set = new InactiveSet();
        for (long id = 1; id <= 1_000; id++) {
            set.add(id); // these stay for the whole test
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong misses = new AtomicLong();
        AtomicLong lookups = new AtomicLong();
        Thread reader = new Thread(() -> {
            Random random = new Random(3);
            while (!stop.get()) {
                long id = 1 + random.nextInt(1_000);
                if (!set.contains(id)) {
                    misses.incrementAndGet();
                }
                lookups.incrementAndGet();
            }
        });
        reader.start();
        for (long id = 1_001; id <= 200_000; id++) {
            set.add(id);
            if (id % 3 == 0) {
                set.remove(id - 1);
            }
        }
        while (lookups.get() < 10_000) {
            Thread.onSpinWait(); // let the reader do some work even on a loaded machine
        }
        stop.set(true);
        reader.join();
        assertThat(misses).hasValue(0);
    }
}
