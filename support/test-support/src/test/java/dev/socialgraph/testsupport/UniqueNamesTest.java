package dev.socialgraph.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class UniqueNamesTest {

    @Test
    void database_mixedCasePrefix_isLowerCasedWithRandomSuffix() {
        assertThat(UniqueNames.database("Graph_Follower")).matches("graph_follower_[a-z0-9]{10}");
    }

    @Test
    void database_thousandCalls_giveThousandNames() {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            names.add(UniqueNames.database("x"));
        }
        assertThat(names).hasSize(1_000);
    }

    @Test
    void database_longestPrefix_fitsPostgresIdentifierLimit() {
        assertThat(UniqueNames.database("a".repeat(40))).hasSizeLessThanOrEqualTo(63);
    }

    @Test
    void database_invalidPrefix_throws() {
        for (String prefix : new String[] {"", "1shard", "graph-following", "a\"b", "a".repeat(41)}) {
            assertThatThrownBy(() -> UniqueNames.database(prefix)).as(prefix)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void topic_prefix_keepsCaseAndAddsDashSuffix() {
        assertThat(UniqueNames.topic("follow-events.DLT")).matches("follow-events\\.DLT-[a-z0-9]{10}");
    }

    @Test
    void topic_invalidPrefix_throws() {
        for (String prefix : new String[] {"", "with space", "slash/", ".", ".."}) {
            assertThatThrownBy(() -> UniqueNames.topic(prefix)).as(prefix).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
