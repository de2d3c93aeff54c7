package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The service credential with a rotation under way: the current and the previous credential pass, nothing else. */
class CredentialRuleTest {

    private static final String CURRENT = "current-service-token-0123456789abcdef";
    private static final String PREVIOUS = "previous-service-token-0123456789abcdef";

    private final MeterRegistry meters = new SimpleMeterRegistry();

    private double rejected(String reason) {
        return meters.counter(Rejections.METER, "reason", reason).count();
    }

    @Test
    void duringARotation_theCurrentAndThePreviousCredentialPass_andAnyOtherIsRefusedAndCounted() {
        CredentialRule rule = new CredentialRule(List.of(CURRENT, PREVIOUS), "/actuator", meters);

        assertThat(rule.refusal(CURRENT)).isNull();
        assertThat(rule.refusal(PREVIOUS)).isNull();
        assertThat(rule.refusal(CURRENT + "x")).isNotNull();
        assertThat(rule.refusal(PREVIOUS.substring(1))).isNotNull();
        assertThat(rule.refusal(null)).isNotNull();
        assertThat(rejected("wrong-service-token")).isEqualTo(2);
        assertThat(rejected("missing-service-token")).isEqualTo(1);
    }

    @Test
    void afterTheRotation_thePreviousCredentialIsRefused() {
        CredentialRule rule = new CredentialRule(List.of(CURRENT), "/actuator", meters);

        assertThat(rule.refusal(CURRENT)).isNull();
        assertThat(rule.refusal(PREVIOUS)).isNotNull();
    }

    @Test
    void aBlankCredential_isRefusedAtConstruction() {
        assertThatThrownBy(() -> new CredentialRule(List.of(CURRENT, " "), "/actuator", meters))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CredentialRule(List.of(), "/actuator", meters))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
