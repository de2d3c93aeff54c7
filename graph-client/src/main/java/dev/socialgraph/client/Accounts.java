package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.wire.InternalApi;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * The account lifecycle of docs/account-lifecycle.md on the write service's admin API, on the write instances like
 * the writes: deactivation, reactivation and erasure ({@link InternalApi#DEACTIVATE}, {@link InternalApi#REACTIVATE},
 * {@link InternalApi#ERASE}), each answering the {@link AccountState} after it, a user's state
 * ({@link InternalApi#ACCOUNT}) and the {@link AccountJob} of a change ({@link InternalApi#JOB}). A change's follow
 * token is kept for the user's next reads when read-your-writes was asked for. Ids are checked before any request.
 * Thread-safe.
 */
final class Accounts {

    private final Transport transport;
    /** {@code null} unless read-your-writes was asked for. */
    private final FollowTokenMemory tokens;

    Accounts(Transport transport, FollowTokenMemory tokens) {
        this.transport = transport;
        this.tokens = tokens;
    }

    AccountState deactivate(long user) {
        UserIds.requirePositive(user, "user");
        return change(user, Request.to(InternalApi.DEACTIVATE, user));
    }

    AccountState reactivate(long user) {
        UserIds.requirePositive(user, "user");
        return change(user, Request.to(InternalApi.REACTIVATE, user));
    }

    AccountState erase(long user) {
        UserIds.requirePositive(user, "user");
        return change(user, Request.to(InternalApi.ERASE, user));
    }

    /**
     * {@code user} is made protected ({@code protect}) or public again ({@link InternalApi#PROTECT},
     * {@link InternalApi#UNPROTECT}); the user's token is kept for its next reads.
     */
    Protection protection(long user, boolean protect) {
        UserIds.requirePositive(user, "user");
        JsonNode body = Answers.parse(transport.write(Request.to(protect ? InternalApi.PROTECT : InternalApi.UNPROTECT,
                user)));
        Protection protection = new Protection(Answers.required(body, "userId").asLong(),
                Answers.required(body, "protected").asBoolean(), Answers.required(body, "version").asLong(),
                Answers.instant(body, "changedAt"), Answers.text(body, "jobId"), Answers.text(body, "followToken"));
        if (tokens != null && protection.followToken() != null) {
            tokens.remember(user, protection.followToken());
        }
        return protection;
    }

    AccountState state(long user) {
        UserIds.requirePositive(user, "user");
        return stateReply(Answers.parse(transport.write(Request.to(InternalApi.ACCOUNT, user))));
    }

    AccountJob job(String jobId) {
        requireJobId(jobId);
        return jobReply(Answers.parse(transport.write(Request.to(InternalApi.JOB, jobId))));
    }

    /** A state change of {@code user}: deactivation, reactivation or erasure. */
    private AccountState change(long user, Request request) {
        AccountState state = stateReply(Answers.parse(transport.write(request)));
        if (tokens != null && state.followToken() != null) {
            tokens.remember(user, state.followToken());
        }
        return state;
    }

    /**
     * Refuses anything but {@code <userId>-<version>} in canonical decimal before it goes into a URL path: the
     * service would refuse it too (400), and a job id holding {@code /} or {@code ?} must not reach another path.
     */
    static void requireJobId(String jobId) {
        Objects.requireNonNull(jobId, "jobId");
        int dash = jobId.indexOf('-');
        try {
            if (dash < 0) {
                throw new IllegalArgumentException("no '-'");
            }
            UserIds.parse(jobId.substring(0, dash), "jobId");
            UserIds.parse(jobId.substring(dash + 1), "jobId");
        } catch (IllegalArgumentException e) {
            String echo = jobId.length() > 32 ? jobId.substring(0, 32) + "..." : jobId;
            throw new IllegalArgumentException(
                    "jobId must be '<userId>-<version>', both positive decimal integers, was '" + echo + "'", e);
        }
    }

    /** {@code userId, state, version, changedAt} (epoch ms, 0 for never), {@code jobId}, {@code followToken}. */
    static AccountState stateReply(JsonNode body) {
        String state = Answers.required(body, "state").asString();
        long changedAt = Answers.required(body, "changedAt").asLong();
        return new AccountState(Answers.required(body, "userId").asLong(),
                AccountState.State.of(state).orElseThrow(
                        () -> Problems.unreadable("unknown state '" + state + "'", null)),
                Answers.required(body, "version").asLong(), changedAt == 0 ? null : Instant.ofEpochMilli(changedAt),
                Answers.text(body, "jobId"), Answers.text(body, "followToken"));
    }

    /** A job: ids, kind, status, progress, times (epoch ms) and the report, an object or {@code null}. */
    static AccountJob jobReply(JsonNode body) {
        String kind = Answers.required(body, "kind").asString();
        String status = Answers.required(body, "status").asString();
        JsonNode report = body.get("report");
        if (report != null && !report.isNull() && !report.isObject()) {
            throw Problems.unreadable("'report' is not an object", null);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> reportMap = report == null || report.isNull() ? Map.of()
                : Answers.JSON.convertValue(report, Map.class);
        return new AccountJob(Answers.required(body, "jobId").asString(), Answers.required(body, "userId").asLong(),
                AccountJob.Kind.of(kind).orElseThrow(() -> Problems.unreadable("unknown kind '" + kind + "'", null)),
                AccountJob.Status.of(status).orElseThrow(
                        () -> Problems.unreadable("unknown status '" + status + "'", null)),
                Answers.required(body, "done").asLong(), Answers.required(body, "total").asLong(),
                Instant.ofEpochMilli(Answers.required(body, "createdAt").asLong()), Answers.instant(body, "startedAt"),
                Answers.instant(body, "finishedAt"), reportMap);
    }
}
