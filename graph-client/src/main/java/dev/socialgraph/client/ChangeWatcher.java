package dev.socialgraph.client;

import dev.socialgraph.client.FollowChanges.ChangeFilter;
import dev.socialgraph.client.FollowChanges.ChangeListener;
import dev.socialgraph.client.FollowChanges.ChangeWatch;
import dev.socialgraph.wire.Changes;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A watch of the change stream ({@link FollowChanges#watchChanges}): one virtual thread that long-polls pages through
 * {@link ChangeReads}, hands each event to the listener, drops repeats by {@code eventId}, and reconnects after
 * transient failures from the last cursor it reached.
 *
 * <p><b>Why long-poll.</b> A page per request reuses the transport as every other read does (pooled connection,
 * fail-over to the next instance, problems as exceptions), and a reconnect is just the next request from the last
 * cursor; server-sent events would need a streaming response path in the transport for no gain in order or
 * delivery: both resume from a cursor.
 *
 * <p><b>Repeats.</b> A cursor names the position after an event, so resuming never repeats an event by itself; a repeat
 * comes from the topic (a producer's retry writes a record twice, same {@code eventId}). The last
 * {@value #REMEMBERED_EVENTS} delivered ids are remembered, oldest forgotten first: a repeat lands within a few records
 * of its original.
 *
 * <p><b>Stopping.</b> {@link #close()} sets {@code closed} and, only while the thread is inside a request, interrupts
 * it: a virtual thread blocked on a socket gets it closed, so a 30-second poll ends at once. The interrupt is confined
 * to the request (both sides decide under {@link #lock}) so that it never reaches the listener, whose own I/O (a file
 * channel persisting the cursor) an interrupt would close. A backoff waits on {@link #lock}, which {@code close}
 * notifies.
 */
final class ChangeWatcher implements ChangeWatch {

    /** Delivered event ids remembered to drop repeats. */
    static final int REMEMBERED_EVENTS = 10_000;
    /** Events asked per page: a watcher that fell behind catches up in as few requests as the service allows. */
    static final int PAGE_LIMIT = Changes.MAX_LIMIT;
    /** Seconds each poll waits for an event: the longest the service allows, the fewest requests while idle. */
    static final int WAIT_SECONDS = Changes.MAX_WAIT;
    /** The longest pause between reconnects, whatever the failures' count or {@code Retry-After}. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /**
     * 250 ms doubling up to {@link #MAX_BACKOFF}, each randomized by ±50% so that watchers cut off together (an
     * instance restarting) do not come back together.
     */
    static final IntervalFunction BACKOFF =
            IntervalFunction.ofExponentialRandomBackoff(Duration.ofMillis(250), 2.0, 0.5, MAX_BACKOFF);

    private static final AtomicInteger WATCHES = new AtomicInteger();

    private final ChangeReads reads;
    private final long owner;
    private final ChangeFilter filter;
    private final ChangeListener listener;
    private final IntervalFunction backoff;
    private final Thread thread;
    private final Object lock = new Object();
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Delivered ids, oldest first; only the watch's thread touches it. */
    private final Map<String, Boolean> delivered = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED_EVENTS;
        }
    };

    /** Where the next read starts; only the watch's thread writes it. */
    private volatile String position;
    /** The last cursor given to the listener (or the start). */
    private volatile String reported;
    private volatile RuntimeException failure;
    /** Failures in a row; only the watch's thread touches it. */
    private int failures;
    /** Guarded by {@link #lock}. */
    private boolean closed;
    /** Guarded by {@link #lock}: the thread is inside a request, where an interrupt may end it. */
    private boolean inRequest;

    /**
     * A watch, not started.
     *
     * @param owner  {@code 0} for the whole stream, else the user whose own stream (checked by the caller)
     * @param cursor where to start, {@code null} for the head (checked by the caller)
     * @param filter {@code null} for every event
     */
    ChangeWatcher(ChangeReads reads, long owner, String cursor, ChangeFilter filter, ChangeListener listener,
                  IntervalFunction backoff) {
        this.reads = reads;
        this.owner = owner;
        this.filter = filter == null ? ChangeFilter.ALL : filter;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.backoff = backoff;
        this.position = cursor;
        this.reported = cursor;
        this.thread = Thread.ofVirtual().name("graph-changes-watch-" + WATCHES.incrementAndGet())
                .unstarted(this::run);
    }

    /**
     * A started watch with the default backoff, its arguments checked first.
     *
     * @throws IllegalArgumentException for a blank cursor
     * @throws NullPointerException     for a {@code null} listener
     */
    static ChangeWatch watch(ChangeReads reads, long owner, String cursor, ChangeFilter filter,
                             ChangeListener listener) {
        ChangeReads.requireCursor(cursor);
        return new ChangeWatcher(reads, owner, cursor, filter, listener, BACKOFF).start();
    }

    /** Starts the watch's thread; returns this. */
    ChangeWatcher start() {
        thread.start();
        return this;
    }

    @Override
    public String cursor() {
        return reported;
    }

    @Override
    public boolean isRunning() {
        return stopped.getCount() > 0 && !isClosed();
    }

    @Override
    public Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    @Override
    public boolean awaitStop(Duration timeout) throws InterruptedException {
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = Long.MAX_VALUE;
        }
        return stopped.await(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (!closed) {
                closed = true;
                if (inRequest) {
                    thread.interrupt();
                }
                lock.notifyAll();
            }
        }
        if (Thread.currentThread() == thread) {
            return; // the listener closes its own watch: the loop ends when the callback returns
        }
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller's own interrupt: keep it, stop waiting
        }
    }

    private boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void run() {
        try {
            while (!isClosed()) {
                if (position == null) {
                    String head = attempt(reads::head);
                    if (head != null) {
                        position = head;
                        checkpoint(head);
                    }
                } else {
                    Changes.Page page = attempt(() -> reads.page(owner, position, filter, PAGE_LIMIT, WAIT_SECONDS));
                    if (page != null) {
                        deliver(page);
                    }
                }
            }
        } catch (RuntimeException e) {
            stop(e); // a failure not retried, or the listener's own
        } finally {
            stopped.countDown();
        }
    }

    /**
     * One request; after a failure the watch outlives ({@link #retries}), the backoff.
     *
     * @return the answer, or {@code null} after a retried failure (the backoff is over) or once closed
     * @throws GraphClientException a failure not retried
     */
    private <T> T attempt(Supplier<T> request) {
        try {
            T answer = call(request);
            if (answer != null) {
                failures = 0;
            }
            return answer;
        } catch (GraphClientException e) {
            if (!retries(e)) {
                throw e;
            }
            Duration pause = pause(++failures, e);
            listener.onRetry(e, pause);
            sleep(pause);
            return null;
        }
    }

    /**
     * Runs one request where {@link #close()} may interrupt it.
     *
     * @return its answer, or {@code null} when the watch was closed before or during it (its outcome is dropped)
     */
    private <T> T call(Supplier<T> request) {
        synchronized (lock) {
            if (closed) {
                return null;
            }
            inRequest = true;
        }
        T answer = null;
        RuntimeException failed = null;
        try {
            answer = request.get();
        } catch (RuntimeException e) {
            failed = e;
        }
        synchronized (lock) {
            inRequest = false;
            Thread.interrupted(); // close() interrupts only inside the request: none may reach the listener
            if (closed) {
                return null;
            }
        }
        if (failed != null) {
            throw failed;
        }
        return answer;
    }

    /** Hands the page's events to the listener, new ones only, then its end as a checkpoint when it moved on. */
    private void deliver(Changes.Page page) {
        for (Changes.Event event : page.events()) {
            if (isClosed()) {
                return;
            }
            if (!delivered.containsKey(event.eventId())) {
                listener.onEvent(event, event.cursor());
                delivered.put(event.eventId(), Boolean.TRUE);
                reported = event.cursor();
            }
            position = event.cursor();
        }
        position = page.cursor();
        if (!isClosed() && !page.cursor().equals(reported)) {
            checkpoint(page.cursor());
        }
    }

    private void checkpoint(String cursor) {
        listener.onCheckpoint(cursor);
        reported = cursor;
    }

    /**
     * Whether a failure is one the watch outlives: no answer or 503 ({@link UnavailableException}), 429, or another
     * 5xx (a proxy's 502 or 504 while an instance restarts). A 4xx (410 above all) or an unreadable answer would fail
     * the same way again.
     */
    static boolean retries(GraphClientException e) {
        return e instanceof UnavailableException || e instanceof RateLimitedException
                || e.status() >= 500 && e.status() <= 599;
    }

    /** The backoff after the {@code inARow}-th failure in a row: at least its {@code Retry-After}, at most the cap. */
    Duration pause(int inARow, GraphClientException e) {
        Duration pause = Duration.ofMillis(backoff.apply(inARow));
        Duration asked = e.retryAfter().orElse(Duration.ZERO);
        if (asked.compareTo(pause) > 0) {
            pause = asked;
        }
        return pause.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : pause;
    }

    /** Waits {@code pause} unless closed meanwhile. */
    private void sleep(Duration pause) {
        long deadline = System.nanoTime() + pause.toNanos();
        synchronized (lock) {
            long left;
            while (!closed && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    closed = true; // interrupted from outside the client: nobody else can stop the thread
                }
            }
        }
    }

    /** Ends the watch on {@code e} and tells the listener, unless it was closed meanwhile. */
    private void stop(RuntimeException e) {
        if (isClosed()) {
            return;
        }
        failure = e;
        synchronized (lock) {
            closed = true;
        }
        try {
            listener.onError(e);
        } catch (RuntimeException ignored) {
            // The watch is over either way; the listener's failure to take the news has nobody else to go to.
        }
    }
}
