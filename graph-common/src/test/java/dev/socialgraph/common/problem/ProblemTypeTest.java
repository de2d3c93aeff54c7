package dev.socialgraph.common.problem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ProblemTypeTest {

    @Test
    void everyType_hasItsOwnUriUnderTheOneBase_andReadsBack() {
        assertThat(Arrays.stream(ProblemType.values()).map(ProblemType::uriText)).doesNotHaveDuplicates()
                .allSatisfy(uri -> assertThat(uri).startsWith("https://socialgraph.dev/problems/"));
        for (ProblemType type : ProblemType.values()) {
            assertThat(ProblemType.fromUri(type.uriText())).contains(type);
            assertThat(type.uri().toString()).isEqualTo(type.uriText());
        }
    }

    @Test
    void fromUri_outsideTheVocabulary_isEmpty() {
        assertThat(ProblemType.fromUri(null)).isEmpty();
        assertThat(ProblemType.fromUri("about:blank")).isEmpty();
        assertThat(ProblemType.fromUri("https://socialgraph.dev/problems/no-such-type")).isEmpty();
        assertThat(ProblemType.fromUri("urn:socialgraph:problem:service-credential")).isEmpty();
    }

    @Test
    void forStatus_givesEachStatusItsDefault() {
        assertThat(ProblemType.forStatus(400)).isEqualTo(ProblemType.INVALID_PARAMETER);
        assertThat(ProblemType.forStatus(401)).isEqualTo(ProblemType.UNAUTHORIZED);
        assertThat(ProblemType.forStatus(403)).isEqualTo(ProblemType.FORBIDDEN);
        assertThat(ProblemType.forStatus(404)).isEqualTo(ProblemType.NOT_FOUND);
        assertThat(ProblemType.forStatus(409)).isEqualTo(ProblemType.CONFLICT);
        assertThat(ProblemType.forStatus(429)).isEqualTo(ProblemType.RATE_LIMITED);
        assertThat(ProblemType.forStatus(503)).isEqualTo(ProblemType.SERVICE_UNAVAILABLE);
        assertThat(ProblemType.forStatus(504)).isEqualTo(ProblemType.TIMEOUT);
        assertThat(ProblemType.forStatus(502)).isEqualTo(ProblemType.INTERNAL_ERROR);
        assertThat(ProblemType.forStatus(418)).isEqualTo(ProblemType.INVALID_PARAMETER);
        for (ProblemType type : ProblemType.values()) {
            assertThat(ProblemType.forStatus(type.status()).status()).isEqualTo(type.status());
        }
    }
}
