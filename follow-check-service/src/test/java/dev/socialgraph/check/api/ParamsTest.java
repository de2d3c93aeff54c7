package dev.socialgraph.check.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.web.BadParameterException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ParamsTest {

    @Test
    void limit_whenAbsent_isTheDefault() {
        assertThat(Params.limit(null, 50, 1000)).isEqualTo(50);
    }

    @Test
    void limit_acceptsTheWholeRange() {
        assertThat(Params.limit("1", 50, 1000)).isEqualTo(1);
        assertThat(Params.limit("1000", 50, 1000)).isEqualTo(1000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "1001", "-1", "+5", " 5", "5 ", "ten", "1e3", "99999999999999999999", "2147483648"})
    void limit_rejectsAnythingElse_namingTheParameter(String text) {
        assertThatThrownBy(() -> Params.limit(text, 50, 1000))
                .isInstanceOfSatisfying(BadParameterException.class, e -> assertThat(e.parameter()).isEqualTo("limit"))
                .hasMessageContaining("between 1 and 1000");
    }

    @Test
    void echo_truncatesLongInput() {
        assertThat(Params.echo("x".repeat(100))).hasSize(33).endsWith("…");
    }
}
