package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.gateway.LocalTokenBuckets.Decision;
import dev.socialgraph.gateway.TokenReservations.Reservation;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** {@link LocalTokenBuckets} with reservations answered by the test, on a clock the test moves. */
class LocalTokenBucketsTest {

    /** A reservation the test answers when it likes. */
    record Asked(String user, int wanted, Sinks.One<Reservation> reply) {
    }

    private final AtomicLong clock = new AtomicLong();
    private final List<Asked> asked = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private LocalTokenBuckets limiter(int batch) {
        return new LocalTokenBuckets((user, wanted) -> {
            Sinks.One<Reservation> reply = Sinks.one();
            asked.add(new Asked(user, wanted, reply));
            return reply.asMono();
        }, batch, clock::get, meters.counter("reservations"));
    }

    private static Decision now(Mono<Decision> decision) {
        // A decision made without Redis is there at once; one that waits is not (null here).
        return decision.toFuture().getNow(null);
    }

    @Test
    void firstRequest_waitsForABatch_thenTheBatchIsSpentLocallyAndTheNextReservedAhead() {
        LocalTokenBuckets limiter = limiter(4);
        Mono<Decision> first = limiter.acquire("u");
        var firstDecision = first.toFuture();
        assertThat(firstDecision).isNotDone();
        assertThat(asked).singleElement().extracting(Asked::wanted).isEqualTo(4);

        asked.get(0).reply().tryEmitValue(new Reservation(4, 0));
        assertThat(firstDecision.getNow(null)).isEqualTo(Decision.ALLOWED); // 3 left
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // 2 left: half a batch, reserve 2 ahead
        assertThat(asked).hasSize(2);
        assertThat(asked.get(1).wanted()).isEqualTo(2);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // 1 left, one reservation at a time
        assertThat(asked).hasSize(2);
        asked.get(1).reply().tryEmitValue(new Reservation(2, 0));           // 1 + 2 = 3 held
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // 2 left: reserve ahead again
        assertThat(asked).hasSize(3);
        assertThat(asked.get(2).wanted()).isEqualTo(2);                     // 2 held + 2: never more than the batch
    }

    @Test
    void whenRedisGrantsNothing_requestsAreRefusedLocallyUntilATokenIsDue() {
        LocalTokenBuckets limiter = limiter(2);
        var first = limiter.acquire("u").toFuture();
        asked.get(0).reply().tryEmitValue(new Reservation(0, 500_000)); // a token in 0.5 s
        assertThat(first.getNow(null)).isEqualTo(Decision.REJECTED);

        clock.addAndGet(499_000_000L);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.REJECTED);
        assertThat(asked).hasSize(1);

        clock.addAndGet(1_000_000L);
        var later = limiter.acquire("u").toFuture();
        assertThat(asked).hasSize(2);
        asked.get(1).reply().tryEmitValue(new Reservation(1, 0));
        assertThat(later.getNow(null)).isEqualTo(Decision.ALLOWED);
    }

    @Test
    void whenRedisFails_requestsWithoutLocalTokensSkipItForASecond() {
        LocalTokenBuckets limiter = limiter(2);
        var first = limiter.acquire("u").toFuture();
        asked.get(0).reply().tryEmitError(new IllegalStateException("Redis down"));
        assertThat(first.getNow(null)).isEqualTo(Decision.REDIS_DOWN);

        assertThat(now(limiter.acquire("other"))).isEqualTo(Decision.REDIS_DOWN);
        assertThat(asked).hasSize(1);

        clock.addAndGet(LocalTokenBuckets.REDIS_RETRY.toNanos());
        var retried = limiter.acquire("u").toFuture();
        assertThat(asked).hasSize(2);
        asked.get(1).reply().tryEmitValue(new Reservation(2, 0));
        assertThat(retried.getNow(null)).isEqualTo(Decision.ALLOWED);
    }

    @Test
    void concurrentRequestsWithoutTokens_shareOneReservation_andThoseLeftOverAskAgain() {
        LocalTokenBuckets limiter = limiter(2);
        List<java.util.concurrent.CompletableFuture<Decision>> waiting = List.of(limiter.acquire("u").toFuture(),
                limiter.acquire("u").toFuture(), limiter.acquire("u").toFuture());
        assertThat(asked).hasSize(1);

        asked.get(0).reply().tryEmitValue(new Reservation(2, 0));
        // Two spent the batch; the first spend reserved 1 ahead (half a batch left), and the third waits on that.
        assertThat(waiting).filteredOn(f -> f.getNow(null) == Decision.ALLOWED).hasSize(2);
        assertThat(waiting).filteredOn(f -> !f.isDone()).hasSize(1);
        assertThat(asked).hasSize(2);

        asked.get(1).reply().tryEmitValue(new Reservation(1, 0));
        assertThat(waiting).allSatisfy(f -> assertThat(f.getNow(null)).isEqualTo(Decision.ALLOWED));
    }

    @Test
    void waitersLeftOverWhenRedisGrantsNothingMore_areRefused() {
        LocalTokenBuckets limiter = limiter(1);
        List<java.util.concurrent.CompletableFuture<Decision>> waiting = List.of(limiter.acquire("u").toFuture(),
                limiter.acquire("u").toFuture());
        asked.get(0).reply().tryEmitValue(new Reservation(1, 0));
        // One spent it and reserved 1 ahead (batch 1); the other waits on that, and Redis has none left.
        assertThat(asked).hasSize(2);
        asked.get(1).reply().tryEmitValue(new Reservation(0, 200_000));
        assertThat(waiting).extracting(f -> f.getNow(null))
                .containsExactlyInAnyOrder(Decision.ALLOWED, Decision.REJECTED);
    }
}
