package dev.socialgraph.write.api;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.write.follow.FollowResult;
import dev.socialgraph.write.follow.FollowService;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code PUT} (follow) and {@code DELETE} (unfollow) of {@code /internal/v1/users/{followerId}/following/{followeeId}}
 * (DESIGN.md 6; the gateway maps {@code /v1/me/following/{targetId}} here with the token's subject as follower).
 * Both are idempotent and reply 200 with the edge's state; a follow of a protected account the follower does not
 * follow is a follow request, answered 202 with {@code requested} true (docs/decisions/0064-follow-requests.md), and
 * the unfollow withdraws it. Ids are parsed strictly ({@link UserIds#parse}); errors
 * are {@code application/problem+json} from {@link ProblemAdvice}.
 */
@RestController
@RequestMapping(path = InternalApi.FOLLOW_PATH,
        produces = MediaType.APPLICATION_JSON_VALUE)
class FollowController {

    private final FollowService follows;
    private final FollowTokens tokens;

    FollowController(FollowService follows, FollowTokens tokens) {
        this.follows = follows;
        this.tokens = tokens;
    }

    @PutMapping
    ResponseEntity<Object> follow(@PathVariable("followerId") String followerId,
            @PathVariable("followeeId") String followeeId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        long follower = UserIds.parse(followerId, "followerId");
        long followee = UserIds.parse(followeeId, "followeeId");
        FollowResult result = follows.follow(follower, followee);
        ResponseEntity<Object> answer = UserIdJson.ok(reply(result), strings);
        // a pending request is no follow yet: accepted for the followee's answer
        return result.requested() ? ResponseEntity.status(HttpStatus.ACCEPTED).headers(answer.getHeaders())
                .body(answer.getBody()) : answer;
    }

    @DeleteMapping
    ResponseEntity<Object> unfollow(@PathVariable("followerId") String followerId,
            @PathVariable("followeeId") String followeeId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        long follower = UserIds.parse(followerId, "followerId");
        long followee = UserIds.parse(followeeId, "followeeId");
        return UserIdJson.ok(reply(follows.unfollow(follower, followee)), strings);
    }

    private FollowResponse reply(FollowResult result) {
        return FollowResponse.of(result, tokens.issue(result.followerId()));
    }
}
