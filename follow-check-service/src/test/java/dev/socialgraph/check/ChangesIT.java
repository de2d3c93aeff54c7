package dev.socialgraph.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.check.changes.ChangeStream;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.shard.ShardMigrations;
import dev.socialgraph.testsupport.EventPublisher;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.wire.Changes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The change stream ({@code GET /internal/v1/changes}, {@code …/changes/head}, {@code /internal/v1/users/{id}/changes})
 * over HTTP against the running service, with real PostgreSQL, Redis and Kafka, events published to
 * {@code follow-events} as the write service's outbox relay publishes them (key: the followee id as text, value:
 * {@link FollowEventJson}). It proves that
 * <ul>
 *   <li>a long-poll from a cursor answers exactly the events published after it, each with its id, cursor, kind, users,
 *       time and version, the events of a followee (one partition, so of each pair) in the order they were published,
 *       and a record that is no event skipped; that resuming from an event's cursor answers exactly the events after
 *       it, and pages of one event the same events; that a long-poll with nothing new answers an empty page after its
 *       wait, and one that waits gets an event published meanwhile;</li>
 *   <li>{@code kinds} and {@code users} keep exactly the matching events, and the page cursor moves past the
 *       events they skip;</li>
 *   <li>with {@code Accept: text/event-stream} the same events come as server-sent events ({@code id:} the event's
 *       cursor, {@code event:} its kind, {@code data:} its JSON), opened and punctuated by {@code checkpoint}s while
 *       nothing is pending, and a reconnection with {@code Last-Event-ID} (an event's or a checkpoint's) resumes right
 *       after it;</li>
 *   <li>a cursor older than the instance's memory (here two records per partition) is served from the topic, every
 *       event in order across pages and server-sent events, and one older than the topic keeps answers 410
 *       {@code cursor-expired};</li>
 *   <li>a user's own stream shows the follows and unfollows they are part of and their own blocks and mutes, never a
 *       block or mute of them by someone else, nothing with a user who blocks them, and nothing naming an inactive
 *       user;</li>
 *   <li>every bad parameter answers 400 {@code application/problem+json} naming it.</li>
 * </ul>
 *
 * <p>Every test takes its own head once the service's event feed has consumed the whole topic ({@link #settledHead}),
 * and uses users no other test uses, so the tests do not depend on their order. Where a test wants one page to hold
 * every event it published, it publishes at most two records to a partition (the window), so the page is read from
 * memory; every other read walks pages until an empty long-poll, whichever way the service reads them.
 */
@SpringBootTest(classes = FollowCheckServiceApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ChangesIT {

    static final TestShards SHARDS = TestShards.create("check_changes");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final int PARTITIONS = 4;
    static final String TOPIC = KAFKA.createTopic("follow-events", PARTITIONS);
    static final String REDIS_URI = TestServers.redis().uri(TestServers.redis().freshDatabase());
    /** Records kept in memory per partition: a cursor three records back in a partition is read from the topic. */
    static final int WINDOW = 2;
    static final long T0 = 1_700_000_000_000L;
    /** {@code graph.check.changes.retention}'s default, 7 days, as a 410 states it. */
    static final long RETENTION_SECONDS = 7 * 24 * 3600;
    static final String CHANGES = "/internal/v1/changes";
    static final String PROBLEM_JSON = "application/problem+json";

    static final JsonMapper JSON = JsonMapper.builder().build();
    /** HTTP/1.1: a server-sent stream is one long response, read line by line. */
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final Admin ADMIN = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            KAFKA.bootstrapServers()));
    static final EventPublisher EVENTS = new EventPublisher(KAFKA.bootstrapServers(), TOPIC);
    /** Every test's users are new: no test sees another's events through a filter. */
    static final AtomicLong NEXT_USER = new AtomicLong(20_000);

    static {
        try (ShardDataSources dataSources = new ShardDataSources(SHARDS.shardMap(),
                new ShardDataSources.PoolSettings(SHARDS.username(), SHARDS.password(), 2, Duration.ofSeconds(2),
                        "changes-it"))) {
            ShardMigrations.migrateAll(dataSources);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        SHARDS.springProperties().forEach((k, v) -> registry.add(k, () -> v));
        registry.add("graph.check.redis-uri", () -> REDIS_URI);
        registry.add("graph.check.bloom.kafka-bootstrap", KAFKA::bootstrapServers);
        registry.add("graph.check.bloom.topic", () -> TOPIC);
        registry.add("graph.check.bloom.minimum-expected-edges", () -> "1000");
        registry.add("graph.check.bloom.snapshot-dir", () -> "target/no-bloom-snapshots"); // start-up scans
        registry.add("graph.check.feed.max-lag", () -> "60s"); // as BloomIT: a loaded machine's feed is not stale
        registry.add("graph.check.changes.window", () -> Integer.toString(WINDOW));
        // Short: an idle server-sent stream shows its periodic checkpoint within the test's patience.
        registry.add("graph.check.changes.checkpoint-interval", () -> "500ms");
    }

    @AfterAll
    static void close() {
        EVENTS.close();
        ADMIN.close(Duration.ofSeconds(5));
        SHARDS.close();
    }

    @Autowired
    ShardDataSources dataSources;

    /** Only to decode the cursors the service answers (the tests compare positions with the topic's offsets). */
    @Autowired
    ChangeStream stream;

    /** Only to wait until the view of inactive users has polled a state the test wrote. */
    @Autowired
    GraphReads graphReads;

    @LocalServerPort
    int port;

    CheckHttp http;

    /** The stream is served once the event feed is positioned (the bloom start-up does it before readiness). */
    @BeforeEach
    void served() {
        http = new CheckHttp(port);
        Awaitility.await("the change stream is served").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> http.get(CHANGES + "/head").statusCode() == 200);
    }

    // ------------------------------------------------------------------------------------------------ head

    @Test
    void head_answersTheCursorOfTheFeedsPosition() throws Exception {
        HttpResponse<String> response = get(CHANGES + "/head");
        JsonNode head = http.json(response);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        assertThat(head.propertyNames()).containsExactly("cursor");
        assertThat(stream.decode(head.get("cursor").stringValue())).hasSize(PARTITIONS);

        // The head is the feed's position: one event later it is one record further in that event's partition.
        long[] before = stream.decode(settledHead());
        long followee = onPartition(3);
        publish(FollowEvent.follow(fresh(), followee, T0, 1, T0));
        long[] expected = before.clone();
        expected[3]++;
        Awaitility.await("the head moves past the event").atMost(Duration.ofSeconds(30))
                .until(() -> Arrays.equals(stream.decode(head()), expected));
    }

    // ------------------------------------------------------------------------------------------------ long-poll

    @Test
    void longPoll_answersTheEventsAfterTheCursor_inPairOrder_andResumesFromAnEventsCursor() throws Exception {
        String head = settledHead();
        // At most two records per partition: the head stays within memory, and one page holds them all.
        long a = fresh();
        long b = onPartition(0);
        long c = fresh();
        long d = onPartition(1);
        long e = fresh();
        long f = onPartition(2);
        long g = fresh();
        long h = onPartition(3);
        List<FollowEvent> sent = List.of(
                FollowEvent.follow(a, b, T0 + 1, 1, T0 + 1),
                FollowEvent.follow(c, d, T0 + 2, 4, T0 + 2),
                FollowEvent.of(FollowEvent.Type.BLOCK, e, f, T0 + 3, 1, T0 + 3),
                FollowEvent.unfollow(a, b, T0 + 1, 2, T0 + 4),
                FollowEvent.of(FollowEvent.Type.MUTE, g, h, T0 + 5, 7, T0 + 5));
        sent.forEach(ChangesIT::publish);
        publishMalformed(d); // an offset without an event: skipped, and the cursor moves past it
        awaitConsumed();

        HttpResponse<String> response = get(CHANGES + "?cursor=" + head + "&wait=10");
        JsonNode json = http.json(response);
        assertThat(json.propertyNames()).containsExactlyInAnyOrder("events", "cursor");
        for (JsonNode event : json.get("events")) {
            assertThat(event.propertyNames()).containsExactly("eventId", "cursor", "kind", "actorId", "targetId",
                    "occurredAt", "version");
        }
        Changes.Page page = Changes.readPage(response.body());
        assertEvents(page.events(), sent);
        assertThat(stream.decode(page.cursor())).as("the page's cursor is the feed's position")
                .containsExactly(endOffsets());
        // The event's own cursor is the position just after it: resuming from it never repeats it nor skips another.
        for (int i = 0; i < page.events().size(); i++) {
            Changes.Page after = page(CHANGES + "?cursor=" + page.events().get(i).cursor() + "&wait=1");
            assertThat(eventIds(after.events())).as("after event %d", i)
                    .containsExactlyElementsOf(eventIds(page.events().subList(i + 1, page.events().size())));
        }
        // Page by page, one event each: the same events in the same order, and the same position at the end. (An
        // event's cursor may differ from the one in the single page while naming the same place in the stream: a page
        // that took the last event of a partition moves past the partition's offsets without one, here the record
        // that is not an event.)
        Drained oneByOne = drain(CHANGES + "?cursor=" + head + "&limit=1");
        assertThat(oneByOne.pages()).isEqualTo(sent.size());
        assertThat(eventIds(oneByOne.events())).containsExactlyElementsOf(eventIds(page.events()));
        assertEvents(oneByOne.events(), sent);
        assertThat(stream.decode(oneByOne.cursor())).containsExactly(endOffsets());
    }

    @Test
    void longPoll_withNothingNew_answersAnEmptyPageAfterItsWait() throws Exception {
        String head = settledHead();
        Changes.Page page = page(CHANGES + "?cursor=" + head + "&wait=1");
        assertThat(page.events()).isEmpty();
        assertThat(stream.decode(page.cursor())).containsExactly(stream.decode(head));
        // Without a cursor the stream starts at the head now; without a wait it answers at once.
        Changes.Page now = page(CHANGES);
        assertThat(now.events()).isEmpty();
        assertThat(stream.decode(now.cursor())).containsExactly(stream.decode(head));
    }

    @Test
    void longPoll_thatIsWaiting_getsAnEventPublishedMeanwhile() throws Exception {
        String head = settledHead();
        // Nothing after the head: the poll waits (a subscription to the feed's appends, no thread) until the event.
        // No time is asserted: were the wake-up lost, the poll would still answer the event once its wait ended.
        CompletableFuture<HttpResponse<String>> waiting = HTTP.sendAsync(request(CHANGES + "?cursor=" + head
                + "&wait=30").build(), HttpResponse.BodyHandlers.ofString());

        FollowEvent sent = FollowEvent.follow(fresh(), fresh(), T0 + 10, 3, T0 + 11);
        publish(sent);
        HttpResponse<String> response = waiting.get(60, TimeUnit.SECONDS);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        Changes.Page page = Changes.readPage(response.body());
        assertEvents(page.events(), List.of(sent));
        assertThat(page.cursor()).isEqualTo(page.events().getFirst().cursor());
    }

    // ------------------------------------------------------------------------------------------------ filters

    @Test
    void kindsAndUsers_keepExactlyTheMatchingEvents_andThePageCursorMovesPastTheOthers() throws Exception {
        String head = settledHead();
        long x = fresh();
        long y = onPartition(0);
        long blocker = fresh();
        long blocked = onPartition(1);
        long muter = fresh();
        long muted = onPartition(2);
        long unblocker = fresh();
        long unmuter = fresh();
        long t3 = onPartition(3);
        FollowEvent follow = FollowEvent.follow(x, y, T0 + 20, 1, T0 + 20);
        FollowEvent unfollow = FollowEvent.unfollow(x, y, T0 + 20, 2, T0 + 21);
        FollowEvent block = FollowEvent.of(FollowEvent.Type.BLOCK, blocker, blocked, T0 + 22, 1, T0 + 22);
        FollowEvent mute = FollowEvent.of(FollowEvent.Type.MUTE, muter, muted, T0 + 23, 1, T0 + 23);
        FollowEvent unblock = FollowEvent.of(FollowEvent.Type.UNBLOCK, unblocker, t3, T0 + 24, 2, T0 + 24);
        FollowEvent unmute = FollowEvent.of(FollowEvent.Type.UNMUTE, unmuter, t3, T0 + 25, 2, T0 + 25);
        long requester = fresh();
        FollowEvent request = FollowEvent.of(FollowEvent.Type.REQUEST, requester, t3, T0 + 26, 1, T0 + 26);
        FollowEvent unrequest = FollowEvent.of(FollowEvent.Type.UNREQUEST, requester, t3, T0 + 26, 2, T0 + 27);
        for (FollowEvent e : List.of(follow, block, mute, unfollow, unblock, unmute, request, unrequest)) {
            publish(e);
        }
        awaitConsumed();
        String from = CHANGES + "?cursor=" + head;

        Drained blocksAndMutes = drain(from + "&kinds=block,mute");
        assertEvents(blocksAndMutes.events(), List.of(block, mute));
        assertThat(drain(CHANGES + "?cursor=" + blocksAndMutes.cursor() + "&kinds=block,mute").events())
                .as("nothing of those kinds after the page's cursor").isEmpty();
        assertEvents(drain(from + "&kinds=unblock").events(), List.of(unblock));
        assertEvents(drain(from + "&kinds=request,unrequest").events(), List.of(request, unrequest));
        assertEvents(drain(from + "&kinds=follow,unfollow").events(), List.of(follow, unfollow));
        assertEvents(drain(from + "&users=" + x).events(), List.of(follow, unfollow));
        assertEvents(drain(from + "&users=" + muted + "," + t3).events(),
                List.of(mute, unblock, unmute, request, unrequest));
        assertEvents(drain(from + "&users=" + blocker + "&kinds=block").events(), List.of(block));
        assertEvents(drain(from + "&users=" + x + "&kinds=unfollow").events(), List.of(unfollow));

        // A filter that passes none of them: an empty page whose cursor is past all eight, at the head.
        Changes.Page none = page(from + "&kinds=follow&users=" + fresh() + "&wait=1");
        assertThat(none.events()).isEmpty();
        assertThat(stream.decode(none.cursor())).containsExactly(endOffsets());
        assertThat(page(CHANGES + "?cursor=" + none.cursor() + "&wait=1").events())
                .as("every unfiltered event is behind the filtered page's cursor").isEmpty();
    }

    // ------------------------------------------------------------------------------------------------ server-sent events

    @Test
    void serverSentEvents_openWithACheckpoint_carryEachEventAsAFrame_andResumeAfterLastEventId() throws Exception {
        String head = settledHead();
        List<Frame> events = new ArrayList<>();
        List<FollowEvent> sent;
        String checkpoint;
        try (EventStream sse = new EventStream(CHANGES + "?cursor=" + head)) {
            Frame opening = sse.next();
            assertThat(opening.event()).isEqualTo(Changes.CHECKPOINT);
            assertThat(Changes.readCursor(opening.data())).isEqualTo(opening.id());
            assertThat(stream.decode(opening.id())).containsExactly(stream.decode(head));
            Frame idle = sse.next();
            assertThat(idle.event()).as("nothing happens: another checkpoint").isEqualTo(Changes.CHECKPOINT);
            assertThat(stream.decode(idle.id())).containsExactly(stream.decode(head));
            checkpoint = idle.id();

            long a = fresh();
            long b = onPartition(0);
            long blocker = fresh();
            long blocked = onPartition(1);
            sent = List.of(
                    FollowEvent.follow(a, b, T0 + 30, 5, T0 + 30),
                    FollowEvent.of(FollowEvent.Type.BLOCK, blocker, blocked, T0 + 31, 2, T0 + 31),
                    FollowEvent.unfollow(a, b, T0 + 30, 6, T0 + 32));
            sent.forEach(ChangesIT::publish);
            while (events.size() < sent.size()) {
                Frame frame = sse.next();
                if (!frame.event().equals(Changes.CHECKPOINT)) {
                    events.add(frame);
                }
            }
        }
        List<Changes.Event> received = new ArrayList<>();
        for (Frame frame : events) {
            Changes.Event event = Changes.readEvent(frame.data());
            assertThat(frame.id()).as("id: the event's cursor").isEqualTo(event.cursor());
            assertThat(frame.event()).as("event: its kind").isEqualTo(event.kind());
            received.add(event);
        }
        assertEvents(received, sent);

        // A reconnection names the last frame it got; the URL's cursor (an EventSource keeps its URL) loses.
        try (EventStream sse = new EventStream(CHANGES + "?cursor=" + head, "Last-Event-ID", events.get(0).id())) {
            assertThat(eventId(sse.next())).as("pending events come first, without a checkpoint")
                    .isEqualTo(eventId(events.get(1)));
            assertThat(eventId(sse.nextEvent())).isEqualTo(eventId(events.get(2)));
        }
        try (EventStream sse = new EventStream(CHANGES, "Last-Event-ID", checkpoint)) { // a checkpoint's id too
            assertThat(List.of(eventId(sse.next()), eventId(sse.next()), eventId(sse.next())))
                    .containsExactlyElementsOf(events.stream().map(ChangesIT::eventId).toList());
        }
        try (EventStream sse = new EventStream(CHANGES, "Last-Event-ID", events.get(2).id())) {
            Frame opening = sse.next();
            assertThat(opening.event()).as("nothing after the last event: a checkpoint").isEqualTo(Changes.CHECKPOINT);
            assertThat(stream.decode(opening.id())).containsExactly(endOffsets());
        }
    }

    // ------------------------------------------------------------------------------------------------ the topic

    @Test
    void aCursorOlderThanMemory_isServedFromTheTopic_everyEventInOrder_acrossPages() throws Exception {
        String head = settledHead();
        long followee = onPartition(1);
        long other = onPartition(3);
        List<FollowEvent> sent = new ArrayList<>();
        List<FollowEvent> ofFollowee = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            FollowEvent e = FollowEvent.follow(fresh(), followee, T0 + 40 + i, i + 1, T0 + 40 + i);
            ofFollowee.add(e);
            sent.add(e);
            publish(e);
            if (i == 5) {
                publishMalformed(followee); // the topic's reader skips it as the feed does
            }
            if (i % 3 == 0) {
                FollowEvent o = FollowEvent.of(FollowEvent.Type.MUTE, fresh(), other, T0 + 40 + i, 1, T0 + 40 + i);
                sent.add(o);
                publish(o);
            }
        }
        awaitConsumed(); // memory holds the last two of each partition: the head is far behind it in both

        Drained all = drain(CHANGES + "?cursor=" + head + "&limit=5");
        assertEvents(all.events(), sent);
        assertThat(all.pages()).as("pages of at most five").isGreaterThanOrEqualTo(4);
        assertThat(stream.decode(all.cursor())).containsExactly(endOffsets());

        // From the cursor of an event still behind memory: exactly the events after it.
        for (int i : new int[] {0, 6, 11}) {
            Drained rest = drain(CHANGES + "?cursor=" + all.events().get(i).cursor() + "&limit=2");
            assertEvents(rest.events(), sentAs(all.events().subList(i + 1, all.events().size()), sent));
        }
        // The same from the whole stream of one user, and from the user's own stream.
        assertThat(eventIds(drain(CHANGES + "?cursor=" + head + "&users=" + followee + "&limit=3").events()))
                .containsExactlyElementsOf(eventIds(ofFollowee));
        assertThat(eventIds(drain("/internal/v1/users/" + followee + "/changes?cursor=" + head + "&limit=4")
                .events())).containsExactlyElementsOf(eventIds(ofFollowee));
        // And as server-sent events: from the topic, then from memory.
        try (EventStream sse = new EventStream(CHANGES + "?cursor=" + head + "&limit=3")) {
            List<Changes.Event> received = new ArrayList<>();
            while (received.size() < sent.size()) {
                received.add(Changes.readEvent(sse.nextEvent().data()));
            }
            assertEvents(received, sent);
        }
    }

    @Test
    void aCursorOlderThanTheTopicKeeps_answers410CursorExpired() throws Exception {
        String head = settledHead();
        int partition = 2;
        long followee = onPartition(partition);
        List<FollowEvent> sent = List.of(
                FollowEvent.follow(fresh(), followee, T0 + 60, 1, T0 + 60),
                FollowEvent.follow(fresh(), followee, T0 + 61, 1, T0 + 61),
                FollowEvent.follow(fresh(), followee, T0 + 62, 1, T0 + 62));
        sent.forEach(ChangesIT::publish);
        awaitConsumed(); // three records, two in memory: the head is behind memory in this partition
        Changes.Page first = page(CHANGES + "?cursor=" + head + "&limit=1");
        assertEvents(first.events(), sent.subList(0, 1));

        long start = stream.decode(head)[partition] + 1;
        TopicPartition tp = new TopicPartition(TOPIC, partition);
        ADMIN.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(start))).all().get(30, TimeUnit.SECONDS);

        for (HttpResponse<String> response : List.of(get(CHANGES + "?cursor=" + head),
                get(CHANGES + "?cursor=" + head + "&wait=5"),
                get("/internal/v1/users/" + followee + "/changes?cursor=" + head),
                get(CHANGES, "Accept", "text/event-stream", "Last-Event-ID", head))) {
            JsonNode problem = problem(response, 410);
            assertThat(problem.get("type").stringValue()).isEqualTo("https://socialgraph.dev/problems/cursor-expired");
            assertThat(problem.get("parameter").stringValue()).isEqualTo("cursor");
            assertThat(problem.get("retentionSeconds").longValue()).isEqualTo(RETENTION_SECONDS);
        }
        // The first event's cursor is at the partition's new start: still served, the two events after it.
        assertEvents(drain(CHANGES + "?cursor=" + first.cursor()).events(), sent.subList(1, 3));
        assertEvents(drain(CHANGES + "?cursor=" + first.events().getFirst().cursor()).events(), sent.subList(1, 3));
    }

    // ------------------------------------------------------------------------------------------------ own stream

    @Test
    void ownStream_showsTheOwnersFollowsAndOwnBlocksAndMutes_nothingFromABlockerOrAnInactiveUser() throws Exception {
        long owner = fresh();
        long follower = fresh();
        long followee = fresh();
        long blockedByOwner = fresh();
        long mutedByOwner = fresh();
        long blocksOwner = fresh();
        long mutesOwner = fresh();
        long blockerOfOwner = fresh(); // whose block row stands: nothing between them is shown to the owner
        long inactive = fresh();
        long x = fresh();
        long y = fresh();
        new GraphWriter(dataSources).block(blockerOfOwner, owner, T0);
        setAccountState(inactive, 1); // deactivated
        Awaitility.await("the view of inactive users has polled the state").atMost(Duration.ofSeconds(30))
                .until(() -> graphReads.isInactive(inactive));
        String head = settledHead();

        FollowEvent followedBy = FollowEvent.follow(follower, owner, T0 + 70, 1, T0 + 70);
        FollowEvent follows = FollowEvent.follow(owner, followee, T0 + 71, 1, T0 + 71);
        FollowEvent unfollows = FollowEvent.unfollow(owner, followee, T0 + 71, 2, T0 + 72);
        FollowEvent blocks = FollowEvent.of(FollowEvent.Type.BLOCK, owner, blockedByOwner, T0 + 73, 1, T0 + 73);
        FollowEvent mutes = FollowEvent.of(FollowEvent.Type.MUTE, owner, mutedByOwner, T0 + 74, 1, T0 + 74);
        FollowEvent unmutes = FollowEvent.of(FollowEvent.Type.UNMUTE, owner, mutedByOwner, T0 + 74, 2, T0 + 75);
        FollowEvent blockOfOwner = FollowEvent.of(FollowEvent.Type.BLOCK, blocksOwner, owner, T0 + 76, 1, T0 + 76);
        FollowEvent muteOfOwner = FollowEvent.of(FollowEvent.Type.MUTE, mutesOwner, owner, T0 + 77, 1, T0 + 77);
        FollowEvent blockerFollows = FollowEvent.follow(blockerOfOwner, owner, T0 + 78, 1, T0 + 78);
        FollowEvent followsBlocker = FollowEvent.follow(owner, blockerOfOwner, T0 + 79, 2, T0 + 79);
        FollowEvent inactiveFollows = FollowEvent.follow(inactive, owner, T0 + 80, 1, T0 + 80);
        FollowEvent followsInactive = FollowEvent.follow(owner, inactive, T0 + 81, 3, T0 + 81);
        FollowEvent unrelated = FollowEvent.follow(x, y, T0 + 82, 1, T0 + 82);
        List<FollowEvent> all = List.of(followedBy, follows, blockOfOwner, unfollows, blocks, blockerFollows, mutes,
                muteOfOwner, followsBlocker, inactiveFollows, unmutes, followsInactive, unrelated);
        all.forEach(ChangesIT::publish);
        awaitConsumed();

        String own = "/internal/v1/users/" + owner + "/changes?cursor=" + head;
        assertEvents(drain(own).events(), List.of(followedBy, follows, unfollows, blocks, mutes, unmutes));
        assertEvents(drain(own + "&kinds=follow").events(), List.of(followedBy, follows));
        assertEvents(drain(own + "&users=" + mutedByOwner).events(), List.of(mutes, unmutes));
        assertThat(drain(own + "&users=" + blocksOwner + "," + mutesOwner + "," + blockerOfOwner).events())
                .as("another's block or mute of the owner, and the pair with a blocker").isEmpty();
        try (EventStream sse = new EventStream(own)) {
            List<Changes.Event> received = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                received.add(Changes.readEvent(sse.nextEvent().data()));
            }
            assertEvents(received, List.of(followedBy, follows, unfollows, blocks, mutes, unmutes));
        }

        // The whole stream has no privacy rule for blocks (it is for backends), but shows no inactive user either.
        String whole = CHANGES + "?cursor=" + head;
        assertEvents(drain(whole + "&users=" + blockerOfOwner).events(), List.of(blockerFollows, followsBlocker));
        assertEvents(drain(whole + "&users=" + blocksOwner + "," + mutesOwner).events(),
                List.of(blockOfOwner, muteOfOwner));
        assertThat(drain(whole + "&users=" + inactive).events()).isEmpty();
        assertThat(eventIds(drain(whole).events())).containsExactlyInAnyOrderElementsOf(eventIds(all.stream()
                .filter(e -> e != inactiveFollows && e != followsInactive).toList()));
    }

    // ------------------------------------------------------------------------------------------------ accounts

    @Test
    void anAccountChange_isAnEventOfItsUserAlone_andOfAnErasedUserOnlyTheEraseIsServed() throws Exception {
        long user = fresh();
        long other = fresh();
        String head = settledHead();
        FollowEvent follows = FollowEvent.follow(user, other, T0 + 90, 1, T0 + 90);
        AccountEvent deactivated = AccountEvent.of(AccountEvent.Type.DEACTIVATE, user, 1, T0 + 91);
        publish(follows);
        publish(deactivated);
        awaitConsumed();
        String ofUser = CHANGES + "?cursor=" + head + "&users=" + user;

        assertEvents(drain(ofUser).events(), List.of(follows, deactivated));
        JsonNode raw = http.json(get(ofUser + "&kinds=deactivate")).get("events").get(0);
        assertThat(raw.get("actorId").longValue()).isEqualTo(user);
        assertThat(raw.has("targetId")).as("an account change names no target").isFalse();
        assertEvents(drain("/internal/v1/users/" + user + "/changes?cursor=" + head).events(),
                List.of(follows, deactivated));
        assertThat(drain("/internal/v1/users/" + other + "/changes?cursor=" + head + "&kinds=deactivate").events())
                .as("another user's account change is not in one's own stream").isEmpty();

        setAccountState(user, 2); // erased
        Awaitility.await("the view of inactive users has polled the erasure").atMost(Duration.ofSeconds(30))
                .until(() -> graphReads.isErased(user));
        AccountEvent erased = AccountEvent.of(AccountEvent.Type.ERASE, user, 2, T0 + 92);
        publish(erased);
        awaitConsumed();

        assertEvents(drain(ofUser).events(), List.of(erased));
        assertEvents(drain(CHANGES + "?cursor=" + head + "&kinds=deactivate,erase,follow").events().stream()
                .filter(e -> e.actorId() == user || e.targetId() == user).toList(), List.of(erased));
    }

    // ------------------------------------------------------------------------------------------------ bad input

    @Test
    void badInput_answers400NamingTheParameter() throws Exception {
        String head = http.json(get(CHANGES + "/head")).get("cursor").stringValue();
        int at = head.length() - 5; // within the signature
        String tampered = head.substring(0, at) + (head.charAt(at) == 'A' ? 'B' : 'A') + head.substring(at + 1);

        Map<String, String> cases = new HashMap<>();
        cases.put(CHANGES + "?cursor=abc", "cursor");
        cases.put(CHANGES + "?cursor=" + tampered, "cursor");
        cases.put(CHANGES + "?cursor=" + head.substring(0, head.length() - 4), "cursor");
        cases.put(CHANGES + "?kinds=unknown", "kinds");
        cases.put(CHANGES + "?kinds=follow,", "kinds");
        cases.put(CHANGES + "?users=0", "users");
        cases.put(CHANGES + "?users=abc", "users");
        cases.put(CHANGES + "?users=12,-4", "users");
        cases.put(CHANGES + "?limit=0", "limit");
        cases.put(CHANGES + "?limit=1001", "limit");
        cases.put(CHANGES + "?limit=x", "limit");
        cases.put(CHANGES + "?wait=31", "wait");
        cases.put(CHANGES + "?wait=-1", "wait");
        cases.put(CHANGES + "?wait=1.5", "wait");
        cases.put("/internal/v1/users/-3/changes", "id");
        cases.put("/internal/v1/users/abc/changes", "id");
        cases.put("/internal/v1/users/7/changes?limit=0", "limit");
        cases.put(CHANGES + "?cursor=", "cursor");
        cases.put(CHANGES + "?kinds=", "kinds");
        cases.put(CHANGES + "?users=", "users");
        cases.put(CHANGES + "?limit=", "limit");
        cases.put(CHANGES + "?wait=", "wait");
        cases.put(CHANGES + "?users=" + String.join(",", Collections.nCopies(Changes.MAX_USERS + 1, "1")),
                "users");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            for (String[] accept : List.of(new String[0], new String[] {"Accept", "text/event-stream"})) {
                JsonNode problem = problem(get(c.getKey(), accept), 400);
                assertThat(problem.get("parameter").stringValue()).as(c.getKey() + " " + List.of(accept))
                        .isEqualTo(c.getValue());
                assertThat(problem.get("type").stringValue())
                        .isEqualTo("https://socialgraph.dev/problems/invalid-parameter");
            }
        }
        assertThat(problem(get(CHANGES + "?cursor=" + tampered), 400).get("reason").stringValue())
                .isEqualTo("tampered");

        for (String garbage : List.of("garbage", "abc", tampered)) {
            for (String[] accept : List.of(new String[0], new String[] {"Accept", "text/event-stream"})) {
                String[] headers = Stream.concat(Arrays.stream(accept), Stream.of("Last-Event-ID", garbage))
                        .toArray(String[]::new);
                JsonNode problem = problem(get(CHANGES + "?cursor=" + head, headers), 400);
                assertThat(problem.get("parameter").stringValue()).as(garbage).isEqualTo("Last-Event-ID");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The body of a problem answer of {@code status}, after checking its media type. */
    static JsonNode problem(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.uri() + ": " + response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).as(response.uri().toString())
                .hasValueSatisfying(type -> assertThat(type).startsWith(PROBLEM_JSON));
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.get("status").intValue()).isEqualTo(status);
        return problem;
    }

    /** A page answered 200. */
    Changes.Page page(String pathAndQuery) throws Exception {
        HttpResponse<String> response = get(pathAndQuery);
        assertThat(response.statusCode()).as(pathAndQuery + ": " + response.body()).isEqualTo(200);
        return Changes.readPage(response.body());
    }

    /**
     * What a consumer reads from a path and query holding a cursor: pages, each from the previous page's cursor,
     * until a long-poll of a second answers none.
     */
    record Drained(List<Changes.Event> events, String cursor, int pages) {
    }

    Drained drain(String pathAndQuery) throws Exception {
        int q = pathAndQuery.indexOf("cursor=");
        int end = pathAndQuery.indexOf('&', q);
        String before = pathAndQuery.substring(0, q + "cursor=".length());
        String after = end < 0 ? "" : pathAndQuery.substring(end);
        String cursor = pathAndQuery.substring(q + "cursor=".length(), end < 0 ? pathAndQuery.length() : end);
        List<Changes.Event> events = new ArrayList<>();
        int pages = 0;
        while (true) {
            Changes.Page page = page(before + cursor + after + "&wait=1");
            cursor = page.cursor();
            if (page.events().isEmpty()) {
                return new Drained(events, cursor, pages);
            }
            assertThat(pages).as("pages read").isLessThan(100);
            pages++;
            events.addAll(page.events());
        }
    }

    /**
     * Asserts that {@code got} is exactly the events {@code sent}, field by field, and that the events of each
     * followee (the Kafka key: one partition, so the events of each pair too) come in the order they were published;
     * the partitions may interleave.
     */
    static void assertEvents(List<Changes.Event> got, List<? extends GraphEvent> sent) {
        assertThat(eventIds(got)).containsExactlyInAnyOrderElementsOf(eventIds(sent));
        Map<String, Integer> position = new HashMap<>();
        for (int i = 0; i < got.size(); i++) {
            position.put(got.get(i).eventId(), i);
        }
        Map<Long, Integer> lastOfKey = new HashMap<>();
        for (GraphEvent e : sent) {
            int at = position.get(e.eventId());
            Changes.Event event = got.get(at);
            assertThat(event).as(e.eventId()).isEqualTo(new Changes.Event(e.eventId(), event.cursor(), e.kind(),
                    e.actorId(), e.targetId(), e.occurredAt(), e.version()));
            assertThat(event.cursor()).isNotBlank();
            long key = e.partitionKey(); // as the relay keys them
            Integer previous = lastOfKey.put(key, at);
            assertThat(previous == null || previous < at)
                    .as("%s after the previous event of key %d", e.eventId(), key).isTrue();
        }
    }

    /** The events of {@code sent} whose ids are those of {@code got}, in {@code got}'s order. */
    static List<FollowEvent> sentAs(List<Changes.Event> got, List<FollowEvent> sent) {
        Map<String, FollowEvent> byId = new HashMap<>();
        sent.forEach(e -> byId.put(e.eventId(), e));
        return got.stream().map(e -> byId.get(e.eventId())).toList();
    }

    static List<String> eventIds(List<?> events) {
        return events.stream().map(e -> e instanceof GraphEvent f ? f.eventId() : ((Changes.Event) e).eventId())
                .toList();
    }

    String head() throws Exception {
        return http.json(get(CHANGES + "/head")).get("cursor").stringValue();
    }

    /**
     * The head once the service's feed has consumed every record of the topic: the events published from here on are
     * exactly the events after it.
     */
    String settledHead() {
        AtomicReference<String> head = new AtomicReference<>();
        Awaitility.await("the event feed reaches the topic's end").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50)).until(() -> {
                    head.set(head());
                    return Arrays.equals(stream.decode(head.get()), endOffsets());
                });
        return head.get();
    }

    /** Waits until the service's feed has consumed everything published. */
    void awaitConsumed() {
        settledHead();
    }

    /** The topic's end offsets, by partition. */
    static long[] endOffsets() throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answer = ADMIN.listOffsets(latest).all()
                .get(30, TimeUnit.SECONDS);
        long[] end = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            end[p] = answer.get(new TopicPartition(TOPIC, p)).offset();
        }
        return end;
    }

    /** Publishes as the outbox relay does, checking the partition the test's reads assume. */
    static void publish(GraphEvent event) {
        assertThat(EVENTS.publish(event).partition()).as("the partitioner keys by followee")
                .isEqualTo(partitionOf(event.partitionKey()));
    }

    /** Publishes a record no reader can parse (the relay never does; the feed and the topic's readers skip it). */
    static void publishMalformed(long followee) {
        EVENTS.publishRaw(Long.toString(followee), "{\"not\":\"an event\"}".getBytes(StandardCharsets.UTF_8));
    }

    /** The partition the producer's default partitioner gives a followee's events. */
    static int partitionOf(long followee) {
        return Utils.toPositive(Utils.murmur2(Long.toString(followee).getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }

    /** A user no test has used yet. */
    static long fresh() {
        return NEXT_USER.getAndIncrement();
    }

    /** A new user whose events (as followee or target) go to {@code partition}. */
    static long onPartition(int partition) {
        while (true) {
            long id = fresh();
            if (partitionOf(id) == partition) {
                return id;
            }
        }
    }

    void setAccountState(long user, int state) throws Exception {
        new GraphWriter(dataSources).setAccountState(user, state);
    }

    /**
     * GETs {@code pathAndQuery} with the service credential; {@code headers} are name, value pairs. Bounded: a
     * server-sent stream opened where a problem was expected fails the test instead of hanging it.
     */
    HttpResponse<String> get(String pathAndQuery, String... headers) throws Exception {
        HttpRequest.Builder builder = request(pathAndQuery);
        if (headers.length > 0) {
            builder.headers(headers);
        }
        return HTTP.sendAsync(builder.GET().build(), HttpResponse.BodyHandlers.ofString()).get(60, TimeUnit.SECONDS);
    }

    HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .header("X-Service-Token", ServiceProcess.SERVICE_TOKEN);
    }

    /** One server-sent event as it came on the wire. */
    record Frame(String id, String event, String data) {
    }

    /**
     * The kind and id of the event a frame carries, after checking that the frame's {@code id:} is the event's cursor
     * and its {@code event:} the event's kind; a checkpoint's kind and cursor.
     */
    static String eventId(Frame frame) {
        if (Changes.CHECKPOINT.equals(frame.event())) {
            assertThat(Changes.readCursor(frame.data())).isEqualTo(frame.id());
            return Changes.CHECKPOINT + " " + frame.id();
        }
        Changes.Event event = Changes.readEvent(frame.data());
        assertThat(frame.id()).as("id: the event's cursor").isEqualTo(event.cursor());
        assertThat(frame.event()).as("event: its kind").isEqualTo(event.kind());
        return event.kind() + " " + event.eventId();
    }

    /**
     * A server-sent stream read on a thread of its own, frame by frame ({@code id:}, {@code event:}, {@code data:}
     * lines up to a blank one); closing it closes the connection.
     */
    final class EventStream implements AutoCloseable {

        private final HttpResponse<Stream<String>> response;
        private final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();

        EventStream(String pathAndQuery, String... headers) throws Exception {
            HttpRequest.Builder builder = request(pathAndQuery).header("Accept", "text/event-stream");
            if (headers.length > 0) {
                builder.headers(headers);
            }
            response = HTTP.send(builder.GET().build(), HttpResponse.BodyHandlers.ofLines());
            if (response.statusCode() != 200) {
                String body = String.join("\n", response.body().toList());
                throw new AssertionError("server-sent stream " + pathAndQuery + ": " + response.statusCode() + " "
                        + body);
            }
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("text/event-stream"));
            Thread reader = new Thread(this::read, "changes-it-sse");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            String id = null;
            String event = null;
            StringBuilder data = null;
            try {
                for (var lines = response.body().iterator(); lines.hasNext(); ) {
                    String line = lines.next();
                    if (line.isEmpty()) {
                        if (id != null || event != null || data != null) {
                            frames.add(new Frame(id, event, data == null ? null : data.toString()));
                        }
                        id = null;
                        event = null;
                        data = null;
                    } else if (line.startsWith("id:")) {
                        id = value(line);
                    } else if (line.startsWith("event:")) {
                        event = value(line);
                    } else if (line.startsWith("data:")) {
                        data = data == null ? new StringBuilder(value(line)) : data.append('\n').append(value(line));
                    } // a comment (":…") or a retry: nothing the change stream sends
                }
            } catch (RuntimeException e) {
                // closed by the test
            }
        }

        private static String value(String line) {
            String v = line.substring(line.indexOf(':') + 1);
            return v.startsWith(" ") ? v.substring(1) : v;
        }

        /** The next frame; fails the test when none comes within 30 s. */
        Frame next() throws InterruptedException {
            Frame frame = frames.poll(30, TimeUnit.SECONDS);
            assertThat(frame).as("a server-sent event within 30 s").isNotNull();
            return frame;
        }

        /** The next frame that is not a checkpoint. */
        Frame nextEvent() throws InterruptedException {
            while (true) {
                Frame frame = next();
                if (!Changes.CHECKPOINT.equals(frame.event())) {
                    return frame;
                }
            }
        }

        @Override
        public void close() {
            response.body().close();
        }
    }
}
