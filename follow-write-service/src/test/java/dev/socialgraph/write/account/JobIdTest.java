package dev.socialgraph.write.account;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.web.BadParameterException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobIdTest {

    @Test
    void parse_readsTheUserAndVersion_andToStringWritesThemBack() {
        JobId id = JobId.parse("9223372036854775807-12");

        assertThat(id).isEqualTo(new JobId(Long.MAX_VALUE, 12));
        assertThat(id.toString()).isEqualTo("9223372036854775807-12");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "42", "42-", "-1", "42-0", "0-1", "a-1", "42-1-2", "042-1", "42-01", "42 -1",
            "+42-1", "92233720368547758070-1"})
    void parse_refusesAnythingButTwoCanonicalPositiveDecimals_namingJobId(String text) {
        assertThatThrownBy(() -> JobId.parse(text)).isInstanceOfSatisfying(BadParameterException.class,
                e -> assertThat(e.parameter()).isEqualTo("jobId"));
    }

    @Test
    void parse_ofNull_namesJobId() {
        assertThatThrownBy(() -> JobId.parse(null)).isInstanceOf(BadParameterException.class);
    }
}
