package dev.socialgraph.check.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.store.FollowingRow;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.mock.web.reactive.function.server.MockServerRequest;
import org.springframework.web.reactive.function.server.EntityResponse;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@link GraphReadHandlers}' choice of thread, with the checker's layers as plain fakes and a scheduler that counts
 * what is handed to it: an answer the in-process layers hold never leaves the calling (I/O) thread; anything that
 * needs Redis or a shard goes to the blocking scheduler.
 */
class GraphReadHandlersTest {

    static final long A = 10;
    static final long B = 20;

    final Map<Long, long[]> local = new HashMap<>();
    final Map<Long, long[]> shard = new HashMap<>();
    final AtomicInteger hops = new AtomicInteger();
    final AtomicInteger shardReads = new AtomicInteger();
    boolean fresh = true;

    final FollowTokens tokens = new FollowTokens(
            "graph-read-handlers-test-secret-0123456789".getBytes(StandardCharsets.UTF_8), Clock.systemUTC());

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
                public boolean put(long followerId, long[] ids, long version, long ticket) {
                    return false;
                }
            },
            new FollowChecker.Cache() {
                @Override
                public int isFollowing(long followerId, long followeeId) {
                    return MISS;
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

    final CheckProperties properties = new Binder(new MapConfigurationPropertySource(Map.of()))
            .bindOrCreate("graph.check", CheckProperties.class);
    final GraphReadHandlers handlers = new GraphReadHandlers(checker, null, null, properties, reads);

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
    void relationship_inProcessDirectionsStayOnTheCallingThread() {
        local.put(A, new long[] {B});
        local.put(B, new long[0]);
        assertThat(relationship()).isEqualTo("RelationshipResponse[following=true, followedBy=false]");
        assertThat(hops).hasValue(0);

        local.remove(B); // B's direction needs the shard now
        assertThat(relationship()).isEqualTo("RelationshipResponse[following=true, followedBy=false]");
        assertThat(hops).hasValue(1);
        assertThat(shardReads).as("only B's row was read").hasValue(1);
    }

    @Test
    void badId_isRefusedBeforeAnyLayer() {
        MockServerRequest bad = MockServerRequest.builder().pathVariable("id", "abc").pathVariable("targetId", "2")
                .build();
        assertThatThrownBy(() -> handlers.isFollowing(bad)).isInstanceOf(InvalidUserIdException.class);
        assertThat(hops).hasValue(0);
        assertThat(shardReads).hasValue(0);
    }

    private String relationship() {
        MockServerRequest request = MockServerRequest.builder().pathVariable("id", String.valueOf(A))
                .pathVariable("otherId", String.valueOf(B)).build();
        return String.valueOf(((EntityResponse<?>) handlers.relationship(request).block()).entity());
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
