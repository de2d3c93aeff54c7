package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.wire.InternalApi;
import org.junit.jupiter.api.Test;

/**
 * Account answers the client cannot read, against a fake transport (AccountOperationsTest covers the operations
 * against fake write instances): an unknown state, kind or status, or a report that is not an object.
 */
class AccountsTest {

    private static final String JOB = "{\"jobId\":\"4-1\",\"userId\":4,\"kind\":\"%s\",\"status\":\"%s\",\"done\":0,"
            + "\"total\":1,\"createdAt\":1,\"report\":%s}";

    @Test
    void anUnknownState_isUnreadable() {
        Accounts accounts = new Accounts(FakeTransport.answering(
                "{\"userId\":4,\"state\":\"frozen\",\"version\":1,\"changedAt\":1}"), null);

        assertThatThrownBy(() -> accounts.state(4)).isInstanceOfSatisfying(GraphClientException.class,
                e -> assertThat(e.status()).isEqualTo(200)).hasMessageContaining("frozen");
    }

    @Test
    void aJobOfUnknownKindOrStatus_orWithAReportThatIsNoObject_isUnreadable() {
        for (String answer : new String[] {JOB.formatted("merge", "done", "null"),
                JOB.formatted("erase", "paused", "null"), JOB.formatted("erase", "done", "[1]")}) {
            Accounts accounts = new Accounts(FakeTransport.answering(answer), null);

            assertThatThrownBy(() -> accounts.job("4-1")).as(answer).isInstanceOf(GraphClientException.class);
        }
        assertThat(new Accounts(FakeTransport.answering(JOB.formatted("erase", "done", "null")), null).job("4-1")
                .report()).isEmpty();
    }

    @Test
    void eachOperation_goesToItsEndpoint_onAWriteInstance() {
        FakeTransport transport = FakeTransport.answering(
                "{\"userId\":4,\"state\":\"active\",\"version\":0,\"changedAt\":0}");
        Accounts accounts = new Accounts(transport, null);

        accounts.deactivate(4);
        accounts.reactivate(4);
        accounts.erase(4);
        accounts.state(4);

        assertThat(transport.calls()).allSatisfy(c -> assertThat(c.write()).isTrue())
                .extracting(c -> c.request().endpoint()).containsExactly(InternalApi.DEACTIVATE,
                        InternalApi.REACTIVATE, InternalApi.ERASE, InternalApi.ACCOUNT);
    }
}
