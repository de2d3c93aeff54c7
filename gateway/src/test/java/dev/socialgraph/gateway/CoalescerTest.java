package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * {@link Coalescer} against a model, with a plain fake service the test answers when it likes (or, in the threaded
 * test, on other threads): random callers with random pairs and follow tokens, per-pair problems, whole-batch
 * failures and timeouts, cancelled callers, a full queue and waits past the limit. The model is the algorithm's
 * contract: which callers form which batch, in which order, and what each caller gets.
 */
class CoalescerTest {

    /** A caller's follow check: the fake service's answer depends on all three, the token included. */
    record Query(long follower, long followee, String token) {
    }

    /** The fake service's answer to one query: the query it answers, and following or a problem status. */
    record Answer(Query query, boolean following, int problem) {
    }

    /** The fake service's answer to {@code query}: a pure function, so each caller knows what it must get. */
    static Answer answerOf(Query query) {
        if (query.follower() % 7 == 0) {
            return new Answer(query, false, 503); // this pair's shard is down: a per-pair problem
        }
        int hash = Long.hashCode(query.follower() * 31 + query.followee()) ^ String.valueOf(query.token()).hashCode();
        return new Answer(query, (hash & 1) == 1, 0);
    }

    /** A whole call failed (a refused connection, a 5xx of the batch, a timeout: the coalescer cannot tell). */
    static final class CallFailed extends RuntimeException {
        CallFailed(String message) {
            super(message);
        }
    }

    /** One call to the fake service, answered by the test. */
    static final class Call {
        final List<Query> batch;
        final Sinks.One<List<Answer>> reply = Sinks.one();
        boolean answered;

        Call(List<Query> batch) {
            this.batch = List.copyOf(batch);
        }
    }

    /** The check service: records each call, counts what is in flight, answers when the test says. */
    static final class FakeService implements Coalescer.Transport<Query, Answer> {
        final int maxInFlight;
        final int maxBatch;
        final List<Call> calls = new ArrayList<>();
        int inFlight;

        FakeService(int maxInFlight, int maxBatch) {
            this.maxInFlight = maxInFlight;
            this.maxBatch = maxBatch;
        }

        @Override
        public Mono<List<Answer>> send(List<Query> batch) {
            inFlight++;
            assertThat(inFlight).as("batches in flight").isLessThanOrEqualTo(maxInFlight);
            assertThat(batch).as("a batch").isNotEmpty().hasSizeLessThanOrEqualTo(maxBatch);
            Call call = new Call(batch);
            calls.add(call);
            return call.reply.asMono();
        }

        List<Call> outstanding() {
            return calls.stream().filter(c -> !c.answered).toList();
        }

        /** Answers every pair of {@code call} from the model. */
        void answer(Call call) {
            reply(call, () -> call.reply.tryEmitValue(call.batch.stream().map(CoalescerTest::answerOf).toList()));
        }

        void fail(Call call, RuntimeException error) {
            reply(call, () -> call.reply.tryEmitError(error));
        }

        private void reply(Call call, Runnable emit) {
            assertThat(call.answered).isFalse();
            call.answered = true;
            inFlight--; // before the reply: the coalescer may send the next batch while it handles it
            emit.run();
        }
    }

    /** A caller and what it got. */
    static final class Caller {
        final Query query;
        final List<Object> signals = Collections.synchronizedList(new ArrayList<>());
        Disposable subscription;
        boolean cancelled;

        Caller(Query query) {
            this.query = query;
        }

        void subscribeTo(Coalescer<Query, Answer> coalescer) {
            subscription = coalescer.submit(query).subscribe(signals::add, signals::add);
        }
    }

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    /** Every caller's send runs at once, on its own thread. */
    private static final Function<Query, Executor> AT_ONCE = query -> Runnable::run;

    /** An event loop the test turns: tasks given to it run when the test says, in order. */
    static final class Loop implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        boolean shutDown;

        @Override
        public void execute(Runnable task) {
            if (shutDown) {
                throw new RejectedExecutionException("shut down");
            }
            tasks.add(task);
        }

        /** Runs what is queued, and what those tasks queue. */
        void turn() {
            while (!tasks.isEmpty()) {
                tasks.poll().run();
            }
        }
    }

    @Test
    void aLoneRequest_isSentAtOnceOnTheCallersThread_andAnswered() {
        FakeService service = new FakeService(2, 64);
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 2, 64, 1024, 1_000_000_000L, clock::get, AT_ONCE);
        Caller caller = new Caller(new Query(12, 13, null));

        caller.subscribeTo(coalescer);

        // Sent within the subscription itself, before anything else runs: no timer, no other thread, no wait.
        assertThat(service.calls).singleElement().satisfies(call ->
                assertThat(call.batch).containsExactly(caller.query));
        assertThat(coalescer.queued()).isZero();
        assertThat(coalescer.inFlight()).isEqualTo(1);
        service.answer(service.calls.get(0));
        assertThat(caller.signals).containsExactly(answerOf(caller.query));
        assertThat(coalescer.inFlight()).isZero();
        assertThat(coalescer.batches()).isEqualTo(1);
        assertThat(coalescer.sent()).isEqualTo(1);
    }

    @Test
    void callersArrivingBeforeTheLoopTurns_goAsOneBatch_sentByTheFirstCallersLoop() {
        FakeService service = new FakeService(2, 3);
        Loop loop = new Loop();
        Loop other = new Loop();
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 2, 3, 1024, 1_000_000_000L, clock::get,
                query -> query.follower() == 1 ? loop : other);
        List<Caller> callers = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            Caller caller = new Caller(new Query(i, 100 + i, null));
            caller.subscribeTo(coalescer);
            callers.add(caller);
        }

        // Nothing is sent while the first caller's loop is busy; only that caller opened a send, so only its loop
        // has a task, and the others wait in the queue for it.
        assertThat(service.calls).isEmpty();
        assertThat(loop.tasks).hasSize(1);
        assertThat(other.tasks).isEmpty();
        assertThat(coalescer.queued()).isEqualTo(8);

        loop.turn();

        // Both free slots are used, a batch of at most three each, oldest first; the rest wait for a completion.
        assertThat(service.calls).extracting(call -> call.batch).containsExactly(
                callers.subList(0, 3).stream().map(c -> c.query).toList(),
                callers.subList(3, 6).stream().map(c -> c.query).toList());
        assertThat(coalescer.queued()).isEqualTo(2);
        service.answer(service.calls.get(0));
        assertThat(service.calls.get(2).batch).containsExactly(callers.get(6).query, callers.get(7).query);
        service.answer(service.calls.get(1));
        service.answer(service.calls.get(2));
        for (Caller caller : callers) {
            assertThat(caller.signals).as("%s", caller.query).containsExactly(answerOf(caller.query));
        }

        // Idle again: the next caller opens a send of its own on its loop.
        Caller next = new Caller(new Query(9, 109, null));
        next.subscribeTo(coalescer);
        assertThat(other.tasks).hasSize(1);
        other.turn();
        assertThat(service.calls.get(3).batch).containsExactly(next.query);
    }

    @Test
    void aCompletionBeforeTheLoopTurns_sendsTheQueue_andTheLoopsSendFindsNothingLeft() {
        FakeService service = new FakeService(2, 64);
        Loop loop = new Loop();
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 2, 64, 1024, 1_000_000_000L, clock::get,
                query -> loop);
        Caller first = new Caller(new Query(1, 2, null));
        first.subscribeTo(coalescer);
        loop.turn();
        Caller second = new Caller(new Query(3, 4, null));
        second.subscribeTo(coalescer); // a slot is free: it opens a send
        assertThat(loop.tasks).hasSize(1);

        service.answer(service.calls.get(0)); // before the loop turns: the completion takes the queue at once
        assertThat(service.calls.get(1).batch).containsExactly(second.query);
        loop.turn();
        assertThat(service.calls).hasSize(2);

        Caller third = new Caller(new Query(5, 6, null));
        Caller fourth = new Caller(new Query(8, 9, null));
        third.subscribeTo(coalescer); // opens a send; the fourth joins it
        fourth.subscribeTo(coalescer);
        assertThat(loop.tasks).hasSize(1);
        loop.turn();
        assertThat(service.calls.get(2).batch).containsExactly(third.query, fourth.query);
        Caller fifth = new Caller(new Query(10, 11, null));
        fifth.subscribeTo(coalescer); // both slots are taken: it waits for a completion, and opens no send
        assertThat(loop.tasks).isEmpty();
        service.answer(service.calls.get(1));
        assertThat(service.calls.get(3).batch).containsExactly(fifth.query);
        service.answer(service.calls.get(2));
        service.answer(service.calls.get(3));
        for (Caller caller : List.of(first, second, third, fourth, fifth)) {
            assertThat(caller.signals).as("%s", caller.query).containsExactly(answerOf(caller.query));
        }
        assertThat(coalescer.batches()).isEqualTo(4);
        assertThat(coalescer.inFlight()).isZero();
    }

    @Test
    void aLoopThatRefusesTheSend_hasItSentAtOnce() {
        FakeService service = new FakeService(1, 64);
        Loop loop = new Loop();
        loop.shutDown = true;
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 1, 64, 1024, 1_000_000_000L, clock::get,
                query -> loop);
        Caller caller = new Caller(new Query(1, 2, null));
        caller.subscribeTo(coalescer);
        assertThat(service.calls).singleElement().satisfies(call ->
                assertThat(call.batch).containsExactly(caller.query));
        service.answer(service.calls.get(0));
        assertThat(caller.signals).containsExactly(answerOf(caller.query));
    }

    @Test
    void whileMaxInFlightBatchesAreOut_checksWait_andTheFirstCompletionSendsThemAsOneBatch() {
        FakeService service = new FakeService(2, 64);
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 2, 64, 1024, 1_000_000_000L, clock::get, AT_ONCE);
        List<Caller> callers = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            Caller caller = new Caller(new Query(i, 100 + i, i % 2 == 0 ? "token-" + i : null));
            caller.subscribeTo(coalescer);
            callers.add(caller);
        }
        assertThat(service.calls).hasSize(2); // the first two went alone, at once
        assertThat(coalescer.queued()).isEqualTo(8);

        service.answer(service.calls.get(1));

        assertThat(service.calls).hasSize(3);
        assertThat(service.calls.get(2).batch).containsExactlyElementsOf(
                callers.subList(2, 10).stream().map(c -> c.query).toList());
        assertThat(callers.get(1).signals).containsExactly(answerOf(callers.get(1).query));
        assertThat(callers.get(0).signals).isEmpty();
        service.answer(service.calls.get(2));
        service.answer(service.calls.get(0));
        for (Caller caller : callers) {
            assertThat(caller.signals).as("%s", caller.query).containsExactly(answerOf(caller.query));
        }
        assertThat(coalescer.batches()).isEqualTo(3);
        assertThat(coalescer.sent()).isEqualTo(10);
    }

    @Test
    void aFullQueue_refusesTheNextCallerAtOnce_andAWaitPastTheLimit_isRefusedWhenTheQueueIsDrained() {
        FakeService service = new FakeService(1, 2);
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 1, 2, 3, 1_000L, clock::get, AT_ONCE);
        Caller sent = new Caller(new Query(1, 2, null));
        sent.subscribeTo(coalescer);
        Caller old = new Caller(new Query(3, 4, null));
        old.subscribeTo(coalescer);
        clock.addAndGet(1_001L);
        Caller recent1 = new Caller(new Query(5, 6, null));
        Caller recent2 = new Caller(new Query(8, 9, null));
        Caller overflow = new Caller(new Query(10, 11, null));
        recent1.subscribeTo(coalescer);
        recent2.subscribeTo(coalescer);
        overflow.subscribeTo(coalescer);

        assertThat(overflow.signals).singleElement().isInstanceOf(Coalescer.Overloaded.class);
        assertThat(coalescer.queued()).isEqualTo(3);
        service.answer(service.calls.get(0));

        assertThat(old.signals).singleElement().isInstanceOf(Coalescer.Expired.class);
        assertThat(service.calls.get(1).batch).containsExactly(recent1.query, recent2.query);
        assertThat(coalescer.refused()).isEqualTo(2);
    }

    @Test
    void aBatchCallThatFails_failsEachOfItsCallersWithItsError_andTheNextBatchStillGoes() {
        FakeService service = new FakeService(1, 64);
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 1, 64, 1024, 1_000_000_000L, clock::get, AT_ONCE);
        Caller first = new Caller(new Query(1, 2, null));
        Caller second = new Caller(new Query(3, 4, "t"));
        Caller third = new Caller(new Query(5, 6, null));
        first.subscribeTo(coalescer);
        second.subscribeTo(coalescer);
        third.subscribeTo(coalescer);
        CallFailed down = new CallFailed("connection refused");

        service.fail(service.calls.get(0), down);

        assertThat(first.signals).containsExactly(down);
        assertThat(service.calls.get(1).batch).containsExactly(second.query, third.query);
        service.answer(service.calls.get(1));
        assertThat(second.signals).containsExactly(answerOf(second.query));
        assertThat(third.signals).containsExactly(answerOf(third.query));
    }

    @Test
    void aCancelledCaller_leavesTheQueue_orHasItsAnswerDropped_andTheOthersGetTheirs() {
        FakeService service = new FakeService(1, 64);
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, 1, 64, 1024, 1_000_000_000L, clock::get, AT_ONCE);
        Caller sentThenGone = new Caller(new Query(1, 2, null));
        Caller stays = new Caller(new Query(3, 4, null));
        Caller queuedThenGone = new Caller(new Query(5, 6, null));
        Caller last = new Caller(new Query(8, 9, null));
        for (Caller c : List.of(sentThenGone, stays, queuedThenGone, last)) {
            c.subscribeTo(coalescer);
        }
        sentThenGone.subscription.dispose();
        queuedThenGone.subscription.dispose();
        assertThat(coalescer.queued()).isEqualTo(2);

        service.answer(service.calls.get(0));

        assertThat(sentThenGone.signals).isEmpty();
        assertThat(service.calls.get(1).batch).containsExactly(stays.query, last.query);
        service.answer(service.calls.get(1));
        assertThat(stays.signals).containsExactly(answerOf(stays.query));
        assertThat(last.signals).containsExactly(answerOf(last.query));
        assertThat(queuedThenGone.signals).isEmpty();
    }

    @Test
    void aCallAnsweringTheWrongNumberOfAnswers_orNone_failsItsCallers() {
        Sinks.One<List<Answer>> reply = Sinks.one();
        Coalescer<Query, Answer> coalescer = new Coalescer<>(batch -> reply.asMono(), 1, 64, 1024, 1_000L, clock::get,
                AT_ONCE);
        Caller one = new Caller(new Query(1, 2, null));
        Caller two = new Caller(new Query(3, 4, null));
        Caller three = new Caller(new Query(5, 6, null));
        one.subscribeTo(coalescer);
        reply.tryEmitValue(List.of(answerOf(one.query), answerOf(two.query)));
        assertThat(one.signals).singleElement().isInstanceOf(IllegalStateException.class);

        Coalescer<Query, Answer> empty = new Coalescer<>(batch -> Mono.empty(), 1, 64, 1024, 1_000L, clock::get,
                AT_ONCE);
        two.subscribeTo(empty);
        assertThat(two.signals).singleElement().isInstanceOf(IllegalStateException.class);

        Coalescer<Query, Answer> throwing = new Coalescer<>(batch -> {
            throw new CallFailed("could not even build the call");
        }, 1, 64, 1024, 1_000L, clock::get, AT_ONCE);
        three.subscribeTo(throwing);
        assertThat(three.signals).singleElement().isInstanceOf(CallFailed.class);
        assertThat(throwing.inFlight()).isZero();
    }

    @Test
    void boundsBelowOne_areRefused() {
        assertThatThrownBy(() -> new Coalescer<Query, Answer>(b -> Mono.empty(), 0, 1, 1, 1, clock::get, AT_ONCE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Coalescer<Query, Answer>(b -> Mono.empty(), 1, 0, 1, 1, clock::get, AT_ONCE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Coalescer<Query, Answer>(b -> Mono.empty(), 1, 1, 0, 1, clock::get, AT_ONCE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Coalescer<Query, Answer>(b -> Mono.empty(), 1, 1, 1, 0, clock::get, AT_ONCE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        for (long seed = 1; seed <= 300; seed++) {
            seeds.add(seed);
        }
        return seeds;
    }

    /**
     * Random callers, answers, failures, cancellations and clock steps, checked step by step against the model of
     * the algorithm: which batch is sent when, with which callers in which order; the queue's length; what every
     * caller gets in the end.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomSchedules_matchTheModel(long seed) {
        Random random = new Random(seed);
        int maxInFlight = 1 + random.nextInt(3);
        int maxBatch = 1 + random.nextInt(6);
        int maxQueued = 1 + random.nextInt(12);
        long maxWait = 1 + random.nextInt(50);
        FakeService service = new FakeService(maxInFlight, maxBatch);
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, maxInFlight, maxBatch, maxQueued, maxWait,
                clock::get, AT_ONCE);

        // The model: the queue of waiting callers (with when they were queued), the calls out, and each caller's fate.
        ArrayDeque<Caller> queue = new ArrayDeque<>();
        Map<Caller, Long> queuedAt = new IdentityHashMap<>();
        Map<Call, List<Caller>> callersOf = new IdentityHashMap<>();
        Map<Caller, Object> expected = new IdentityHashMap<>();
        List<Caller> callers = new ArrayList<>();
        String[] tokens = {null, "t-1", "t-2", "quote\"and\\slash", ""};

        for (int step = 0; step < 400; step++) {
            int action = random.nextInt(100);
            if (action < 50) { // a new caller
                Query query = new Query(1 + random.nextInt(30), 1 + random.nextInt(30),
                        tokens[random.nextInt(tokens.length)]);
                Caller caller = new Caller(query);
                callers.add(caller);
                int callsBefore = service.calls.size();
                int outBefore = service.outstanding().size();
                caller.subscribeTo(coalescer);
                if (queue.size() >= maxQueued) {
                    assertThat(caller.signals).as("refused at once").singleElement()
                            .isInstanceOf(Coalescer.Overloaded.class);
                    expected.put(caller, Coalescer.Overloaded.class);
                } else if (outBefore < maxInFlight) {
                    assertThat(queue).as("nothing waits while a batch could go").isEmpty();
                    assertThat(service.calls).as("sent at once").hasSize(callsBefore + 1);
                    Call call = service.calls.get(callsBefore);
                    assertThat(call.batch).containsExactly(query);
                    callersOf.put(call, List.of(caller));
                } else {
                    assertThat(service.calls).as("no call while %d are out", maxInFlight).hasSize(callsBefore);
                    queue.addLast(caller);
                    queuedAt.put(caller, clock.get());
                }
            } else if (action < 80 && !service.outstanding().isEmpty()) { // a call comes back
                List<Call> out = service.outstanding();
                Call call = out.get(random.nextInt(out.size()));
                int callsBefore = service.calls.size();
                // What the model expects on completion: the expired head of the queue refused, then the next batch.
                List<Caller> expired = new ArrayList<>();
                while (!queue.isEmpty() && clock.get() - queuedAt.get(queue.peekFirst()) > maxWait) {
                    expired.add(queue.pollFirst());
                }
                List<Caller> next = new ArrayList<>();
                while (!queue.isEmpty() && next.size() < maxBatch) {
                    next.add(queue.pollFirst());
                }
                int outcome = random.nextInt(10);
                RuntimeException failure = outcome == 0 ? new CallFailed("down")
                        : outcome == 1 ? new CallFailed("timeout") : null;
                for (Caller caller : callersOf.get(call)) {
                    expected.put(caller, failure != null ? failure : answerOf(caller.query));
                }
                if (failure != null) {
                    service.fail(call, failure);
                } else {
                    service.answer(call);
                }
                for (Caller caller : expired) {
                    expected.put(caller, Coalescer.Expired.class);
                }
                if (next.isEmpty()) {
                    assertThat(service.calls).hasSize(callsBefore);
                } else {
                    assertThat(service.calls).hasSize(callsBefore + 1);
                    Call sent = service.calls.get(callsBefore);
                    assertThat(sent.batch).as("the next batch: the queue's head, in order")
                            .containsExactlyElementsOf(next.stream().map(c -> c.query).toList());
                    callersOf.put(sent, next);
                }
            } else if (action < 90) { // a caller goes away
                List<Caller> pending = callers.stream().filter(c -> !c.cancelled && c.signals.isEmpty()).toList();
                if (!pending.isEmpty()) {
                    Caller caller = pending.get(random.nextInt(pending.size()));
                    caller.subscription.dispose();
                    caller.cancelled = true;
                    queue.remove(caller);
                }
            } else { // time passes
                clock.addAndGet(random.nextInt(20));
            }
            assertThat(coalescer.queued()).as("queued, step %d", step).isEqualTo(queue.size());
            assertThat(coalescer.inFlight()).as("in flight, step %d", step).isEqualTo(service.outstanding().size());
        }
        // Answer everything still out; each completion may send the rest of the queue.
        while (!service.outstanding().isEmpty()) {
            Call call = service.outstanding().get(0);
            List<Caller> expired = new ArrayList<>();
            while (!queue.isEmpty() && clock.get() - queuedAt.get(queue.peekFirst()) > maxWait) {
                expired.add(queue.pollFirst());
            }
            for (Caller caller : expired) {
                expected.put(caller, Coalescer.Expired.class);
            }
            List<Caller> next = new ArrayList<>();
            while (!queue.isEmpty() && next.size() < maxBatch) {
                next.add(queue.pollFirst());
            }
            for (Caller caller : callersOf.get(call)) {
                expected.put(caller, answerOf(caller.query));
            }
            int callsBefore = service.calls.size();
            service.answer(call);
            if (!next.isEmpty()) {
                callersOf.put(service.calls.get(callsBefore), next);
            }
        }
        assertThat(queue).isEmpty();
        assertThat(coalescer.queued()).isZero();

        for (Caller caller : callers) {
            Object want = expected.get(caller);
            if (caller.cancelled) {
                // Gone before its answer: it gets nothing, whatever its batch did.
                assertThat(caller.signals).as("cancelled %s", caller.query).isEmpty();
                continue;
            }
            assertThat(caller.signals).as("signals of %s", caller.query).hasSize(1);
            Object got = caller.signals.get(0);
            if (want instanceof Class<?> refusal) {
                assertThat(got).isInstanceOf(refusal);
            } else {
                assertThat(got).as("%s, seed %d", caller.query, seed).isEqualTo(want);
                if (got instanceof Answer answer) {
                    assertThat(answer.query()).as("its own pair and token").isSameAs(caller.query);
                }
            }
        }
        long sentChecks = service.calls.stream().mapToLong(c -> c.batch.size()).sum();
        assertThat(coalescer.batches()).isEqualTo(service.calls.size());
        assertThat(coalescer.sent()).isEqualTo(sentChecks);
    }

    /**
     * Callers on many threads, the service answering on others: every caller gets its own answer, and the bounds
     * hold under real concurrency; each caller's send at once on its thread, or on one of two single-threaded
     * executors standing for event loops.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void concurrentCallersOnManyThreads_eachGetTheirOwnAnswer_withinTheBounds(boolean onLoops) throws Exception {
        int maxInFlight = 2;
        int maxBatch = 16;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        AtomicInteger largestBatch = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        Coalescer.Transport<Query, Answer> service = batch -> {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            largestBatch.accumulateAndGet(batch.size(), Math::max);
            calls.incrementAndGet();
            List<Query> copy = List.copyOf(batch);
            return Mono.fromCallable(() -> {
                List<Answer> answers = copy.stream().map(CoalescerTest::answerOf).toList();
                inFlight.decrementAndGet(); // before the answer: the coalescer may send the next batch on it
                return answers;
            }).subscribeOn(Schedulers.parallel());
        };
        List<ExecutorService> loops = List.of(Executors.newSingleThreadExecutor(),
                Executors.newSingleThreadExecutor());
        Function<Query, Executor> flushOn = onLoops ? query -> loops.get((int) (query.follower() % 2)) : AT_ONCE;
        Coalescer<Query, Answer> coalescer = new Coalescer<>(service, maxInFlight, maxBatch, 100_000,
                Long.MAX_VALUE, System::nanoTime, flushOn);
        int threads = 8;
        int perThread = 2_000;
        Set<String> wrong = ConcurrentHashMap.newKeySet();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(CompletableFuture.runAsync(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    List<CompletableFuture<Answer>> answers = new ArrayList<>();
                    List<Query> queries = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        Query query = new Query(thread * 100_000L + i + 1, i + 1, i % 3 == 0 ? "token-" + thread : null);
                        queries.add(query);
                        answers.add(coalescer.submit(query).toFuture());
                    }
                    for (int i = 0; i < perThread; i++) {
                        Answer answer = answers.get(i).join();
                        if (!answer.equals(answerOf(queries.get(i))) || answer.query() != queries.get(i)) {
                            wrong.add(queries.get(i) + " got " + answer);
                        }
                    }
                }, pool));
            }
            start.countDown();
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES); // a hang guard
        } finally {
            pool.shutdownNow();
            loops.forEach(ExecutorService::shutdownNow);
        }
        assertThat(wrong).isEmpty();
        assertThat(mostInFlight.get()).isLessThanOrEqualTo(maxInFlight);
        assertThat(largestBatch.get()).isLessThanOrEqualTo(maxBatch);
        assertThat(coalescer.sent()).isEqualTo((long) threads * perThread);
        assertThat(coalescer.batches()).isEqualTo(calls.get());
        assertThat(coalescer.queued()).isZero();
        assertThat(coalescer.inFlight()).isZero();
    }

    @Test
    void theModelsAnswers_dependOnThePairAndTheToken() {
        // Guards the model itself: if tokens changed nothing, answers crossing tokens would go unnoticed.
        Map<Boolean, Integer> byToken = new HashMap<>();
        for (int i = 1; i < 200; i++) {
            Query plain = new Query(i, i + 1, null);
            Query withToken = new Query(i, i + 1, "t-1");
            byToken.merge(answerOf(plain).following() == answerOf(withToken).following(), 1, Integer::sum);
        }
        assertThat(byToken.get(false)).isPositive();
    }
}
