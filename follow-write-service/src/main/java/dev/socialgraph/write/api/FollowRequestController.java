package dev.socialgraph.write.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.account.AccountStatus;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.write.account.AccountService;
import dev.socialgraph.write.follow.FollowResult;
import dev.socialgraph.write.follow.FollowService;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * Protected accounts and their follow requests on the internal API (docs/decisions/0064-follow-requests.md):
 * {@code PUT} and {@code DELETE} of {@code /internal/v1/users/{userId}/protection} make {@code userId} protected or
 * public; {@code PUT} and {@code DELETE} of {@code /internal/v1/users/{userId}/follow-requests/{requesterId}} accept
 * and decline {@code requesterId}'s pending request to {@code userId}. A request is made by a follow of a protected
 * account and withdrawn by the unfollow ({@link FollowController}). All are idempotent and reply 200; errors are
 * {@code application/problem+json} from {@link ProblemAdvice}.
 */
@RestController
@RequestMapping(produces = MediaType.APPLICATION_JSON_VALUE)
class FollowRequestController {

    private final AccountService accounts;
    private final FollowService follows;
    private final FollowTokens tokens;

    FollowRequestController(AccountService accounts, FollowService follows, FollowTokens tokens) {
        this.accounts = accounts;
        this.follows = follows;
        this.tokens = tokens;
    }

    @PutMapping(InternalApi.PROTECTION_PATH)
    ResponseEntity<Object> protect(@PathVariable("userId") String userId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return protection(accounts.protect(user(userId)), strings);
    }

    @DeleteMapping(InternalApi.PROTECTION_PATH)
    ResponseEntity<Object> unprotect(@PathVariable("userId") String userId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return protection(accounts.unprotect(user(userId)), strings);
    }

    @PutMapping(InternalApi.FOLLOW_REQUEST_PATH)
    ResponseEntity<Object> accept(@PathVariable("userId") String userId,
            @PathVariable("requesterId") String requesterId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(reply(follows.accept(user(userId), requester(requesterId))), strings);
    }

    @DeleteMapping(InternalApi.FOLLOW_REQUEST_PATH)
    ResponseEntity<Object> decline(@PathVariable("userId") String userId,
            @PathVariable("requesterId") String requesterId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(reply(follows.decline(user(userId), requester(requesterId))), strings);
    }

    /** The account's row after a protection change, with the user's token, also as {@code X-Follow-Token}. */
    private ResponseEntity<Object> protection(AccountStatus status, boolean strings) {
        String token = tokens.issue(status.userId());
        ResponseEntity<Object> ok = UserIdJson.ok(ProtectionResponse.of(status, token), strings);
        return ResponseEntity.ok().headers(ok.getHeaders()).header(Headers.FOLLOW_TOKEN, token).body(ok.getBody());
    }

    /**
     * The requester's row was written: its token shows the change to the requester's reads and, as for a removed
     * follower, to the protected account's reads of its followers.
     */
    private FollowResponse reply(FollowResult result) {
        return FollowResponse.of(result, tokens.issue(result.followerId()));
    }

    private static long user(String userId) {
        return UserIds.parse(userId, "userId");
    }

    private static long requester(String requesterId) {
        return UserIds.parse(requesterId, "requesterId");
    }

    /**
     * The reply to a protection change: the account's row after the call.
     *
     * @param userId           the user
     * @param protectedAccount whether the account is protected now (JSON {@code protected})
     * @param version          the account row's changes so far (state and protection changes share the count)
     * @param changedAt        epoch ms of the row's last change, or {@code null} for a user never changed
     * @param jobId            the job of the user's latest change that started one: after making the account public,
     *                         its {@code accept-requests} job ({@code GET /internal/v1/admin/jobs/{jobId}}); {@code null}
     *                         when none has
     * @param followToken      the user's token: a read with it as {@code X-Follow-Token} sees the change already
     */
    record ProtectionResponse(@JsonSerialize(using = UserIdJson.Id.class) long userId,
                              @JsonProperty("protected") boolean protectedAccount, long version, Long changedAt,
                              String jobId, String followToken) {

        static ProtectionResponse of(AccountStatus status, String followToken) {
            return new ProtectionResponse(status.userId(), status.protectedAccount(), status.version(),
                    status.version() == 0 ? null : status.changedAt(), status.jobId(), followToken);
        }
    }
}
