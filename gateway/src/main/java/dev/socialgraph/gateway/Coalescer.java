package dev.socialgraph.gateway;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Coalesces concurrent requests bound for one service instance into batch calls: each caller's query is queued, and
 * while fewer than {@code maxInFlight} batches are outstanding, everything queued is sent as one batch as soon as the
 * caller's thread is free: the first caller to find a batch slot free hands the send to its own {@code flushOn}
 * executor, and callers queued before that send runs go with it. With a direct executor ({@code Runnable::run}) a
 * lone request is sent at once, on the caller's thread; the gateway's executor is the caller's Netty event loop, which
 * runs the send once it has read every request that arrived with this one (the tick of the loop; no timer, no added
 * wait beyond it). Requests that arrive while {@code maxInFlight} batches are out wait for the first of them to
 * complete, when the queue (up to {@code maxBatch} of it) becomes the next batch. The more concurrent requests, the
 * larger the batches; a batch is never larger than {@code maxBatch}, and never more than {@code maxInFlight} are
 * outstanding. This is Martin Thompson's "smart batching" (2011): a batch is as large as what arrived while the
 * last one was being sent.
 *
 * <p><b>What each caller gets.</b> Its own answer: the batch's answer at its position (the transport answers in
 * the batch's order, one per query), or the batch's error when the whole call failed. A caller is refused without
 * being sent: with {@link Overloaded} at once when {@code maxQueued} callers are already waiting, and with
 * {@link Expired} when it has waited longer than {@code maxWait} by the time a batch completes and the queue is
 * drained (then, not by a timer: the wait ends with the completion of a batch in flight, which the transport's own
 * timeouts bound). A caller whose
 * subscription is cancelled (its client went away) leaves the queue; once sent, its answer is dropped and the batch
 * goes on for the others.
 *
 * <p>Plain logic: the transport, the clock and the executor a send runs on are given, nothing here knows HTTP,
 * Netty or Spring. Thread-safe: the queue
 * and the counts are guarded by one lock, held for a few field updates and never across a transport call or a
 * caller's continuation.
 *
 * @param <Q> a caller's query
 * @param <A> the answer to one query
 */
final class Coalescer<Q, A> {

    /** Sends one batch. */
    @FunctionalInterface
    interface Transport<Q, A> {

        /**
         * One call for a batch.
         *
         * @param batch 1 to {@code maxBatch} queries, in the order their callers were queued
         * @return one answer per query, in the batch's order, or an error that fails every caller of the batch;
         *         must complete (the transport's timeouts bound a call)
         */
        Mono<List<A>> send(List<Q> batch);
    }

    /** A caller refused before its query was sent: too many callers are waiting for this instance. */
    static final class Overloaded extends RuntimeException {

        Overloaded(String message) {
            super(message, null, false, false); // an expected answer, refused many times under overload: no trace
        }
    }

    /** A caller refused before its query was sent: it waited longer than {@code maxWait} for the batches ahead. */
    static final class Expired extends RuntimeException {

        Expired(String message) {
            super(message, null, false, false);
        }
    }

    /** One queued caller. Identity matters (a cancelled caller is removed by identity), so not a record. */
    private static final class Waiter<Q, A> {
        final Q query;
        final MonoSink<A> sink;
        final long queuedAt;

        Waiter(Q query, MonoSink<A> sink, long queuedAt) {
            this.query = query;
            this.sink = sink;
            this.queuedAt = queuedAt;
        }
    }

    private final Transport<Q, A> transport;
    private final int maxInFlight;
    private final int maxBatch;
    private final int maxQueued;
    private final long maxWaitNanos;
    private final LongSupplier nanoTime;
    private final Function<Q, Executor> flushOn;

    private final Object lock = new Object();
    /**
     * Callers not sent yet, oldest first; non-empty only while {@code maxInFlight} batches are out or a send is on its
     * way.
     */
    private final ArrayDeque<Waiter<Q, A>> queue = new ArrayDeque<>();
    private int inFlight;
    /** A caller has handed a send to its executor that has not run yet: later callers join the queue it will send. */
    private boolean flushPending;
    private long batches;
    private long sent;
    private long refused;

    /**
     * @param transport    sends a batch
     * @param maxInFlight  batches outstanding at most, at least 1
     * @param maxBatch     queries in one batch at most, at least 1
     * @param maxQueued    callers waiting at most; more are refused at once. At least 1
     * @param maxWaitNanos longest wait in the queue, nanoseconds; a caller found waiting longer when the queue is
     *                     drained is refused ({@link Expired}) instead of sent. At least 1
     * @param nanoTime     the clock ({@link System#nanoTime} in production), read once per caller and per drain
     * @param flushOn      the executor of a caller's query, where the send of the batch it opens runs:
     *                     {@code Runnable::run} sends at once on the caller's thread
     * @throws IllegalArgumentException for a bound below 1
     */
    Coalescer(Transport<Q, A> transport, int maxInFlight, int maxBatch, int maxQueued, long maxWaitNanos,
              LongSupplier nanoTime, Function<Q, Executor> flushOn) {
        if (maxInFlight < 1 || maxBatch < 1 || maxQueued < 1 || maxWaitNanos < 1) {
            throw new IllegalArgumentException("bounds must be at least 1: maxInFlight " + maxInFlight
                    + ", maxBatch " + maxBatch + ", maxQueued " + maxQueued + ", maxWaitNanos " + maxWaitNanos);
        }
        this.transport = transport;
        this.maxInFlight = maxInFlight;
        this.maxBatch = maxBatch;
        this.maxQueued = maxQueued;
        this.maxWaitNanos = maxWaitNanos;
        this.nanoTime = nanoTime;
        this.flushOn = flushOn;
    }

    /**
     * Asks {@code query} as part of a batch, when subscribed to.
     *
     * @return the query's own answer; the whole batch's error when its call failed; {@link Overloaded} or
     *         {@link Expired} when refused;
     *         signalled on the thread that completed the batch (or the one that ran the send, for a call that
     *         answered at once or could not be made)
     */
    Mono<A> submit(Q query) {
        return Mono.create(sink -> enqueue(query, sink));
    }

    private void enqueue(Q query, MonoSink<A> sink) {
        Waiter<Q, A> waiter = new Waiter<>(query, sink, nanoTime.getAsLong());
        sink.onCancel(() -> withdraw(waiter));
        boolean full;
        boolean opens = false;
        synchronized (lock) {
            full = queue.size() >= maxQueued;
            if (full) {
                refused++;
            } else {
                queue.addLast(waiter);
                if (inFlight < maxInFlight && !flushPending) {
                    flushPending = true; // a slot is free and no send is on its way: this caller opens one
                    opens = true;
                }
            }
        }
        if (full) {
            sink.error(new Overloaded("too many requests are waiting for this instance: " + maxQueued));
        } else if (opens) {
            try {
                flushOn.apply(query).execute(this::flush);
            } catch (RejectedExecutionException e) {
                flush(); // the caller's event loop is shutting down: the queue is sent at once instead
            }
        }
    }

    /** Sends what is queued, as batches while slots are free: the send a caller opened, run by its executor. */
    private void flush() {
        while (true) {
            List<Waiter<Q, A>> batch;
            synchronized (lock) {
                flushPending = false;
                if (inFlight >= maxInFlight || queue.isEmpty()) {
                    return;
                }
                batch = take();
            }
            send(batch);
        }
    }

    /** A cancelled caller: out of the queue if it is still there; once sent, its answer is simply dropped. */
    private void withdraw(Waiter<Q, A> waiter) {
        synchronized (lock) {
            queue.removeFirstOccurrence(waiter);
        }
    }

    /** The next batch off the queue, counted as in flight; called with the lock held, the queue non-empty. */
    private List<Waiter<Q, A>> take() {
        int size = Math.min(queue.size(), maxBatch);
        List<Waiter<Q, A>> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            batch.add(queue.pollFirst());
        }
        inFlight++;
        batches++;
        sent += size;
        return batch;
    }

    private void send(List<Waiter<Q, A>> batch) {
        List<Q> queries = new ArrayList<>(batch.size());
        for (Waiter<Q, A> waiter : batch) {
            queries.add(waiter.query);
        }
        Mono<List<A>> call;
        try {
            call = transport.send(queries);
        } catch (RuntimeException e) {
            call = Mono.error(e);
        }
        Completion completion = new Completion(batch);
        call.subscribe(completion::answered, completion::failed, completion::completed);
    }

    /** The end of one batch's call: exactly one of its signals counts. */
    private final class Completion {

        private final List<Waiter<Q, A>> batch;
        private boolean done; // the call's signals arrive serially (Reactive Streams rule 1.3)

        Completion(List<Waiter<Q, A>> batch) {
            this.batch = batch;
        }

        void answered(List<A> answers) {
            if (!done) {
                done = true;
                finish(batch, answers, null);
            }
        }

        void failed(Throwable error) {
            if (!done) {
                done = true;
                finish(batch, null, error);
            }
        }

        void completed() {
            // After its answers, every call completes: the error (and its stack trace) only for one that sent none.
            if (!done) {
                failed(new IllegalStateException("the call for a batch of " + batch.size()
                        + " completed without answers"));
            }
        }
    }

    /**
     * A batch is back: the next batch goes out first (the service works on it while this one's callers are
     * answered), then every caller of this one gets its answer or the batch's error.
     */
    private void finish(List<Waiter<Q, A>> batch, List<A> answers, Throwable error) {
        long now = nanoTime.getAsLong();
        List<Waiter<Q, A>> expired = null;
        List<Waiter<Q, A>> next = null;
        synchronized (lock) {
            inFlight--;
            while (!queue.isEmpty() && now - queue.peekFirst().queuedAt > maxWaitNanos) {
                if (expired == null) {
                    expired = new ArrayList<>();
                }
                expired.add(queue.pollFirst()); // oldest first: the expired ones are at the head
                refused++;
            }
            if (!queue.isEmpty()) {
                next = take();
            }
        }
        if (expired != null) {
            for (Waiter<Q, A> waiter : expired) {
                waiter.sink.error(new Expired("waited longer than " + maxWaitNanos / 1_000_000
                        + " ms for the calls ahead of it to this instance"));
            }
        }
        if (next != null) {
            send(next);
        }
        if (error == null && (answers == null || answers.size() != batch.size())) {
            error = new IllegalStateException("a batch of " + batch.size() + " queries got "
                    + (answers == null ? "no" : answers.size()) + " answers");
        }
        for (int i = 0; i < batch.size(); i++) {
            MonoSink<A> sink = batch.get(i).sink;
            A answer = error == null ? answers.get(i) : null;
            if (answer != null) {
                sink.success(answer);
            } else {
                sink.error(error != null ? error : new IllegalStateException("no answer to query " + i + " of a batch"));
            }
        }
    }

    /** Callers waiting to be sent now. */
    int queued() {
        synchronized (lock) {
            return queue.size();
        }
    }

    /** Batches outstanding now. */
    int inFlight() {
        synchronized (lock) {
            return inFlight;
        }
    }

    /** Batches sent since start. */
    long batches() {
        synchronized (lock) {
            return batches;
        }
    }

    /** Queries sent in batches since start. */
    long sent() {
        synchronized (lock) {
            return sent;
        }
    }

    /** Callers refused since start (queue full, or waited past {@code maxWait}). */
    long refused() {
        synchronized (lock) {
            return refused;
        }
    }
}
