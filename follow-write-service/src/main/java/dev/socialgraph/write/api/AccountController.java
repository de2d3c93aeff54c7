package dev.socialgraph.write.api;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.account.AccountJob;
import dev.socialgraph.store.account.AccountStatus;
import dev.socialgraph.store.account.JobStatus;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.write.account.AccountService;
import dev.socialgraph.write.account.JobId;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.annotation.JsonSerialize;
import tools.jackson.databind.json.JsonMapper;

/**
 * The account lifecycle's internal API (docs/account-lifecycle.md): {@code PUT} / {@code DELETE}
 * {@code /internal/v1/admin/users/{id}/deactivation} (deactivate, reactivate), {@code DELETE
 * /internal/v1/admin/users/{id}} (erase), {@code GET /internal/v1/admin/users/{id}} (the state) and {@code GET
 * /internal/v1/admin/jobs/{jobId}}. Every user operation answers 200 with {@link StateResponse} and the follow token
 * also as {@code X-Follow-Token}; repeats are idempotent. Errors are problem+json from {@link ProblemAdvice}: a bad id
 * 400 naming {@code id} or {@code jobId}, an unknown job 404 {@code not-found}, a change of an erased user 409
 * {@code conflict}.
 */
@RestController
@RequestMapping(produces = MediaType.APPLICATION_JSON_VALUE)
class AccountController {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final AccountService accounts;
    private final FollowTokens tokens;

    AccountController(AccountService accounts, FollowTokens tokens) {
        this.accounts = accounts;
        this.tokens = tokens;
    }

    @PutMapping(InternalApi.DEACTIVATION_PATH)
    ResponseEntity<Object> deactivate(@PathVariable("id") String id,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return reply(accounts.deactivate(UserIds.parse(id, "id")), strings);
    }

    @DeleteMapping(InternalApi.DEACTIVATION_PATH)
    ResponseEntity<Object> reactivate(@PathVariable("id") String id,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds);
        return reply(accounts.reactivate(UserIds.parse(id, "id")), strings);
    }

    @DeleteMapping(InternalApi.ACCOUNT_PATH)
    ResponseEntity<Object> erase(@PathVariable("id") String id,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds);
        return reply(accounts.erase(UserIds.parse(id, "id")), strings);
    }

    @GetMapping(InternalApi.ACCOUNT_PATH)
    ResponseEntity<Object> state(@PathVariable("id") String id,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds);
        return reply(accounts.state(UserIds.parse(id, "id")), strings);
    }

    @GetMapping(InternalApi.JOB_PATH)
    ResponseEntity<Object> job(@PathVariable("jobId") String jobId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds);
        JobId id = JobId.parse(jobId);
        AccountJob job = accounts.job(id).orElseThrow(() -> new JobNotFoundException(id));
        return UserIdJson.ok(JobResponse.of(job), strings);
    }

    private ResponseEntity<Object> reply(AccountStatus status, boolean strings) {
        String token = tokens.issue(status.userId());
        ResponseEntity<Object> ok = UserIdJson.ok(StateResponse.of(status, token), strings);
        return ResponseEntity.ok().headers(ok.getHeaders()).header(Headers.FOLLOW_TOKEN, token).body(ok.getBody());
    }

    /** No job of that id: 404 {@code not-found} naming {@code jobId}. */
    static final class JobNotFoundException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        JobNotFoundException(JobId id) {
            super("no job " + id);
        }
    }

    /**
     * A user's state.
     *
     * @param userId      the user
     * @param state       {@code active}, {@code deactivated} or {@code erased}
     * @param version     state changes so far; 0 for a user never changed
     * @param changedAt   epoch ms of the last change; 0 for a user never changed
     * @param jobId       the job of the last change, or {@code null} for a user never changed
     * @param followToken {@code base64url(userId, issuedAtMillis, HMAC-SHA256)}: a read with it as
     *                    {@code X-Follow-Token} sees this state already (read-your-writes)
     */
    record StateResponse(@JsonSerialize(using = UserIdJson.Id.class) long userId, String state, long version,
                         long changedAt, String jobId, String followToken) {

        static StateResponse of(AccountStatus status, String followToken) {
            return new StateResponse(status.userId(), status.state().wireName(), status.version(), status.changedAt(),
                    status.jobId(), followToken);
        }
    }

    /**
     * A job.
     *
     * @param jobId      {@code "<userId>-<version>"}
     * @param userId     the user
     * @param kind       {@code deactivate}, {@code reactivate} or {@code erase}
     * @param status     {@code queued}, {@code running} or {@code done}
     * @param done       edges done
     * @param total      edges to do (0 until the job first starts)
     * @param createdAt  epoch ms
     * @param startedAt  epoch ms, or {@code null}
     * @param finishedAt epoch ms, or {@code null}
     * @param report     when done: edges per relation and direction, exclusions added and removed, rows deleted,
     *                   milliseconds; {@code null} before
     */
    record JobResponse(String jobId, @JsonSerialize(using = UserIdJson.Id.class) long userId, String kind,
                       String status, long done, long total, long createdAt, Long startedAt, Long finishedAt,
                       JsonNode report) {

        static JobResponse of(AccountJob job) {
            JsonNode report = job.status() == JobStatus.DONE && job.report() != null ? JSON.readTree(job.report())
                    : null;
            return new JobResponse(job.jobId(), job.userId(), job.kind().wireName(), job.status().wireName(),
                    job.done(), job.total(), job.createdAt(), job.startedAt(), job.finishedAt(), report);
        }
    }
}
