package dev.socialgraph.write.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.account.ProtectionRepository;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.write.follow.FollowResult;
import dev.socialgraph.write.follow.FollowService;
import dev.socialgraph.write.follow.ProtectionService;
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

    private final ProtectionService protection;
    private final FollowService follows;
    private final FollowTokens tokens;

    FollowRequestController(ProtectionService protection, FollowService follows, FollowTokens tokens) {
        this.protection = protection;
        this.follows = follows;
        this.tokens = tokens;
    }

    @PutMapping(InternalApi.PROTECTION_PATH)
    ResponseEntity<Object> protect(@PathVariable("userId") String userId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(ProtectionResponse.of(protection.set(user(userId), true)), strings);
    }

    @DeleteMapping(InternalApi.PROTECTION_PATH)
    ResponseEntity<Object> unprotect(@PathVariable("userId") String userId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(ProtectionResponse.of(protection.set(user(userId), false)), strings);
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
     * The reply to a protection change: the protection after the call.
     *
     * @param userId           the user
     * @param protectedAccount whether the account is protected now (JSON {@code protected})
     * @param version          the number of protection changes so far
     * @param changedAt        epoch ms of the last change, or {@code null} for a user who never changed it
     */
    record ProtectionResponse(@JsonSerialize(using = UserIdJson.Id.class) long userId,
                              @JsonProperty("protected") boolean protectedAccount, long version, Long changedAt) {

        static ProtectionResponse of(ProtectionRepository.Change change) {
            ProtectionRepository.Protection p = change.protection();
            return new ProtectionResponse(p.userId(), p.protectedAccount(), p.version(),
                    p.version() == 0 ? null : p.changedAt());
        }
    }
}
