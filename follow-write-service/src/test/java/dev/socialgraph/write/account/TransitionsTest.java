package dev.socialgraph.write.account;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.JobKind;
import dev.socialgraph.write.account.Transitions.Outcome;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TransitionsTest {

    @ParameterizedTest(name = "{1} of a user {0}: {2}")
    @CsvSource({
            "ACTIVE,      DEACTIVATE, CHANGE",
            "DEACTIVATED, DEACTIVATE, UNCHANGED",
            "ERASED,      DEACTIVATE, CONFLICT",
            "DEACTIVATED, REACTIVATE, CHANGE",
            "ACTIVE,      REACTIVATE, UNCHANGED",
            "ERASED,      REACTIVATE, CONFLICT",
            "ACTIVE,      ERASE,      CHANGE",
            "DEACTIVATED, ERASE,      CHANGE",
            "ERASED,      ERASE,      UNCHANGED"})
    void of_followsTheDocumentsStateMachine(AccountState current, JobKind request, Outcome expected) {
        assertThat(Transitions.of(current, request)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"DEACTIVATE, DEACTIVATED", "REACTIVATE, ACTIVE", "ERASE, ERASED"})
    void target_isTheStateTheRequestNames(JobKind request, AccountState expected) {
        assertThat(Transitions.target(request)).isEqualTo(expected);
    }
}
