package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceCredentialTest {

    private static final Validator VALIDATOR = Validation.buildDefaultValidatorFactory().getValidator();

    private static List<String> problems(String token) {
        return VALIDATOR.validate(new ServiceCredential(token)).stream().map(ConstraintViolation::getMessage).toList();
    }

    @Test
    void validate_missingOrShortToken_isRefusedNamingTheVariable() {
        assertThat(problems(null)).anyMatch(m -> m.contains("GRAPH_SERVICE_TOKEN"));
        assertThat(problems("")).anyMatch(m -> m.contains("GRAPH_SERVICE_TOKEN"));
        assertThat(problems("too-short")).containsExactly("must be at least 32 characters");
        assertThat(problems("0123456789abcdef0123456789abcdef")).isEmpty();
    }

    @Test
    void toString_hidesTheToken() {
        assertThat(new ServiceCredential("0123456789abcdef0123456789abcdef").toString())
                .doesNotContain("0123456789abcdef");
    }
}
