package dev.socialgraph.check.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.lists.FollowLists;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.check.relations.RelationReads;
import dev.socialgraph.check.suggest.Suggestions;
import dev.socialgraph.common.cursor.CursorCodec;
import dev.socialgraph.common.cursor.CursorPosition;
import dev.socialgraph.common.cursor.ListKind;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.web.BadParameterException;
import dev.socialgraph.web.ProtectedAccountException;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.FollowingAnswer;
import dev.socialgraph.wire.FollowingPairs;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.ReadBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.concurrent.Callable;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * The internal read API of DESIGN.md 6 ({@code /internal/v1/users/...}, explicit ids; the gateway maps the public
 * paths here), as WebFlux handler functions routed by {@link ReadRoutes}. They only translate HTTP: path variables,
 * parameters and bodies are taken as text and parsed here so that every error names its parameter
 * ({@link BadParameterException}, {@link dev.socialgraph.common.id.InvalidUserIdException}, answered by graph-web's
 * problem mapping), each question is one call of {@link GraphReads}, which owns every rule of what is visible, and
 * its answer is written as JSON.
 *
 * <p><b>Threads.</b> The single and batch checks and the relationship are asked first on the server's I/O thread
 * ({@code mayBlock == false}): when memory answers, the answer goes out with no hand-off; otherwise the same read is
 * asked again on {@code blockingReads}, a bounded scheduler of blocking threads, with nothing carried over but the
 * request's own values. The hidden-authors check reads nothing when the filter rules out every author. Every other
 * read may wait for Redis or a shard database and runs on {@code blockingReads}, so that no I/O thread ever waits.
 * Each request's {@code X-Follow-Token} is verified once ({@link GraphReads#writer}).
 */
final class GraphReadHandlers {

    /** {@code {"following":true|false}}: the two possible bodies of the hot path, encoded once ({@link FollowingAnswer}). */
    static final byte[] FOLLOWING = FollowingAnswer.bytes(true);
    static final byte[] NOT_FOLLOWING = FollowingAnswer.bytes(false);
    private static final String FOLLOW_TOKEN = Headers.FOLLOW_TOKEN;
    /** Who asks, when the gateway knows: the token's subject. */
    static final String VIEWER = Headers.VIEWER_ID;

    private final GraphReads reads;
    private final CheckProperties properties;
    private final CursorCodec cursors;
    private final Scheduler blockingReads;
    /** The GET reads answered by {@link #read}: those of {@link ReadBatch#SERVED}, suggestions, blocks, mutes. */
    static final List<Endpoint> READS = List.of(InternalApi.FOLLOWING, InternalApi.FOLLOWERS, InternalApi.COUNTS,
            InternalApi.COMMON_FOLLOWING, InternalApi.KNOWN_FOLLOWERS, InternalApi.RELATIONSHIP,
            InternalApi.FOLLOW_REQUESTS, InternalApi.SUGGESTIONS, InternalApi.BLOCKING, InternalApi.MUTING);

    /** Each of {@link #READS}, by its endpoint. */
    private final Map<Endpoint, Function<ReadRequest, Mono<?>>> readers = Map.of(
            InternalApi.FOLLOWING, this::following, InternalApi.FOLLOWERS, this::followers,
            InternalApi.COUNTS, this::counts, InternalApi.COMMON_FOLLOWING, this::commonFollowing,
            InternalApi.KNOWN_FOLLOWERS, this::knownFollowers, InternalApi.RELATIONSHIP, this::relationship,
            InternalApi.FOLLOW_REQUESTS, this::followRequests, InternalApi.SUGGESTIONS, this::suggestions,
            InternalApi.BLOCKING, this::blocking, InternalApi.MUTING, this::muting);

    /**
     * @param reads         every read, with its visibility rules
     * @param properties    page sizes, the batch bound and the cursor key
     * @param blockingReads where reads that may block run (bounded threads and queue)
     */
    GraphReadHandlers(GraphReads reads, CheckProperties properties, Scheduler blockingReads) {
        this.reads = reads;
        this.properties = properties;
        this.cursors = new CursorCodec(properties.cursorKey().getBytes(StandardCharsets.UTF_8));
        this.blockingReads = blockingReads;
    }

    /** Batch answer; both arrays ascending, each id once. */
    record ContainsResponse(@JsonSerialize(using = UserIdJson.Ids.class) long[] following,
                            @JsonSerialize(using = UserIdJson.Ids.class) long[] notFollowing) {
    }

    /** One list item. */
    record Item(@JsonSerialize(using = UserIdJson.Id.class) long userId, long followedAt) {
    }

    /** One page of a list; {@code nextCursor} is {@code null} on the last page. */
    record ListResponse(List<Item> items, String nextCursor) {
    }

    /** One common-following item. */
    record CommonItem(@JsonSerialize(using = UserIdJson.Id.class) long userId) {
    }

    /** One page of common following, ascending by id. */
    record CommonResponse(List<CommonItem> items, String nextCursor) {
    }

    /**
     * Both directions between two users, and the blocks and mute between them. While a block stands either way,
     * neither follow is shown: a follow the block's event has not removed yet is never reported.
     *
     * <p>With a viewer ({@value #VIEWER}, set by the gateway from the token), {@code blocking} and {@code blockedBy}
     * are present only when the viewer is {@code a} or {@code b}, and {@code muting} only when it is {@code a}; an
     * absent field is left out of the JSON. Without one (the internal API), all are present.
     *
     * <p>A protected account's follows (docs/decisions/0064-follow-requests.md) are left out for a viewer who is
     * neither the account nor one of its followers: {@code following} when {@code a} is such an account,
     * {@code followedBy} when {@code b} is. The pending requests between the two are shown to them only.
     *
     * @param following        a follows b, or {@code null} when hidden from the viewer
     * @param followedBy       b follows a, or {@code null} when hidden from the viewer
     * @param blocking         a blocks b, or {@code null} when hidden from the viewer
     * @param blockedBy        b blocks a, or {@code null} when hidden from the viewer
     * @param muting           a mutes b, or {@code null} when hidden from the viewer
     * @param protectedAccount b is a protected account (JSON {@code protected})
     * @param requested        a asked to follow b and waits, or {@code null} when hidden from the viewer
     * @param requestedBy      b asked to follow a and waits, or {@code null} when hidden from the viewer
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record RelationshipResponse(Boolean following, Boolean followedBy, Boolean blocking, Boolean blockedBy,
                                Boolean muting, @JsonProperty("protected") boolean protectedAccount,
                                Boolean requested, Boolean requestedBy) {

        static RelationshipResponse of(GraphReads.Relationship relationship) {
            return new RelationshipResponse(relationship.following(), relationship.followedBy(),
                    relationship.blocking(), relationship.blockedBy(), relationship.muting(),
                    relationship.protectedAccount(), relationship.requested(), relationship.requestedBy());
        }
    }

    /** One item of a block or mute list: the target and when the relation was created, epoch ms. */
    record RelationItem(@JsonSerialize(using = UserIdJson.Id.class) long userId, long createdAt) {
    }

    /** One page of a block or mute list, newest first; {@code nextCursor} is {@code null} on the last page. */
    record RelationListResponse(List<RelationItem> items, String nextCursor) {
    }

    /** Which of the asked authors the viewer blocks, is blocked by, or mutes; each ascending. */
    record HiddenResponse(@JsonSerialize(using = UserIdJson.Ids.class) long[] blocking,
                          @JsonSerialize(using = UserIdJson.Ids.class) long[] blockedBy,
                          @JsonSerialize(using = UserIdJson.Ids.class) long[] muting) {

        static HiddenResponse of(RelationReads.Hidden hidden) {
            return new HiddenResponse(hidden.blocking(), hidden.blockedBy(), hidden.muting());
        }
    }

    /** {@code {items:[{userId, mutualCount}]}}, best first. */
    record SuggestionsResponse(List<Suggestions.Suggestion> items) {
    }

    /**
     * {@code GET /internal/v1/users/{id}/following/{targetId}}: {@code {"following":true|false}}, as
     * {@link GraphReads#isFollowing} decides: on this (I/O) thread when memory holds the answer, else on a blocking
     * thread.
     */
    Mono<ServerResponse> isFollowing(ServerRequest request) {
        long follower = UserIds.parse(request.pathVariable("id"), "id");
        long followee = UserIds.parse(request.pathVariable("targetId"), "targetId");
        long writer = reads.writer(followToken(request)); // verified once for the whole request
        long viewer = viewer(request.headers().firstHeader(VIEWER));
        if (request.uri().getRawQuery() != null) {
            UserIdJson.asStrings(param(request, UserIdJson.PARAMETER)); // no id in this answer; only refuse bad values
        }
        int answer = sees(viewer, follower, "id", writer, false) == Answer.YES
                ? reads.isFollowing(follower, followee, writer, false) : Answer.NEXT;
        if (Answer.isAnswer(answer)) {
            return check(answer == Answer.YES);
        }
        return blocking(() -> sees(viewer, follower, "id", writer, true) == Answer.YES
                && reads.isFollowing(follower, followee, writer, true) == Answer.YES)
                .flatMap(GraphReadHandlers::check);
    }

    /**
     * Whether the viewer may see {@code owner}'s follows ({@link GraphReads#maySeeFollows}).
     *
     * @param field the request field naming {@code owner}
     * @return {@link Answer#YES}, or {@link Answer#NEXT} when {@code !mayBlock} and a layer would block
     * @throws ProtectedAccountException when the viewer may not: 403 {@code protected-account} naming {@code field}
     */
    private int sees(long viewer, long owner, String field, long writer, boolean mayBlock) {
        int may = reads.maySeeFollows(viewer, owner, writer, mayBlock);
        if (may == Answer.NO) {
            throw new ProtectedAccountException(owner, field);
        }
        return may;
    }

    /**
     * The viewer a request names ({@value #VIEWER}, set by the gateway from the token), or
     * {@link GraphReads#ANY_VIEWER} without one (a backend, with the service credential).
     *
     * @throws dev.socialgraph.common.id.InvalidUserIdException naming {@value #VIEWER} when it is not a user id
     */
    private static long viewer(String header) {
        return header == null ? GraphReads.ANY_VIEWER : UserIds.parse(header, VIEWER);
    }

    private static Mono<ServerResponse> check(boolean following) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON)
                .bodyValue(following ? FOLLOWING : NOT_FOLLOWING);
    }

    /**
     * {@code POST /internal/v1/users/{id}/following/contains} {@code {"ids":[...]}} (at most
     * {@code graph.check.batch-max}): {@link ContainsResponse}.
     */
    Mono<ServerResponse> contains(ServerRequest request) {
        long follower = UserIds.parse(request.pathVariable("id"), "id");
        long writer = reads.writer(followToken(request)); // verified once for the whole request
        long viewer = viewer(request.headers().firstHeader(VIEWER));
        return request.bodyToMono(JsonNode.class)
                .switchIfEmpty(Mono.error(() -> new BadParameterException("body",
                        "body must be a JSON object {\"ids\": [...]}")))
                .flatMap(body -> {
                    long[] ids = distinctSorted(parseIds(body));
                    boolean[] known = sees(viewer, follower, "id", writer, false) == Answer.YES
                            ? reads.areFollowing(follower, ids, writer, false) : null;
                    if (known != null) {
                        return json(request, contained(ids, known));
                    }
                    return blocking(() -> {
                        sees(viewer, follower, "id", writer, true);
                        return contained(ids, reads.areFollowing(follower, ids, writer, true));
                    }).flatMap(answer -> json(request, answer));
                });
    }

    /**
     * {@code GET /internal/v1/users/{id}/following?limit&cursor}: {@link ListResponse}, newest first. Lists, counts and
     * common following are answered on this (I/O) thread when memory holds them, else on a blocking thread.
     */
    Mono<?> following(ReadRequest request) {
        return page(request, ListKind.FOLLOWING);
    }

    /** {@code GET /internal/v1/users/{id}/followers?limit&cursor}: {@link ListResponse}, newest first. */
    Mono<?> followers(ReadRequest request) {
        return page(request, ListKind.FOLLOWERS);
    }

    private Mono<?> page(ReadRequest request, ListKind kind) {
        long owner = UserIds.parse(request.pathVariable("id"), "id");
        int size = Params.limit(request.param("limit"), properties.defaultLimit(), properties.maxLimit());
        CursorPosition after = position(request, kind, owner);
        long writer = reads.writer(followToken(request)); // read-your-writes: the token's user's own edges
        long viewer = viewer(request.header(VIEWER));
        GraphReads.VisiblePage inMemory = sees(viewer, owner, "id", writer, false) == Answer.YES
                ? page(kind, owner, after, size, writer, false) : null;
        if (inMemory != null) {
            return Mono.just(listResponse(inMemory, kind, owner));
        }
        return orBlocking(request, () -> {
            sees(viewer, owner, "id", writer, true);
            return listResponse(page(kind, owner, after, size, writer, true), kind, owner);
        });
    }

    private GraphReads.VisiblePage page(ListKind kind, long owner, CursorPosition after, int size, long writer,
                                        boolean mayBlock) {
        return kind == ListKind.FOLLOWING ? reads.following(owner, after, size, writer, mayBlock)
                : reads.followers(owner, after, size, writer, mayBlock);
    }

    private ListResponse listResponse(GraphReads.VisiblePage page, ListKind kind, long owner) {
        return new ListResponse(items(page, Item::new), next(page, kind, owner));
    }

    /** An item of a page: a user and its time, epoch ms. */
    @FunctionalInterface
    private interface ItemOf<T> {
        T of(long userId, long at);
    }

    /** The page's users with their times, in order, each as {@code item} makes it. */
    private static <T> List<T> items(GraphReads.VisiblePage page, ItemOf<T> item) {
        List<T> items = new ArrayList<>(page.ids().length);
        for (int i = 0; i < page.ids().length; i++) {
            items.add(item.of(page.ids()[i], page.times()[i]));
        }
        return items;
    }

    /** The position the request's {@code cursor} carries, or {@code null} for the first page. */
    private CursorPosition position(ReadRequest request, ListKind kind, long owner) {
        String cursor = request.param("cursor");
        return cursor == null ? null : cursors.decode(cursor, kind, owner);
    }

    /** The page's {@code nextCursor}, {@code null} on the last page. */
    private String next(GraphReads.VisiblePage page, ListKind kind, long owner) {
        return page.next() == null ? null : cursors.encode(kind, owner, page.next());
    }

    /**
     * {@code GET /internal/v1/users/{id}/counts}: {@code {followers, following}}, from memory or the rows' count
     * columns.
     */
    Mono<?> counts(ReadRequest request) {
        long user = UserIds.parse(request.pathVariable("id"), "id");
        long writer = reads.writer(followToken(request)); // read-your-writes: the token's user's own edges
        FollowLists.Counts inMemory = reads.counts(user, writer, false);
        if (inMemory != null) {
            return Mono.just(inMemory);
        }
        return orBlocking(request, () -> reads.counts(user, writer, true));
    }

    /** {@code GET /internal/v1/users/{id}/common-following/{otherId}?limit&cursor}: {@link CommonResponse}. */
    Mono<?> commonFollowing(ReadRequest request) {
        long a = UserIds.parse(request.pathVariable("id"), "id");
        long b = UserIds.parse(request.pathVariable("otherId"), "otherId");
        int size = Params.limit(request.param("limit"), properties.defaultLimit(), properties.maxLimit());
        String cursor = request.param("cursor");
        long after = cursor == null ? 0 : cursors.decode(cursor, ListKind.COMMON, a).userId();
        long writer = reads.writer(followToken(request)); // read-your-writes: the token's user's own edges
        long viewer = viewer(request.header(VIEWER));
        GraphReads.VisiblePage inMemory = sees(viewer, a, "id", writer, false) == Answer.YES
                && sees(viewer, b, "otherId", writer, false) == Answer.YES
                ? reads.commonFollowing(a, b, after, size, writer, false) : null;
        if (inMemory != null) {
            return Mono.just(commonResponse(inMemory, a));
        }
        return orBlocking(request, () -> {
            sees(viewer, a, "id", writer, true);
            sees(viewer, b, "otherId", writer, true);
            return commonResponse(reads.commonFollowing(a, b, after, size, writer, true), a);
        });
    }

    /**
     * {@code GET /internal/v1/users/{id}/followers/known?limit&cursor} with {@code X-Viewer-Id} (required):
     * {@link ListResponse}, the followers of {@code id} whom the viewer follows, newest first by the viewer's follow
     * ({@link GraphReads#knownFollowers}). It walks the viewer's following row and asks, a chunk at a time, which of
     * those users follow {@code id}: on this (I/O) thread when memory holds the viewer's row and can answer for every
     * candidate asked (the bloom filter's "no", or the candidate's row), else on a blocking thread, where the rest
     * are one statement per following database.
     */
    Mono<?> knownFollowers(ReadRequest request) {
        long user = UserIds.parse(request.pathVariable("id"), "id");
        long viewer = UserIds.parse(request.header(VIEWER), VIEWER);
        int size = Params.limit(request.param("limit"), properties.defaultLimit(), properties.maxLimit());
        CursorPosition after = position(request, ListKind.KNOWN_FOLLOWERS, viewer);
        long writer = reads.writer(followToken(request)); // read-your-writes: the viewer's own follows
        GraphReads.VisiblePage inMemory = sees(viewer, user, "id", writer, false) == Answer.YES
                ? reads.knownFollowers(viewer, user, after, size, writer, false) : null;
        if (inMemory != null) {
            return Mono.just(listResponse(inMemory, ListKind.KNOWN_FOLLOWERS, viewer));
        }
        return orBlocking(request, () -> {
            sees(viewer, user, "id", writer, true); // a protected account's followers, known or not
            return listResponse(reads.knownFollowers(viewer, user, after, size, writer, true),
                    ListKind.KNOWN_FOLLOWERS, viewer);
        });
    }

    private CommonResponse commonResponse(GraphReads.VisiblePage page, long a) {
        List<CommonItem> items = new ArrayList<>(page.ids().length);
        for (long userId : page.ids()) {
            items.add(new CommonItem(userId));
        }
        return new CommonResponse(items, next(page, ListKind.COMMON, a));
    }

    /**
     * {@code GET /internal/v1/users/{id}/relationship/{otherId}}: {@link RelationshipResponse}, as
     * {@link GraphReads#relationship} decides: on this (I/O) thread when memory holds it, else on a blocking thread.
     */
    Mono<?> relationship(ReadRequest request) {
        long a = UserIds.parse(request.pathVariable("id"), "id");
        long b = UserIds.parse(request.pathVariable("otherId"), "otherId");
        long writer = reads.writer(followToken(request)); // verified once for the whole request
        long viewer = viewer(request.header(VIEWER));
        GraphReads.Relationship answered = reads.relationship(a, b, writer, viewer, false);
        if (answered != null) {
            return Mono.just(RelationshipResponse.of(answered));
        }
        return orBlocking(request, () -> RelationshipResponse.of(reads.relationship(a, b, writer, viewer, true)));
    }

    /** One pending follow request: the other user, and when the request was made, epoch ms. */
    record RequestItem(@JsonSerialize(using = UserIdJson.Id.class) long userId, long requestedAt) {
    }

    /** One page of pending follow requests, newest first; {@code nextCursor} is {@code null} on the last page. */
    record RequestListResponse(List<RequestItem> items, String nextCursor) {
    }

    /**
     * {@code GET /internal/v1/users/{id}/follow-requests?direction&limit&cursor}: {@link RequestListResponse}, newest
     * first ({@link GraphReads#followRequests}): {@code direction=incoming} (the default) the requests to {@code id},
     * {@code outgoing} {@code id}'s own. Read from the shards, on a blocking thread.
     *
     * @throws BadParameterException naming {@code direction} for any other value
     */
    Mono<?> followRequests(ReadRequest request) {
        long owner = UserIds.parse(request.pathVariable("id"), "id");
        String direction = request.param(InternalApi.DIRECTION);
        if (direction != null && !direction.equals("incoming") && !direction.equals("outgoing")) {
            throw new BadParameterException(InternalApi.DIRECTION, "direction must be incoming or outgoing");
        }
        boolean incoming = direction == null || direction.equals("incoming");
        ListKind kind = incoming ? ListKind.REQUESTS_INCOMING : ListKind.REQUESTS_OUTGOING;
        int size = Params.limit(request.param("limit"), properties.defaultLimit(), properties.maxLimit());
        CursorPosition after = position(request, kind, owner);
        return orBlocking(request, () -> {
            GraphReads.VisiblePage page = reads.followRequests(owner, incoming, after, size);
            return new RequestListResponse(items(page, RequestItem::new), next(page, kind, owner));
        });
    }

    /** {@code GET /internal/v1/users/{id}/blocking?limit&cursor}: {@link RelationListResponse}, newest first. */
    Mono<?> blocking(ReadRequest request) {
        return relationPage(request, Relation.BLOCK, ListKind.BLOCKING);
    }

    /** {@code GET /internal/v1/users/{id}/muting?limit&cursor}: {@link RelationListResponse}, newest first. */
    Mono<?> muting(ReadRequest request) {
        return relationPage(request, Relation.MUTE, ListKind.MUTING);
    }

    private Mono<?> relationPage(ReadRequest request, Relation relation, ListKind kind) {
        long owner = UserIds.parse(request.pathVariable("id"), "id");
        int size = Params.limit(request.param("limit"), properties.defaultLimit(), properties.maxLimit());
        CursorPosition after = position(request, kind, owner);
        return orBlocking(request, () -> {
            GraphReads.VisiblePage page = reads.relationList(relation, owner, after, size);
            return new RelationListResponse(items(page, RelationItem::new), next(page, kind, owner));
        });
    }

    /**
     * {@code POST /internal/v1/users/{id}/hidden} {@code {"ids":[...]}} (at most {@code graph.check.batch-max}):
     * {@link HiddenResponse}. Answered on the I/O thread when the in-process filter of hidden pairs rules out every
     * author, the common case; otherwise the viewer's rows are read on a blocking thread. A follow token of the viewer
     * (header {@code X-Follow-Token}, from its block or mute reply) skips the filter: read-your-writes.
     */
    Mono<ServerResponse> hidden(ServerRequest request) {
        long viewer = UserIds.parse(request.pathVariable("id"), "id");
        long writer = reads.writer(followToken(request)); // verified once for the whole request
        return request.bodyToMono(JsonNode.class)
                .switchIfEmpty(Mono.error(() -> new BadParameterException("body",
                        "body must be a JSON object {\"ids\": [...]}")))
                .flatMap(body -> {
                    long start = System.nanoTime();
                    long[] candidates = reads.mayBeHidden(viewer, distinctSorted(parseIds(body)), writer);
                    if (candidates.length == 0) { // nothing to read
                        return json(request, HiddenResponse.of(reads.hidden(viewer, candidates, start)));
                    }
                    return blocking(() -> HiddenResponse.of(reads.hidden(viewer, candidates, start)))
                            .flatMap(answer -> json(request, answer));
                });
    }

    /** {@code GET /internal/v1/users/{id}/suggestions?limit}: {@link SuggestionsResponse}. */
    Mono<?> suggestions(ReadRequest request) {
        long user = UserIds.parse(request.pathVariable("id"), "id");
        int size = Params.limit(request.param("limit"), properties.defaultLimit(), properties.suggestionsMax());
        return orBlocking(request, () -> new SuggestionsResponse(reads.suggestions(user, size)));
    }

    /**
     * One of {@link #READS}, asked as its own request or inside a batch ({@link ReadBatch#SERVED}): its answer's body,
     * a response record of this class (or {@link FollowLists.Counts}, a {@link Suggestions} list), at once when memory
     * holds it, else from a blocking thread, or, for a read asked of memory only ({@link ReadRequest#memoryOnly}),
     * empty. Bad input throws before the {@link Mono} is returned, as each read's own parsing does: {@link
     * BadParameterException}, {@link dev.socialgraph.common.id.InvalidUserIdException}, or the cursor's error, each
     * naming its parameter.
     *
     * @param endpoint one of {@link #READS}
     * @param request  its variables, parameters and headers
     * @return the body; a store's failure as the read's error
     */
    Mono<?> read(Endpoint endpoint, ReadRequest request) {
        return readers.get(endpoint).apply(request);
    }

    /**
     * The route of one of {@link #READS} asked as its own request.
     *
     * @param endpoint the read
     * @return its handler: the body as JSON ({@link #json})
     */
    HandlerFunction<ServerResponse> route(Endpoint endpoint) {
        if (!READS.contains(endpoint)) {
            throw new IllegalArgumentException("not one of the GET reads: " + endpoint);
        }
        return request -> read(endpoint, ReadRequest.of(request)).flatMap(body -> json(request, body));
    }

    /**
     * A read's body as its own request's answer would carry it.
     *
     * @param body    what {@link #read} gave
     * @param request the read, whose {@code stringify_ids} says how ids are written
     * @return its UTF-8 JSON
     * @throws BadParameterException naming {@code stringify_ids} for a value other than {@code true} or {@code false}
     */
    static byte[] json(Object body, ReadRequest request) {
        return UserIdJson.write(body, UserIdJson.asStrings(request.param(UserIdJson.PARAMETER)));
    }

    /**
     * The request's {@code X-Follow-Token}, or {@code null}.
     *
     * @throws BadParameterException naming {@code X-Follow-Token} when it is longer than any token
     *                               ({@link FollowingPairs#followToken})
     */
    private static String followToken(ServerRequest request) {
        return followToken(request.headers().firstHeader(FOLLOW_TOKEN));
    }

    /** As {@link #followToken(ServerRequest)}, for a read. */
    private static String followToken(ReadRequest request) {
        return followToken(request.header(FOLLOW_TOKEN));
    }

    /** As {@link #followToken(ServerRequest)}, for the header's value. */
    private static String followToken(String value) {
        return FollowingPairs.followToken(value, FOLLOW_TOKEN);
    }

    private <T> Mono<T> blocking(Callable<T> read) {
        return Mono.fromCallable(read).subscribeOn(blockingReads);
    }

    /** {@code read} on a blocking thread; for a read asked of memory only ({@link ReadRequest#memoryOnly}), none. */
    private <T> Mono<T> orBlocking(ReadRequest request, Callable<T> read) {
        return request.memoryOnly() ? Mono.empty() : blocking(read);
    }

    /**
     * A JSON answer; with {@code stringify_ids=true} every user id in it as a string ({@link UserIdJson}).
     *
     * @throws BadParameterException naming {@code stringify_ids} for a value other than {@code true} or {@code false}
     */
    private static Mono<ServerResponse> json(ServerRequest request, Object body) {
        ServerResponse.BodyBuilder ok = ServerResponse.ok().contentType(MediaType.APPLICATION_JSON);
        return UserIdJson.asStrings(param(request, UserIdJson.PARAMETER)) ? ok.bodyValue(UserIdJson.write(body))
                : ok.bodyValue(body);
    }

    /** The first value of a query parameter, or {@code null}. */
    private static String param(ServerRequest request, String name) {
        return request.queryParams().getFirst(name);
    }

    private static ContainsResponse contained(long[] ids, boolean[] answers) {
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
            out[i] = FollowingPairs.userId(ids.get(i), "ids[" + i + "]");
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
