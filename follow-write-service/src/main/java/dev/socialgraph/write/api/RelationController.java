package dev.socialgraph.write.api;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.write.follow.RelationResult;
import dev.socialgraph.write.follow.RelationService;
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
 * Blocks and mutes of the internal API: {@code PUT} (block, mute) and {@code DELETE} (unblock, unmute) of
 * {@code /internal/v1/users/{userId}/blocking/{targetId}} and {@code .../muting/{targetId}}. The gateway maps
 * {@code /v1/me/blocking/{id}} and {@code /v1/me/muting/{id}} here with the token's subject as {@code userId}. All are
 * idempotent and reply 200 with the relation's state ({@link RelationResponse}); errors are
 * {@code application/problem+json} from {@link ProblemAdvice}.
 */
@RestController
@RequestMapping(produces = MediaType.APPLICATION_JSON_VALUE)
class RelationController {

    private final RelationService relations;
    private final FollowTokens tokens;

    RelationController(RelationService relations, FollowTokens tokens) {
        this.relations = relations;
        this.tokens = tokens;
    }

    @PutMapping(InternalApi.BLOCK_PATH)
    ResponseEntity<Object> block(@PathVariable("userId") String userId, @PathVariable("targetId") String targetId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(reply(relations.block(user(userId), target(targetId))), strings);
    }

    @DeleteMapping(InternalApi.BLOCK_PATH)
    ResponseEntity<Object> unblock(@PathVariable("userId") String userId, @PathVariable("targetId") String targetId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(reply(relations.unblock(user(userId), target(targetId))), strings);
    }

    @PutMapping(InternalApi.MUTE_PATH)
    ResponseEntity<Object> mute(@PathVariable("userId") String userId, @PathVariable("targetId") String targetId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(reply(relations.mute(user(userId), target(targetId))), strings);
    }

    @DeleteMapping(InternalApi.MUTE_PATH)
    ResponseEntity<Object> unmute(@PathVariable("userId") String userId, @PathVariable("targetId") String targetId,
            @RequestParam(name = UserIdJson.PARAMETER, required = false) String stringifyIds) {
        boolean strings = UserIdJson.asStrings(stringifyIds); // refused before anything is written
        return UserIdJson.ok(reply(relations.unmute(user(userId), target(targetId))), strings);
    }

    private RelationResponse reply(RelationResult result) {
        return RelationResponse.of(result, tokens.issue(result.userId()));
    }

    private static long user(String userId) {
        return UserIds.parse(userId, "userId");
    }

    private static long target(String targetId) {
        return UserIds.parse(targetId, "targetId");
    }

    /**
     * The reply to a block or mute change: the relation's state after the call. {@code createdAt} is {@code null}
     * when the relation does not hold (after an unblock or unmute); the field is always present.
     *
     * @param userId      the blocker or muter
     * @param targetId    the blocked or muted user
     * @param relation    {@code "block"} or {@code "mute"}
     * @param active      whether the block or mute holds now
     * @param createdAt   epoch ms when it was created, or {@code null}
     * @param version     the user's row version of this relation after the call
     * @param followToken {@code base64url(actorId, issuedAtMillis, HMAC-SHA256)}, to send as {@code X-Follow-Token} on
     *                    the user's next reads (hidden authors, relationships) for read-your-writes
     */
    record RelationResponse(@JsonSerialize(using = UserIdJson.Id.class) long userId,
                            @JsonSerialize(using = UserIdJson.Id.class) long targetId, String relation, boolean active,
                            Long createdAt, long version, String followToken) {

        static RelationResponse of(RelationResult result, String followToken) {
            return new RelationResponse(result.userId(), result.targetId(), result.relation().wireName(),
                    result.present(), result.createdAt(), result.version(), followToken);
        }
    }
}
