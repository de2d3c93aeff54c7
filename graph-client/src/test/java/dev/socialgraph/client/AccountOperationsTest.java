package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.problem.ProblemType;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The account lifecycle's operations (docs/account-lifecycle.md) against fake write instances on local ports: the
 * paths and methods of the write service's {@code /internal/v1/admin} API, the typed answers, the service token,
 * fail-over like every write, problems as exceptions, and ids refused before any request.
 */
class AccountOperationsTest {

    private static final String TOKEN = "svc-secret-456";

    private final List<FakeCheckInstance> writers = new ArrayList<>();
    private FollowCheckClient client;

    @BeforeEach
    void start() throws IOException {
        for (int i = 0; i < 2; i++) {
            writers.add(new FakeCheckInstance("write-" + i, Set.of()));
        }
        client = builder().build();
    }

    @AfterEach
    void stop() {
        client.close();
        writers.forEach(FakeCheckInstance::close);
    }

    private FollowCheckClient.Builder builder() {
        FollowCheckClient.Builder b = FollowCheckClient.builder().serviceToken(TOKEN)
                .writeBalancing(WriteBalancing.FIRST_AVAILABLE);
        writers.forEach(w -> b.writeInstance(w.baseUri()));
        return b;
    }

    private FakeCheckInstance first() {
        return writers.getFirst();
    }

    @Test
    void eachOperation_sendsItsMethodAndPath_withTheServiceToken() {
        client.accountState(42);
        client.deactivate(42);
        client.reactivate(42);
        client.erase(42);
        client.accountJob("42-1");

        assertThat(first().received()).extracting(r -> r.method() + " " + r.path()).containsExactly(
                "GET /internal/v1/admin/users/42",
                "PUT /internal/v1/admin/users/42/deactivation",
                "DELETE /internal/v1/admin/users/42/deactivation",
                "DELETE /internal/v1/admin/users/42",
                "GET /internal/v1/admin/jobs/42-1");
        assertThat(first().received()).allSatisfy(r -> assertThat(r.serviceToken()).isEqualTo(TOKEN));
    }

    @Test
    void aUserNeverChanged_isActive_withVersion0_andNoJob() {
        AccountState state = client.accountState(7);

        assertThat(state.userId()).isEqualTo(7);
        assertThat(state.state()).isEqualTo(AccountState.State.ACTIVE);
        assertThat(state.active()).isTrue();
        assertThat(state.version()).isZero();
        assertThat(state.changedAt()).isNull();
        assertThat(state.job()).isEmpty();
        assertThat(state.followToken()).isNull();
    }

    @Test
    void stateChanges_answerTheNewState_withTheirJob_andIdempotentRepeats() {
        AccountState deactivated = client.deactivate(42);
        assertThat(deactivated.state()).isEqualTo(AccountState.State.DEACTIVATED);
        assertThat(deactivated.active()).isFalse();
        assertThat(deactivated.version()).isEqualTo(1);
        assertThat(deactivated.changedAt()).isAfter(Instant.EPOCH);
        assertThat(deactivated.jobId()).isEqualTo("42-1");
        assertThat(deactivated.followToken()).isNotBlank();

        AccountState again = client.deactivate(42);
        assertThat(again.version()).isEqualTo(1);
        assertThat(again.jobId()).isEqualTo("42-1");

        AccountState reactivated = client.reactivate(42);
        assertThat(reactivated.state()).isEqualTo(AccountState.State.ACTIVE);
        assertThat(reactivated.version()).isEqualTo(2);
        assertThat(reactivated.jobId()).isEqualTo("42-2");

        AccountState erased = client.erase(42);
        assertThat(erased.state()).isEqualTo(AccountState.State.ERASED);
        assertThat(erased.version()).isEqualTo(3);
        assertThat(client.erase(42).version()).isEqualTo(3);
        assertThat(client.accountState(42)).satisfies(s -> {
            assertThat(s.state()).isEqualTo(AccountState.State.ERASED);
            assertThat(s.jobId()).isEqualTo("42-3");
        });
    }

    @Test
    void accountJob_readsEveryField_queuedAndDone() {
        client.deactivate(43);
        client.erase(43);

        AccountJob queued = client.accountJob("43-1");
        assertThat(queued.jobId()).isEqualTo("43-1");
        assertThat(queued.userId()).isEqualTo(43);
        assertThat(queued.kind()).isEqualTo(AccountJob.Kind.DEACTIVATE);
        assertThat(queued.status()).isEqualTo(AccountJob.Status.QUEUED);
        assertThat(queued.finished()).isFalse();
        assertThat(queued.done()).isZero();
        assertThat(queued.total()).isEqualTo(3);
        assertThat(queued.createdAt()).isAfter(Instant.EPOCH);
        assertThat(queued.startedAt()).isNull();
        assertThat(queued.finishedAt()).isNull();
        assertThat(queued.report()).isEmpty();

        AccountJob done = client.accountJob("43-2");
        assertThat(done.kind()).isEqualTo(AccountJob.Kind.ERASE);
        assertThat(done.status()).isEqualTo(AccountJob.Status.DONE);
        assertThat(done.finished()).isTrue();
        assertThat(done.done()).isEqualTo(3);
        assertThat(done.startedAt()).isEqualTo(done.createdAt().plusMillis(1));
        assertThat(done.finishedAt()).isEqualTo(done.createdAt().plusMillis(2));
        assertThat(done.report()).containsEntry("rowsDeleted", 4).containsEntry("ms", 7)
                .containsEntry("follow", Map.of("following", 2, "followers", 1));
    }

    @Test
    void anUnknownJob_isRejected_asNotFound() {
        assertThatThrownBy(() -> client.accountJob("44-9")).isInstanceOfSatisfying(RequestRejectedException.class,
                e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.type()).isEqualTo(ProblemType.NOT_FOUND);
                });
        assertThat(first().received()).hasSize(1); // a 4xx is not retried
    }

    @Test
    void deactivatingAnErasedUser_isAConflict() {
        client.erase(45);

        assertThatThrownBy(() -> client.deactivate(45)).isInstanceOfSatisfying(RequestRejectedException.class,
                e -> assertThat(e.type()).isEqualTo(ProblemType.CONFLICT));
        assertThatThrownBy(() -> client.reactivate(45)).isInstanceOf(RequestRejectedException.class);
    }

    @Test
    void anInactiveUsersWrite_isRejected_asUserInactive_namingTheField() {
        first().answerWith(404, "application/problem+json",
                "{\"type\":\"https://socialgraph.dev/problems/user-inactive\",\"parameter\":\"followeeId\"}", null);

        assertThatThrownBy(() -> client.follow(46, 47)).isInstanceOfSatisfying(RequestRejectedException.class, e -> {
            assertThat(e.type()).isEqualTo(ProblemType.USER_INACTIVE);
            assertThat(e.parameter()).contains("followeeId");
        });
    }

    @Test
    void anUnavailableWriteInstance_isFailedOver_forStateChangesAndReads() {
        first().answerWith(503);

        assertThat(client.deactivate(48).state()).isEqualTo(AccountState.State.DEACTIVATED);
        assertThat(client.accountState(48).state()).isEqualTo(AccountState.State.DEACTIVATED);
        assertThat(writers.get(1).received()).extracting(FakeCheckInstance.Received::method)
                .containsExactly("PUT", "GET");
    }

    @Test
    void withReadYourWrites_aStateChangesToken_goesWithTheUsersNextReads() throws IOException {
        try (FakeCheckInstance check = new FakeCheckInstance("check-0", Set.of());
             FollowCheckClient ryw = builder().instance("check-0", check.baseUri()).readYourWrites(true).build()) {
            AccountState state = ryw.deactivate(49);

            ryw.isFollowing(49, 50);

            assertThat(check.received().getLast().followToken()).isEqualTo(state.followToken());
        }
    }

    @Test
    void badIds_areRefusedBeforeAnyRequest() {
        assertThatThrownBy(() -> client.deactivate(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.reactivate(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.erase(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.accountState(-5)).isInstanceOf(IllegalArgumentException.class);
        for (String jobId : new String[] {"", "42", "42-", "-1", "42-0", "042-1", "42-1-2", "42-1/../x", "a-1",
                "42-99999999999999999999"}) {
            assertThatThrownBy(() -> client.accountJob(jobId)).as(jobId)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jobId");
        }
        assertThatThrownBy(() -> client.accountJob(null)).isInstanceOf(NullPointerException.class);
        assertThat(first().received()).isEmpty();
    }

    @Test
    void withoutAWriteInstance_accountOperationsThrow() throws IOException {
        try (FakeCheckInstance check = new FakeCheckInstance("check-0", Set.of());
             FollowCheckClient readsOnly = FollowCheckClient.builder().instance("check-0", check.baseUri()).build()) {
            assertThatThrownBy(() -> readsOnly.erase(1)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> readsOnly.accountJob("1-1")).isInstanceOf(IllegalStateException.class);
        }
    }
}
