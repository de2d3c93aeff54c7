package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.client.FollowChanges.ChangeFilter;
import dev.socialgraph.client.FollowChanges.ChangeListener;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.wire.Changes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watch against a scripted fake transport: each request takes the script's next step (a body to answer, an
 * exception to throw) and, when the script is spent, blocks as a long-poll with nothing to say would, until the watch
 * is closed. The backoff is 1 ms, so reconnects are immediate.
 */
class ChangeWatcherTest {

    private static final String EXPIRED = "{\"type\":\"https://socialgraph.dev/problems/cursor-expired\","
            + "\"title\":\"Gone\",\"status\":410,\"detail\":\"cursor older than 7 days\",\"parameter\":\"cursor\"}";

    /** The script: bodies ({@code String}) or exceptions ({@code RuntimeException}). */
    private final BlockingQueue<Object> script = new LinkedBlockingQueue<>();
    private final FakeTransport transport = new FakeTransport(r -> {
        Object step;
        try {
            step = script.take(); // spent: wait as a long-poll does, until the watch is closed (an interrupt)
        } catch (InterruptedException e) {
            throw Problems.noResponse("interrupted", e);
        }
        if (step instanceof RuntimeException failure) {
            throw failure;
        }
        return (String) step;
    });
    private final Recorder listener = new Recorder();
    private ChangeWatcher watch;

    /** What the listener got, in order: {@code event <id>@<cursor>}, {@code checkpoint <c>}, {@code retry <st>}. */
    static final class Recorder implements ChangeListener {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<RuntimeException> errors = new CopyOnWriteArrayList<>();
        volatile Consumer<Changes.Event> onEvent = e -> { };

        @Override
        public void onEvent(Changes.Event event, String cursor) {
            onEvent.accept(event);
            calls.add("event " + event.eventId() + "@" + cursor);
        }

        @Override
        public void onCheckpoint(String cursor) {
            calls.add("checkpoint " + cursor);
        }

        @Override
        public void onRetry(GraphClientException failure, Duration backoff) {
            calls.add("retry " + failure.status());
        }

        @Override
        public void onError(RuntimeException failure) {
            errors.add(failure);
        }
    }

    @AfterEach
    void close() {
        if (watch != null) {
            watch.close();
        }
    }

    private ChangeWatcher watch(long owner, String cursor, ChangeFilter filter) {
        watch = new ChangeWatcher(new ChangeReads(transport), owner, cursor, filter, listener, n -> 1L).start();
        return watch;
    }

    /** An event {@code id} at cursor {@code c<id>}. */
    private static String event(String id) {
        return event(id, "c" + id);
    }

    private static String event(String id, String cursor) {
        return "{\"eventId\":\"" + id + "\",\"cursor\":\"" + cursor + "\",\"kind\":\"follow\",\"actorId\":1,"
                + "\"targetId\":2,\"occurredAt\":1700000000000,\"version\":1}";
    }

    private static String page(String cursor, String... events) {
        return "{\"events\":[" + String.join(",", events) + "],\"cursor\":\"" + cursor + "\"}";
    }

    /** The {@code cursor} parameter of each request, {@code -} for none, {@code head} for the head. */
    private List<String> cursorsSent() {
        List<String> out = new ArrayList<>();
        for (FakeTransport.Call call : transport.calls()) {
            String query = call.request().query();
            if (call.request().path().endsWith("/head")) {
                out.add("head");
            } else if (query.startsWith(Changes.CURSOR + "=")) {
                out.add(query.substring(Changes.CURSOR.length() + 1, query.indexOf('&')));
            } else {
                out.add("-");
            }
        }
        return out;
    }

    @Test
    void events_areDeliveredInOrder_eachWithTheCursorAfterIt_andEachPageStartsWhereTheLastEnded() {
        script.add(page("c2", event("1"), event("2")));
        script.add(page("c4", event("3"), event("4")));

        watch(0, "c0", ChangeFilter.ALL.withKinds("follow"));

        await().until(() -> transport.calls().size() == 3); // the third is the long-poll, waiting
        assertThat(listener.calls).containsExactly("event 1@c1", "event 2@c2", "event 3@c3", "event 4@c4");
        assertThat(cursorsSent()).containsExactly("c0", "c2", "c4");
        assertThat(transport.calls()).allSatisfy(c -> {
            assertThat(c.user()).isZero();
            assertThat(c.request().target()).startsWith("/internal/v1/changes?")
                    .endsWith("&kinds=follow&limit=1000&wait=30");
        });
        assertThat(watch.cursor()).isEqualTo("c4");
        assertThat(watch.isRunning()).isTrue();
    }

    @Test
    void aRepeatedEventId_onALaterPage_asAfterAReconnect_isDeliveredOnce_andItsCursorStillPassed() {
        script.add(page("c2", event("1"), event("2")));
        script.add(page("c3", event("2", "c2-again"), event("3")));
        script.add(page("c3b", event("3", "c3-again")));

        watch(0, "c0", null);

        await().until(() -> transport.calls().size() == 4);
        assertThat(listener.calls).containsExactly("event 1@c1", "event 2@c2", "event 3@c3", "checkpoint c3b");
        assertThat(cursorsSent()).containsExactly("c0", "c2", "c3", "c3b");
    }

    @Test
    void theMemoryOfDeliveredIds_isBounded_theOldestForgottenFirst() {
        List<String> events = IntStream.range(0, ChangeWatcher.REMEMBERED_EVENTS + 1)
                .mapToObj(i -> event("e" + i)).toList();
        for (int from = 0; from < events.size(); from += Changes.MAX_LIMIT) {
            List<String> slice = events.subList(from, Math.min(events.size(), from + Changes.MAX_LIMIT));
            script.add(page("p" + from, slice.toArray(String[]::new)));
        }
        int lastId = ChangeWatcher.REMEMBERED_EVENTS;
        script.add(page("end", event("e0", "again-0"), event("e" + lastId, "again-last")));

        watch(0, "c0", null);

        await().until(() -> listener.calls.contains("checkpoint end"));
        assertThat(listener.calls).filteredOn(c -> c.startsWith("event ")).hasSize(lastId + 2);
        assertThat(listener.calls).endsWith("event e0@again-0", "checkpoint end");
    }

    @Test
    void aTransportFailureOr503_thenSuccess_resumesFromTheLastCursor() {
        script.add(page("p1", event("1"), event("2")));
        script.add(Problems.noResponse("no check instance answered after 2 attempt(s)",
                new java.net.ConnectException("refused")));
        script.add(Problems.of("GET /internal/v1/changes", 503, new byte[0], "0", Instant.now()));
        script.add(page("p2", event("3")));

        watch(0, "c0", null);

        await().until(() -> transport.calls().size() == 5);
        assertThat(cursorsSent()).containsExactly("c0", "p1", "p1", "p1", "p2");
        assertThat(listener.calls).containsExactly("event 1@c1", "event 2@c2", "checkpoint p1", "retry 0",
                "retry 503", "event 3@c3", "checkpoint p2");
        assertThat(listener.errors).isEmpty();
        assertThat(watch.isRunning()).isTrue();
    }

    @Test
    void a410CursorExpired_stopsTheWatch_andIsReportedToTheListener() throws InterruptedException {
        script.add(page("c1", event("1")));
        script.add(Problems.of("GET /internal/v1/changes", 410, EXPIRED.getBytes(StandardCharsets.UTF_8), null,
                Instant.now()));
        script.add(page("p2", event("2"))); // never asked for

        watch(0, "c0", null);

        assertThat(watch.awaitStop(Duration.ofSeconds(10))).isTrue();
        assertThat(listener.errors).singleElement().isInstanceOfSatisfying(RequestRejectedException.class, e -> {
            assertThat(e.status()).isEqualTo(410);
            assertThat(e.type()).isEqualTo(ProblemType.CURSOR_EXPIRED);
            assertThat(e.parameter()).contains("cursor");
        });
        assertThat(watch.failure()).containsSame(listener.errors.getFirst());
        assertThat(watch.isRunning()).isFalse();
        assertThat(listener.calls).containsExactly("event 1@c1");
        assertThat(cursorsSent()).containsExactly("c0", "c1");
        assertThat(watch.cursor()).isEqualTo("c1");
    }

    @Test
    void close_endsAWaitingPollAtOnce_andNothingIsDeliveredAfterIt() {
        script.add(page("c1", event("1")));
        watch(7, "c0", null);
        await().until(() -> transport.calls().size() == 2); // the second poll is waiting for events

        long start = System.nanoTime();
        watch.close();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(watch.isRunning()).isFalse();
        assertThat(watch.failure()).isEmpty();
        script.add(page("p2", event("2")));
        assertThat(listener.calls).containsExactly("event 1@c1");
        assertThat(listener.errors).isEmpty();
        assertThat(transport.calls()).hasSize(2).allSatisfy(c -> {
            assertThat(c.user()).isEqualTo(7);
            assertThat(c.request().path()).isEqualTo("/internal/v1/users/7/changes");
        });
        watch.close(); // idempotent
    }

    @Test
    void close_cutsABackoffShort() {
        script.add(Problems.noResponse("down", null));
        watch = new ChangeWatcher(new ChangeReads(transport), 0, "c0", null, listener, n -> 3_600_000L).start();
        await().until(() -> listener.calls.contains("retry 0"));

        long start = System.nanoTime();
        watch.close();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(watch.isRunning()).isFalse();
        assertThat(transport.calls()).hasSize(1);
    }

    @Test
    void withoutACursor_theHeadIsReadFirst_givenAsACheckpoint_andWatchedFrom() {
        script.add("{\"cursor\":\"h1\"}");
        script.add(page("h2")); // a narrow filter's empty page: the position still moves on
        script.add(page("h2")); // and stays: no second checkpoint

        watch(0, null, null);

        await().until(() -> transport.calls().size() == 4);
        assertThat(cursorsSent()).containsExactly("head", "h1", "h2", "h2");
        assertThat(listener.calls).containsExactly("checkpoint h1", "checkpoint h2");
        assertThat(watch.cursor()).isEqualTo("h2");
    }

    @Test
    void theListenersOwnException_stopsTheWatch_andIsReported() throws InterruptedException {
        IllegalStateException disk = new IllegalStateException("disk full");
        listener.onEvent = e -> {
            if (e.eventId().equals("2")) {
                throw disk;
            }
        };
        script.add(page("p1", event("1"), event("2"), event("3")));

        watch(0, "c0", null);

        assertThat(watch.awaitStop(Duration.ofSeconds(10))).isTrue();
        assertThat(listener.errors).containsExactly(disk);
        assertThat(listener.calls).containsExactly("event 1@c1");
        assertThat(watch.cursor()).isEqualTo("c1");
        assertThat(transport.calls()).hasSize(1);
    }

    @Test
    void retried_areNoAnswer503_429AndOther5xx_notA4xxOrAnUnreadableAnswer() {
        Instant now = Instant.now();
        assertThat(ChangeWatcher.retries(Problems.noResponse("none", null))).isTrue();
        assertThat(ChangeWatcher.retries(Problems.of("GET /", 503, new byte[0], null, now))).isTrue();
        assertThat(ChangeWatcher.retries(Problems.of("GET /", 429, new byte[0], null, now))).isTrue();
        assertThat(ChangeWatcher.retries(Problems.of("GET /", 502, new byte[0], null, now))).isTrue();
        assertThat(ChangeWatcher.retries(Problems.of("GET /", 410, new byte[0], null, now))).isFalse();
        assertThat(ChangeWatcher.retries(Problems.of("GET /", 400, new byte[0], null, now))).isFalse();
        assertThat(ChangeWatcher.retries(Problems.of("GET /", 401, new byte[0], null, now))).isFalse();
        assertThat(ChangeWatcher.retries(Problems.unreadable("not a page", null))).isFalse();
    }

    @Test
    void theBackoff_growsToItsCap_andWaitsAtLeastRetryAfter_upToTheCap() {
        ChangeWatcher defaults = new ChangeWatcher(new ChangeReads(transport), 0, "c0", null, listener,
                ChangeWatcher.BACKOFF);
        GraphClientException plain = Problems.noResponse("none", null);

        assertThat(defaults.pause(1, plain)).isBetween(Duration.ofMillis(125), Duration.ofMillis(375));
        assertThat(defaults.pause(3, plain)).isBetween(Duration.ofMillis(500), Duration.ofMillis(1500));
        assertThat(defaults.pause(30, plain)).isEqualTo(ChangeWatcher.MAX_BACKOFF);
        assertThat(defaults.pause(1, Problems.of("GET /", 503, new byte[0], "7", Instant.now())))
                .isBetween(Duration.ofSeconds(6), Duration.ofSeconds(7));
        assertThat(defaults.pause(1, Problems.of("GET /", 503, new byte[0], "3600", Instant.now())))
                .isEqualTo(ChangeWatcher.MAX_BACKOFF);
    }
}
