package dev.socialgraph.check.api;

import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.lists.FollowLists;
import dev.socialgraph.check.suggest.Suggestions;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.cursor.CursorCodec;
import dev.socialgraph.common.cursor.CursorPosition;
import dev.socialgraph.common.cursor.ListKind;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.web.BadParameterException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * The internal read API of DESIGN.md 6 ({@code /internal/v1/users/...}, explicit ids; the gateway maps the
 * public paths here). Path variables and parameters are taken as text and parsed here so that every error
 * names its parameter.
 */
@RestController
@RequestMapping(path = "/internal/v1/users/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
class GraphReadController {

    private final FollowChecker checker;
    private final FollowLists lists;
    private final Suggestions suggestions;
    private final CheckProperties properties;
    private final CursorCodec cursors;

    GraphReadController(FollowChecker checker, FollowLists lists, Suggestions suggestions,
                        CheckProperties properties) {
        this.checker = checker;
        this.lists = lists;
        this.suggestions = suggestions;
        this.properties = properties;
        this.cursors = new CursorCodec(properties.cursorKey().getBytes(StandardCharsets.UTF_8));
    }

    /** Batch answer; both arrays ascending, each id once. */
    record ContainsResponse(long[] following, long[] notFollowing) {
    }

    /** One list item. */
    record Item(long userId, long followedAt) {
    }

    /** One page of a list; {@code nextCursor} is {@code null} on the last page. */
    record ListResponse(List<Item> items, String nextCursor) {
    }

    /** One common-following item. */
    record CommonItem(long userId) {
    }

    /** One page of common following, ascending by id. */
    record CommonResponse(List<CommonItem> items, String nextCursor) {
    }

    /** Both directions between two users. */
    record RelationshipResponse(boolean following, boolean followedBy) {
    }

    /**
     * {@code {"following":true|false}}: the two possible bodies, encoded once. The check is the hot path: written as
     * bytes by the byte-array converter, with no JSON serialisation per request.
     */
    private static final byte[] FOLLOWING = "{\"following\":true}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOT_FOLLOWING = "{\"following\":false}".getBytes(StandardCharsets.US_ASCII);

    @GetMapping("/following/{targetId}")
    byte[] isFollowing(@PathVariable("id") String id, @PathVariable("targetId") String targetId,
                       @RequestHeader(name = "X-Follow-Token", required = false) String token) {
        long follower = UserIds.parse(id, "id");
        long followee = UserIds.parse(targetId, "targetId");
        return checker.isFollowing(follower, followee, token) ? FOLLOWING : NOT_FOLLOWING;
    }

    @PostMapping(path = "/following/contains", consumes = MediaType.APPLICATION_JSON_VALUE)
    ContainsResponse contains(@PathVariable("id") String id, @RequestBody JsonNode body,
                              @RequestHeader(name = "X-Follow-Token", required = false) String token) {
        long follower = UserIds.parse(id, "id");
        long[] ids = distinctSorted(parseIds(body));
        boolean[] answers = checker.areFollowing(follower, ids, token);
        int yes = 0;
        for (boolean a : answers) {
            yes += a ? 1 : 0;
        }
        long[] following = new long[yes];
        long[] notFollowing = new long[ids.length - yes];
        int f = 0;
        int n = 0;
        for (int i = 0; i < ids.length; i++) {
            if (answers[i]) {
                following[f++] = ids[i];
            } else {
                notFollowing[n++] = ids[i];
            }
        }
        return new ContainsResponse(following, notFollowing);
    }

    @GetMapping("/following")
    ListResponse following(@PathVariable("id") String id, @RequestParam(name = "limit", required = false) String limit,
                           @RequestParam(name = "cursor", required = false) String cursor) {
        long owner = UserIds.parse(id, "id");
        int size = Params.limit(limit, properties.defaultLimit(), properties.maxLimit());
        CursorPosition at = position(cursor, ListKind.FOLLOWING, owner);
        Page page = at == null ? lists.following(owner, 0, Page.START, size)
                : lists.following(owner, at.followedAt(), at.userId(), size);
        return listResponse(page, ListKind.FOLLOWING, owner);
    }

    @GetMapping("/followers")
    ListResponse followers(@PathVariable("id") String id, @RequestParam(name = "limit", required = false) String limit,
                           @RequestParam(name = "cursor", required = false) String cursor) {
        long owner = UserIds.parse(id, "id");
        int size = Params.limit(limit, properties.defaultLimit(), properties.maxLimit());
        CursorPosition at = position(cursor, ListKind.FOLLOWERS, owner);
        Page page = at == null ? lists.followers(owner, 0, Page.START, size)
                : lists.followers(owner, at.followedAt(), at.userId(), size);
        return listResponse(page, ListKind.FOLLOWERS, owner);
    }

    @GetMapping("/counts")
    FollowLists.Counts counts(@PathVariable("id") String id) {
        return lists.counts(UserIds.parse(id, "id"));
    }

    @GetMapping("/common-following/{otherId}")
    CommonResponse commonFollowing(@PathVariable("id") String id, @PathVariable("otherId") String otherId,
                                   @RequestParam(name = "limit", required = false) String limit,
                                   @RequestParam(name = "cursor", required = false) String cursor) {
        long a = UserIds.parse(id, "id");
        long b = UserIds.parse(otherId, "otherId");
        int size = Params.limit(limit, properties.defaultLimit(), properties.maxLimit());
        long after = cursor == null ? 0 : cursors.decode(cursor, ListKind.COMMON, a).userId();
        FollowLists.CommonPage page = lists.commonFollowing(a, b, after, size);
        List<CommonItem> items = new ArrayList<>(page.ids().length);
        for (long userId : page.ids()) {
            items.add(new CommonItem(userId));
        }
        String next = page.hasMore() ? cursors.encode(ListKind.COMMON, a, 0, page.ids()[page.ids().length - 1]) : null;
        return new CommonResponse(items, next);
    }

    @GetMapping("/relationship/{otherId}")
    RelationshipResponse relationship(@PathVariable("id") String id, @PathVariable("otherId") String otherId,
                                      @RequestHeader(name = "X-Follow-Token", required = false) String token) {
        long a = UserIds.parse(id, "id");
        long b = UserIds.parse(otherId, "otherId");
        // A follow token proves only its own actor's writes: it is verified against each direction's follower.
        return new RelationshipResponse(checker.isFollowing(a, b, token), checker.isFollowing(b, a, token));
    }

    /** {@code {items:[{userId, mutualCount}]}}, best first. */
    record SuggestionsResponse(List<Suggestions.Suggestion> items) {
    }

    @GetMapping("/suggestions")
    SuggestionsResponse suggestions(@PathVariable("id") String id,
                                    @RequestParam(name = "limit", required = false) String limit) {
        long user = UserIds.parse(id, "id");
        int size = Params.limit(limit, properties.defaultLimit(), properties.suggestionsMax());
        return new SuggestionsResponse(suggestions.suggest(user, size));
    }

    /** The position after which to continue, or {@code null} for the first page. */
    private CursorPosition position(String cursor, ListKind kind, long owner) {
        return cursor == null ? null : cursors.decode(cursor, kind, owner);
    }

    private ListResponse listResponse(Page page, ListKind kind, long owner) {
        List<Item> items = new ArrayList<>(page.size());
        for (int i = 0; i < page.size(); i++) {
            items.add(new Item(page.ids()[i], page.followedAt()[i]));
        }
        String next = page.hasMore() ? cursors.encode(kind, owner, page.lastFollowedAt(), page.lastId()) : null;
        return new ListResponse(items, next);
    }

    private long[] parseIds(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new BadParameterException("body", "body must be a JSON object {\"ids\": [...]}");
        }
        JsonNode ids = body.get("ids");
        if (ids == null || !ids.isArray()) {
            throw new BadParameterException("ids", "ids must be an array of user ids");
        }
        if (ids.size() > properties.batchMax()) {
            throw new BadParameterException("ids",
                    "ids holds " + ids.size() + " ids; at most " + properties.batchMax() + " are allowed");
        }
        long[] out = new long[ids.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode node = ids.get(i);
            String field = "ids[" + i + "]";
            if (node.isIntegralNumber() && node.canConvertToLong()) {
                out[i] = UserIds.requirePositive(node.longValue(), field);
            } else if (node.isString()) {
                out[i] = UserIds.parse(node.stringValue(), field);
            } else {
                throw new BadParameterException(field, field + " must be a positive integer user id");
            }
        }
        return out;
    }

    private static long[] distinctSorted(long[] ids) {
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        int n = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[n++] = sorted[i];
            }
        }
        return Arrays.copyOf(sorted, n);
    }
}
