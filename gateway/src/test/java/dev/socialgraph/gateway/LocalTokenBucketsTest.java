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
    void firstRequest_goesThroughOnCredit_thenTheBatchPaysItIsSpentLocallyAndTheNextReservedAhead() {
        LocalTokenBuckets limiter = limiter(4);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // on credit, not waiting on Redis
        assertThat(asked).singleElement().extracting(Asked::wanted).isEqualTo(5); // a batch and the credit

        asked.get(0).reply().tryEmitValue(new Reservation(5, 0));           // pays the credit: 4 held
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // 3 left
        assertThat(asked).hasSize(1);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // 2 left: half a batch, reserve 2 ahead
        assertThat(asked).hasSize(2);
        assertThat(asked.get(1).wanted()).isEqualTo(2);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // 1 left, one reservation at a time
        assertThat(asked).hasSize(2);
        asked.get(1).reply().tryEmitValue(new Reservation(2, 0));           // 1 + 2 = 3 held
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // 2 left: reserve ahead again
        assertThat(asked).hasSize(3);
        assertThat(asked.get(2).wanted()).isEqualTo(2);                     // 2 held + 2: never more than the batch
        assertThat(meters.counter("reservations").count()).isEqualTo(3);
    }

    @Test
    void aCreditTheBucketCannotPay_isRefusedAfter_andPaidFromTheNextGrant() {
        LocalTokenBuckets limiter = limiter(2);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // on credit
        asked.get(0).reply().tryEmitValue(new Reservation(0, 500_000));     // the bucket was empty: a token in 0.5 s
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.REJECTED); // no second credit

        clock.addAndGet(499_000_000L);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.REJECTED);
        assertThat(asked).hasSize(1);

        clock.addAndGet(1_000_000L);
        var later = limiter.acquire("u").toFuture();                        // waits: the credit is spent
        assertThat(later).isNotDone();
        assertThat(asked).hasSize(2);
        assertThat(asked.get(1).wanted()).isEqualTo(3);                     // a batch and the credit still owed
        asked.get(1).reply().tryEmitValue(new Reservation(1, 0));           // pays the credit, nothing left over
        assertThat(later).isNotDone();                                      // so it asks again
        assertThat(asked).hasSize(3);
        assertThat(asked.get(2).wanted()).isEqualTo(2);
        asked.get(2).reply().tryEmitValue(new Reservation(1, 0));
        assertThat(later.getNow(null)).isEqualTo(Decision.ALLOWED);
    }

    @Test
    void whenRedisFails_requestsWithoutLocalTokensSkipItForASecond() {
        LocalTokenBuckets limiter = limiter(2);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // on credit
        asked.get(0).reply().tryEmitError(new IllegalStateException("Redis down"));
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.REDIS_DOWN);
        // Known down: no credit for a new user either, the caller's fallback decides.
        assertThat(now(limiter.acquire("other"))).isEqualTo(Decision.REDIS_DOWN);
        assertThat(asked).hasSize(1);

        clock.addAndGet(LocalTokenBuckets.REDIS_RETRY.toNanos());
        var retried = limiter.acquire("u").toFuture();
        assertThat(asked).hasSize(2);
        assertThat(asked.get(1).wanted()).isEqualTo(3);                     // the credit is still owed
        asked.get(1).reply().tryEmitValue(new Reservation(3, 0));
        assertThat(retried.getNow(null)).isEqualTo(Decision.ALLOWED);
    }

    @Test
    void concurrentRequestsOfANewUser_oneOnCredit_theOthersShareItsReservation() {
        LocalTokenBuckets limiter = limiter(2);
        List<java.util.concurrent.CompletableFuture<Decision>> requests = List.of(limiter.acquire("u").toFuture(),
                limiter.acquire("u").toFuture(), limiter.acquire("u").toFuture(), limiter.acquire("u").toFuture());
        assertThat(requests.get(0).getNow(null)).isEqualTo(Decision.ALLOWED);
        assertThat(requests.subList(1, 4)).allSatisfy(f -> assertThat(f).isNotDone());
        assertThat(asked).hasSize(1);

        asked.get(0).reply().tryEmitValue(new Reservation(3, 0));           // 1 pays the credit, 2 held
        // Two waiters spent the batch; the first spend reserved 1 ahead (half a batch left), and the third waits on it.
        assertThat(requests.subList(1, 4)).filteredOn(f -> f.getNow(null) == Decision.ALLOWED).hasSize(2);
        assertThat(requests.subList(1, 4)).filteredOn(f -> !f.isDone()).hasSize(1);
        assertThat(asked).hasSize(2);

        asked.get(1).reply().tryEmitValue(new Reservation(1, 0));
        assertThat(requests).allSatisfy(f -> assertThat(f.getNow(null)).isEqualTo(Decision.ALLOWED));
    }

    @Test
    void waitersLeftOverWhenRedisGrantsNothingMore_areRefused() {
        LocalTokenBuckets limiter = limiter(1);
        assertThat(now(limiter.acquire("u"))).isEqualTo(Decision.ALLOWED);  // on credit
        List<java.util.concurrent.CompletableFuture<Decision>> waiting = List.of(limiter.acquire("u").toFuture(),
                limiter.acquire("u").toFuture());
        asked.get(0).reply().tryEmitValue(new Reservation(2, 0));           // the credit and 1 held
        // One waiter spent it and reserved 1 ahead (batch 1); the other waits on that, and Redis has none left.
        assertThat(asked).hasSize(2);
        asked.get(1).reply().tryEmitValue(new Reservation(0, 200_000));
        assertThat(waiting).extracting(f -> f.getNow(null))
                .containsExactlyInAnyOrder(Decision.ALLOWED, Decision.REJECTED);
    }
}
