package dev.socialgraph.check.api;

import dev.socialgraph.check.accounts.AccountVisibility;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.check.relations.RelationReads;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.adjacency.Page;
import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.InactiveUsers;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.web.ProtectedAccountException;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.WireFormatException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.mock.web.reactive.function.server.MockServerRequest;
import org.springframework.web.reactive.function.server.EntityResponse;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link GraphReadHandlers}' choice of thread, with the checker's layers as plain fakes and a scheduler that counts
 * what is handed to it: an answer the in-process layers hold never leaves the calling (I/O) thread; anything that
 * needs Redis or a shard goes to the blocking scheduler.
 */
class GraphReadHandlersTest {

    static final long A = 10;
    static final long B = 20;
    static final JsonMapper JSON = JsonMapper.builder().build();

    final Map<Long, long[]> local = new HashMap<>();
    final Map<Long, long[]> shard = new HashMap<>();
    final AtomicInteger hops = new AtomicInteger();
    final AtomicInteger shardReads = new AtomicInteger();
    boolean fresh = true;

    /** Reads of the tokens' clock: {@link FollowTokens} reads it once for each genuine token it verifies. */
    final AtomicInteger tokenClockReads = new AtomicInteger();
    final FollowTokens tokens = new FollowTokens(
            "graph-read-handlers-test-secret-0123456789".getBytes(StandardCharsets.UTF_8), new Clock() {
                @Override
                public ZoneId getZone() {
                    return ZoneOffset.UTC;
                }

                @Override
                public Clock withZone(ZoneId zone) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public Instant instant() {
                    tokenClockReads.incrementAndGet();
                    return Instant.now();
                }
            });

    final Scheduler reads = Schedulers.fromExecutor(task -> {
        hops.incrementAndGet();
        task.run();
    });

    final FollowChecker checker = new FollowChecker(
            new FollowChecker.Bloom() {
                @Override
                public boolean covers(long followerId) {
                    return true;
                }

                @Override
                public boolean mightFollow(long followerId, long followeeId) {
                    return followerId == A && followeeId == B || followerId == B && followeeId == A;
                }
            },
            new FollowChecker.Local() {
                @Override
                public long[] following(long followerId) {
                    return local.get(followerId);
                }

                @Override
                public long ticket(long followerId) {
                    return 0;
                }

                @Override
                public FollowingRow row(long followerId) {
                    long[] ids = local.get(followerId);
                    return ids == null ? null : new FollowingRow(followerId, ids, new long[ids.length], ids.length);
                }

                @Override
                public boolean put(FollowingRow row, long ticket) {
                    return false;
                }
            },
            new FollowChecker.Cache() {
                @Override
                public int isFollowing(long followerId, long followeeId) {
                    return Answer.NEXT;
                }

                @Override
                public boolean[] areFollowing(long followerId, long[] followeeIds) {
                    return null;
                }

                @Override
                public void fill(long followerId, long[] followingIds, long version) {
                }
            },
            followerId -> {
                shardReads.incrementAndGet();
                long[] ids = shard.getOrDefault(followerId, new long[0]);
                return new FollowingRow(followerId, ids, new long[ids.length], ids.length);
            },
            () -> fresh, id -> false, tokens,
            Duration.ofSeconds(5), Runnable::run, new SimpleMeterRegistry());

    // The defaults but the two secrets, which have none.
    final CheckProperties properties = new Binder(new MapConfigurationPropertySource(Map.of(
            "graph.check.token-secret", "graph-read-handlers-test-token-secret-0123456789",
            "graph.check.cursor-key", "graph-read-handlers-test-cursor-key-0123456789")))
            .bindOrCreate("graph.check", CheckProperties.class);
    /** Blocks and mutes as {@code relation -> source -> sorted targets}; the filter of hidden pairs as a set. */
    final Map<Relation, Map<Long, long[]>> relationRows = new EnumMap<>(Relation.class);
    final Set<List<Long>> hiddenPairs = new HashSet<>();
    final AtomicInteger relationReads = new AtomicInteger();
    boolean filterTrusted = true;

    final RelationReads relations = new RelationReads(new RelationReads.Shards() {
        @Override
        public FollowingRow relationRow(Relation relation, long userId) {
            relationReads.incrementAndGet();
            long[] ids = relationRows.getOrDefault(relation, Map.of()).getOrDefault(userId, new long[0]);
            return new FollowingRow(userId, ids, new long[ids.length], ids.length);
        }

        @Override
        public boolean holds(Relation relation, long sourceId, long targetId) {
            relationReads.incrementAndGet();
            long[] ids = relationRows.getOrDefault(relation, Map.of()).getOrDefault(sourceId, new long[0]);
            return Arrays.binarySearch(ids, targetId) >= 0;
        }

        @Override
        public long[] blockedByAmong(long userId, long[] ids) {
            relationReads.incrementAndGet();
            return Arrays.stream(ids).filter(id -> holds(Relation.BLOCK, id, userId)).toArray();
        }

        @Override
        public Page incomingRequests(long userId, long cursorCreatedAt, long cursorId, int limit) {
            relationReads.incrementAndGet();
            long[] requesters = relationRows.getOrDefault(Relation.REQUEST, Map.of()).entrySet().stream()
                    .filter(e -> Arrays.binarySearch(e.getValue(), userId) >= 0).mapToLong(Map.Entry::getKey)
                    .sorted().toArray();
            return AdjacencyArray.newestFirst(requesters, new long[requesters.length], cursorCreatedAt, cursorId,
                    limit);
        }
    }, new RelationReads.Filter() {
        @Override
        public boolean trusted() {
            return filterTrusted;
        }

        @Override
        public boolean mayHide(long viewerId, long authorId) {
            return hiddenPairs.contains(List.of(viewerId, authorId));
        }
    }, new SimpleMeterRegistry());

    final InactiveUsers inactive = new InactiveUsers();
    /** The state rows, read with a follow token of their user; no row: active. */
    final Map<Long, AccountState> states = new HashMap<>();
    final AccountVisibility accounts = new AccountVisibility(inactive,
            id -> states.getOrDefault(id, AccountState.ACTIVE), true);
    final GraphReadHandlers handlers = new GraphReadHandlers(new GraphReads(checker, relations, accounts, null, null),
            properties, reads);

    GraphReadHandlersTest() {
        shard.put(A, new long[] {B});
    }

    @Test
    void bloomNo_isAnsweredWithoutAHop() {
        assertThat(body(handlers.isFollowing(check(A, 99)).block())).isEqualTo("{\"following\":false}");
        assertThat(hops).hasValue(0);
        assertThat(shardReads).hasValue(0);
    }

    @Test
    void inProcessCacheHit_isAnsweredWithoutAHop() {
        local.put(A, new long[] {B});
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":true}");
        assertThat(hops).hasValue(0);
    }

    @Test
    void cacheMiss_goesToTheBlockingScheduler_andReadsTheShard() {
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":true}");
        assertThat(hops).hasValue(1);
        assertThat(shardReads).hasValue(1);
    }

    @Test
    void laggingFeed_orAFollowToken_goToTheBlockingScheduler() {
        local.put(A, new long[0]); // stale: would say "no"
        fresh = false;
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":true}");
        fresh = true;
        MockServerRequest withToken = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("targetId", String.valueOf(B)).header("X-Follow-Token", tokens.issue(A)).build();
        assertThat(body(handlers.isFollowing(withToken).block())).isEqualTo("{\"following\":true}");
        assertThat(hops).hasValue(2);
    }

    @Test
    void inactiveUser_atEitherEnd_isNotFollowed_withoutAHop() {
        local.put(A, new long[] {B});
        inactive.apply(B, AccountState.DEACTIVATED);
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":false}");
        assertThat(relationship()).isEqualTo(relationshipOf(false, false, false, false, false));
        inactive.apply(B, AccountState.ACTIVE);
        inactive.apply(A, AccountState.ERASED);
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":false}");
        assertThat(hops).hasValue(0);

        inactive.apply(A, AccountState.ACTIVE); // reactivated: the edge is back as it was
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":true}");
    }

    @Test
    void aFollowTokenOfTheUser_readsItsStateRow_beforeTheViewHasIt() {
        local.put(A, new long[] {B});
        states.put(B, AccountState.DEACTIVATED); // just written; the view's poll has not run
        MockServerRequest withToken = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("targetId", String.valueOf(B)).header("X-Follow-Token", tokens.issue(B)).build();
        assertThat(body(handlers.isFollowing(withToken).block())).isEqualTo("{\"following\":false}");
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":true}");
    }

    @Test
    void relationship_inProcessDirectionsStayOnTheCallingThread() {
        local.put(A, new long[] {B});
        local.put(B, new long[0]);
        assertThat(relationship()).isEqualTo(relationshipOf(true, false, false, false, false));
        assertThat(hops).hasValue(0);

        local.remove(B); // B's direction needs the shard now
        assertThat(relationship()).isEqualTo(relationshipOf(true, false, false, false, false));
        assertThat(hops).hasValue(1);
        assertThat(shardReads).as("only B's row was read").hasValue(1);
        assertThat(relationReads).as("the filter ruled out every block and mute").hasValue(0);
    }

    @Test
    void relationship_whenTheFilterMayHideThePair_readsTheRelations_andHidesFollowsUnderABlock() {
        local.put(A, new long[0]);
        local.put(B, new long[] {A}); // B's follow of A, which A's block has not removed yet
        relationRows.put(Relation.BLOCK, Map.of(A, new long[] {B}));
        relationRows.put(Relation.MUTE, Map.of(A, new long[] {B}));
        hiddenPairs.addAll(List.of(List.of(A, B), List.of(B, A)));

        assertThat(relationship()).isEqualTo(relationshipOf(false, false, true, false, true));
        assertThat(hops).hasValue(1);
        assertThat(relationReads).hasValue(3);
    }

    @Test
    void relationship_whenTheFilterIsNotTrusted_readsTheRelations() {
        local.put(A, new long[] {B});
        local.put(B, new long[0]);
        filterTrusted = false; // feed lagging: a block may be on its way

        assertThat(relationship()).isEqualTo(relationshipOf(true, false, false, false, false));
        assertThat(hops).hasValue(1);
        assertThat(relationReads).hasValue(3);
    }

    @Test
    void hidden_whenTheFilterRulesOutEveryAuthor_isAnsweredWithoutAHop() {
        hiddenPairs.add(List.of(99L, 98L)); // another viewer's pair

        assertThat(hidden(A, "{\"ids\":[20,30,30,40]}"))
                .isEqualTo("HiddenResponse[blocking=[], blockedBy=[], muting=[]]");
        assertThat(hops).hasValue(0);
        assertThat(relationReads).hasValue(0);
    }

    @Test
    void hidden_readsOnlyTheAuthorsTheFilterCannotRuleOut() {
        relationRows.put(Relation.BLOCK, Map.of(A, new long[] {20}, 40L, new long[] {A}));
        relationRows.put(Relation.MUTE, Map.of(A, new long[] {30, 50}));
        hiddenPairs.addAll(List.of(List.of(A, 20L), List.of(A, 30L), List.of(A, 40L)));

        assertThat(hidden(A, "{\"ids\":[50,40,30,20,60]}"))
                .as("50 is muted, but the filter (wrongly) never saw it: the filter decides which rows are read")
                .isEqualTo("HiddenResponse[blocking=[20], blockedBy=[40], muting=[30]]");
        assertThat(hops).hasValue(1);

        filterTrusted = false;
        assertThat(hidden(A, "{\"ids\":[50,40,30,20,60]}"))
                .isEqualTo("HiddenResponse[blocking=[20], blockedBy=[40], muting=[30, 50]]");
    }

    /** A protected account's follows: the single and batch check, its lists and common following, to others 403. */
    @Test
    void aProtectedAccountsFollows_areRefusedToAViewerWhoIsNotItsFollower_namingItsField() {
        local.put(A, new long[] {B});
        local.put(B, new long[0]);
        inactive.apply(A, AccountState.ACTIVE, true);
        String stranger = String.valueOf(B); // B does not follow A
        List<Runnable> hidden = List.of(
                () -> handlers.isFollowing(MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                        .pathVariable("targetId", String.valueOf(B)).header("X-Viewer-Id", stranger).build()),
                () -> handlers.route(InternalApi.FOLLOWING).handle(MockServerRequest.builder()
                        .pathVariable("id", String.valueOf(A)).header("X-Viewer-Id", stranger).build()),
                () -> handlers.route(InternalApi.FOLLOWERS).handle(MockServerRequest.builder()
                        .pathVariable("id", String.valueOf(A)).header("X-Viewer-Id", stranger).build()));
        for (Runnable read : hidden) {
            assertThatThrownBy(read::run).isInstanceOfSatisfying(ProtectedAccountException.class, e -> {
                assertThat(e.userId()).isEqualTo(A);
                assertThat(e.field()).isEqualTo("id");
            });
        }
        assertThatThrownBy(() -> handlers.route(InternalApi.COMMON_FOLLOWING).handle(MockServerRequest.builder()
                .pathVariable("id", String.valueOf(B)).pathVariable("otherId", String.valueOf(A))
                .header("X-Viewer-Id", stranger).build()))
                .isInstanceOfSatisfying(ProtectedAccountException.class, e -> assertThat(e.field()).isEqualTo("otherId"));
        assertThatThrownBy(() -> handlers.contains(MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .header("X-Viewer-Id", stranger).body(Mono.just(JSON.readTree("{\"ids\":[20]}")))).block())
                .isInstanceOf(ProtectedAccountException.class);

        assertThat(body(handlers.isFollowing(MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("targetId", String.valueOf(B)).header("X-Viewer-Id", String.valueOf(A)).build())
                .block())).as("the account itself").isEqualTo("{\"following\":true}");
        assertThat(body(handlers.isFollowing(check(A, B)).block())).as("a backend").isEqualTo("{\"following\":true}");
        assertThat(hops).hasValue(0);
    }

    @Test
    void badId_isRefusedBeforeAnyLayer() {
        MockServerRequest bad = MockServerRequest.builder().pathVariable("id", "abc").pathVariable("targetId", "2")
                .build();
        assertThatThrownBy(() -> handlers.isFollowing(bad)).isInstanceOf(InvalidUserIdException.class);
        assertThat(hops).hasValue(0);
        assertThat(shardReads).hasValue(0);
    }

    /** No token is longer than 64 characters: a longer header is refused naming it, before any layer is asked. */
    @Test
    void aFollowTokenLongerThanAnyToken_isRefusedNamingTheHeader_beforeAnyLayer() {
        local.put(A, new long[] {B});
        String longest = "A".repeat(FollowTokens.MAX_LENGTH);
        String tooLong = longest + "A";
        MockServerRequest.Builder check = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("targetId", String.valueOf(B));
        assertThat(body(handlers.isFollowing(check.header("X-Follow-Token", longest).build()).block()))
                .as("64 characters that are no token: read as no token").isEqualTo("{\"following\":true}");
        int hopsBefore = hops.get();

        List<Runnable> reads = List.of(
                () -> handlers.isFollowing(MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                        .pathVariable("targetId", String.valueOf(B)).header("X-Follow-Token", tooLong).build()),
                () -> handlers.route(InternalApi.RELATIONSHIP).handle(MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                        .pathVariable("otherId", String.valueOf(B)).header("X-Follow-Token", tooLong).build()),
                () -> handlers.contains(MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                        .header("X-Follow-Token", tooLong).body(Mono.just(JSON.readTree("{\"ids\":[20]}")))),
                () -> handlers.hidden(MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                        .header("X-Follow-Token", tooLong).body(Mono.just(JSON.readTree("{\"ids\":[20]}")))));
        for (Runnable read : reads) {
            assertThatThrownBy(read::run).isInstanceOfSatisfying(WireFormatException.class, e -> {
                assertThat(e.field()).isEqualTo("X-Follow-Token");
                assertThat(e.getMessage()).contains("at most 64 characters").contains("was 65");
            });
        }
        assertThat(hops).hasValue(hopsBefore);
        assertThat(shardReads).hasValue(0);
    }

    /**
     * One request, one verification of its follow token, into the value every layer is given: the single check with
     * the followee's token verified it three times (the account rule for each user, again in the blocking step, then
     * the block rule), the HMAC up to five.
     */
    @Test
    void aFollowToken_isVerifiedOncePerRequest() {
        local.put(A, new long[] {B});
        local.put(B, new long[0]);
        String ofB = tokens.issue(B);
        int before = tokenClockReads.get();
        MockServerRequest check = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("targetId", String.valueOf(B)).header("X-Follow-Token", ofB).build();
        assertThat(body(handlers.isFollowing(check).block())).isEqualTo("{\"following\":true}");
        assertThat(tokenClockReads.get() - before).as("the single check").isEqualTo(1);

        MockServerRequest relationship = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("otherId", String.valueOf(B)).header("X-Follow-Token", ofB).build();
        assertThat(String.valueOf(((EntityResponse<?>) handlers.route(InternalApi.RELATIONSHIP).handle(relationship)
                .block()).entity()))
                .isEqualTo(relationshipOf(true, false, false, false, false));
        assertThat(tokenClockReads.get() - before).as("and the relationship").isEqualTo(2);
    }

    private static String relationshipOf(boolean following, boolean followedBy, boolean blocking, boolean blockedBy,
                                         boolean muting) {
        return new GraphReadHandlers.RelationshipResponse(following, followedBy, blocking, blockedBy, muting, false,
                false, false).toString();
    }

    @Test
    void check_ofAFollowUnderTheFolloweesBlock_isFalse_andOnlyAPairTheFilterMayHideReadsABlock() {
        local.put(A, new long[] {B}); // A still follows B: B's block of A has not been enforced yet
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":true}");
        assertThat(hops).hasValue(0);

        hiddenPairs.addAll(List.of(List.of(A, B), List.of(B, A)));
        relationRows.put(Relation.BLOCK, Map.of(B, new long[] {A}));
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":false}");
        assertThat(hops).hasValue(1);
        assertThat(relationReads).hasValue(1);

        relationRows.clear(); // a filter false positive: the read finds no block
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":true}");
        local.remove(A); // from the shard now
        relationRows.put(Relation.BLOCK, Map.of(B, new long[] {A}));
        assertThat(body(handlers.isFollowing(check(A, B)).block())).isEqualTo("{\"following\":false}");
    }

    /** A block or mute just written may not be in the filter yet: the writer's follow token skips the filter. */
    @Test
    void aFollowTokenOfTheWriter_skipsTheFilter_readYourWrites() {
        relationRows.put(Relation.BLOCK, Map.of(B, new long[] {A}));
        relationRows.put(Relation.MUTE, Map.of(B, new long[] {30}));
        local.put(A, new long[] {B});
        local.put(B, new long[0]);
        String ofB = tokens.issue(B);

        assertThat(hidden(B, "{\"ids\":[10,30]}")).as("the filter has not seen the writes")
                .isEqualTo("HiddenResponse[blocking=[], blockedBy=[], muting=[]]");
        MockServerRequest withToken = MockServerRequest.builder().pathVariable("id", String.valueOf(B))
                .header("X-Follow-Token", ofB).body(Mono.just(JSON.readTree("{\"ids\":[10,30]}")));
        GraphReadHandlers.HiddenResponse own = (GraphReadHandlers.HiddenResponse)
                ((EntityResponse<?>) handlers.hidden(withToken).block()).entity();
        assertThat(own.blocking()).containsExactly(A);
        assertThat(own.muting()).containsExactly(30);

        MockServerRequest relationship = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("otherId", String.valueOf(B)).header("X-Follow-Token", ofB).build();
        assertThat(String.valueOf(((EntityResponse<?>) handlers.route(InternalApi.RELATIONSHIP).handle(relationship)
                .block()).entity()))
                .isEqualTo(relationshipOf(false, false, false, true, false));

        MockServerRequest check = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("targetId", String.valueOf(B)).header("X-Follow-Token", ofB).build();
        assertThat(body(handlers.isFollowing(check).block())).as("A's follow of its blocker B, not yet removed")
                .isEqualTo("{\"following\":false}");
    }

    @Test
    void relationship_showsBlocksOnlyToTheTwoUsers_andTheMuteOnlyToTheMuter() {
        local.put(A, new long[0]);
        local.put(B, new long[0]);
        relationRows.put(Relation.BLOCK, Map.of(B, new long[] {A}));
        relationRows.put(Relation.MUTE, Map.of(A, new long[] {B}));
        hiddenPairs.addAll(List.of(List.of(A, B), List.of(B, A)));

        assertThat(relationship(A)).isEqualTo("RelationshipResponse[following=false, followedBy=false, "
                + "blocking=false, blockedBy=true, muting=true, protectedAccount=false, requested=false, requestedBy=false]");
        assertThat(relationship(B)).isEqualTo("RelationshipResponse[following=false, followedBy=false, "
                + "blocking=false, blockedBy=true, muting=null, protectedAccount=false, requested=false, requestedBy=false]");
        int readsBefore = relationReads.get();
        assertThat(relationship(99)).isEqualTo("RelationshipResponse[following=false, followedBy=false, "
                + "blocking=null, blockedBy=null, muting=null, protectedAccount=false, requested=null, requestedBy=null]");
        assertThat(relationReads).as("a third party's answer reads no relation").hasValue(readsBefore);
    }

    private String hidden(long viewer, String json) {
        MockServerRequest request = MockServerRequest.builder().pathVariable("id", String.valueOf(viewer))
                .body(Mono.just(JSON.readTree(json)));
        Object entity = ((EntityResponse<?>) handlers.hidden(request).block()).entity();
        GraphReadHandlers.HiddenResponse hidden = (GraphReadHandlers.HiddenResponse) entity;
        return "HiddenResponse[blocking=" + Arrays.toString(hidden.blocking()) + ", blockedBy="
                + Arrays.toString(hidden.blockedBy()) + ", muting=" + Arrays.toString(hidden.muting()) + "]";
    }

    private String relationship(long viewer) {
        MockServerRequest request = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("otherId", String.valueOf(B)).header("X-Viewer-Id", String.valueOf(viewer)).build();
        return String.valueOf(((EntityResponse<?>) handlers.route(InternalApi.RELATIONSHIP).handle(request).block())
                .entity());
    }

    private String relationship() {
        MockServerRequest request = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("otherId", String.valueOf(B)).build();
        return String.valueOf(((EntityResponse<?>) handlers.route(InternalApi.RELATIONSHIP).handle(request).block())
                .entity());
    }

    private static MockServerRequest check(long a, long b) {
        return MockServerRequest.builder().pathVariable("id", String.valueOf(a))
                .pathVariable("targetId", String.valueOf(b)).build();
    }

    private static String body(ServerResponse response) {
        assertThat(response.statusCode().value()).isEqualTo(200);
        return new String((byte[]) ((EntityResponse<?>) response).entity(), StandardCharsets.US_ASCII);
    }
}
