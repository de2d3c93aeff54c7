package dev.socialgraph.check.changes;

import dev.socialgraph.check.changes.ChangeLog.Change;
import dev.socialgraph.common.cursor.ChangeCursor;
import dev.socialgraph.common.cursor.CursorExpiredException;
import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.wire.Changes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The change stream against a model of the topic: random follows, unfollows, blocks, mutes and account changes spread
 * over partitions by followee or account user (as the relay keys them), with offsets that hold no event; an instance whose memory starts after the
 * topic's beginning and keeps only a few records per partition; watchers with random filters, page sizes and
 * disconnects (each resumes from a cursor it was given). Every event after a watcher's first cursor that passes its
 * filter reaches it, nothing else does, and between two disconnects the events of a pair come in commit order and
 * the cursor never moves back.
 */
class ChangeStreamTest {

    static final int PARTITIONS = 3;
    static final byte[] KEY = "change-stream-test-key-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    /** The topic: per partition, offset -> event ({@code null}: an offset that holds no event). */
    final List<List<GraphEvent>> topic = new ArrayList<>();
    /** Offsets before these are deleted by retention. */
    final long[] earliest = new long[PARTITIONS];
    final ChangeCursor cursors = new ChangeCursor(KEY);
    int archiveReads;

    final ChangeArchive archive = new ChangeArchive() {
        @Override
        public long[] earliest(int partitions) {
            return earliest.clone();
        }

        @Override
        public Slice read(long[] from, long[] until, int max) {
            archiveReads++;
            List<Change> out = new ArrayList<>();
            long[] reached = from.clone();
            long sequence = 0;
            for (int p = 0; p < from.length; p++) {
                for (long o = from[p]; o < until[p] && out.size() < max; o++) {
                    GraphEvent e = topic.get(p).get((int) o);
                    if (e != null) {
                        out.add(new Change(p, o, sequence++, e));
                    }
                    reached[p] = o + 1;
                }
            }
            return new Slice(out, reached);
        }
    };

    ChangeLog log;
    ChangeStream stream;
    long version;

    void startInstance(int capacity, int maxScan) {
        log = new ChangeLog(capacity);
        long[] positions = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            positions[p] = topic.get(p).size();
        }
        log.start(positions);
        stream = new ChangeStream(log, archive, cursors, maxScan, Duration.ofDays(7));
    }

    ChangeStreamTest() {
        for (int p = 0; p < PARTITIONS; p++) {
            topic.add(new ArrayList<>());
        }
    }

    /** Publishes an event (or, with {@code null}, an offset with none) as the relay would, and feeds the instance. */
    GraphEvent publish(FollowEvent.Type type, long actor, long target) {
        return publish(FollowEvent.of(type, actor, target, 1_000 + version, ++version, 2_000 + version), target);
    }

    GraphEvent publish(AccountEvent.Type type, long user) {
        return publish(AccountEvent.of(type, user, ++version, 2_000 + version), user);
    }

    GraphEvent publish(GraphEvent e, long key) {
        int p = (int) (key % PARTITIONS);
        topic.get(p).add(e);
        if (log != null) {
            log.append(p, topic.get(p).size() - 1, e);
            log.advance(p, topic.get(p).size());
        }
        return e;
    }

    void publishNothing(int partition) {
        topic.get(partition).add(null);
        if (log != null) {
            log.advance(partition, topic.get(partition).size());
        }
    }

    @RepeatedTest(20)
    void everyEventPassingTheFilter_reachesEachWatcher_inPairOrder_acrossDisconnects() {
        Random random = new Random();
        long seed = random.nextLong();
        random.setSeed(seed);
        for (int i = 0; i < 30; i++) { // history before the instance started: only the topic has it
            randomWrite(random);
        }
        startInstance(1 + random.nextInt(8), 1000 + random.nextInt(50));
        List<Watcher> watchers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            watchers.add(new Watcher(random, w == 0 ? new long[PARTITIONS] : stream.head()));
        }
        for (int step = 0; step < 400; step++) {
            int op = random.nextInt(10);
            if (op < 5) {
                randomWrite(random);
            } else if (op < 9) {
                watchers.get(random.nextInt(watchers.size())).read(random);
            } else {
                watchers.get(random.nextInt(watchers.size())).disconnect(random);
            }
        }
        for (Watcher w : watchers) {
            w.drain(random);
            w.assertSawEverything("seed " + seed);
        }
    }

    @Test
    void aCursorOlderThanTheTopicKeeps_isExpired_andOneWithinIt_readsFromTheTopic() {
        for (int i = 0; i < 10; i++) {
            publish(FollowEvent.Type.FOLLOW, 10 + i, 3); // partition 0
        }
        startInstance(4, 1000);
        publish(FollowEvent.Type.FOLLOW, 99, 3);
        earliest[0] = 5;

        assertThatThrownBy(() -> stream.read(new long[] {4, 0, 0}, e -> true, 100))
                .isInstanceOf(CursorExpiredException.class).hasMessageContaining("7 days");
        ChangeStream.Batch fromTopic = stream.read(new long[] {5, 0, 0}, e -> true, 100);
        assertThat(fromTopic.events()).extracting(Changes.Event::actorId).containsExactly(15L, 16L, 17L, 18L, 19L);
        assertThat(fromTopic.next()).containsExactly(10, 0, 0);
        assertThat(stream.readInMemory(new long[] {5, 0, 0}, e -> true, 100)).as("behind memory").isNull();
        assertThat(stream.readInMemory(fromTopic.next(), e -> true, 100)).as("within memory").isNotNull();
        ChangeStream.Batch fromMemory = stream.read(fromTopic.next(), e -> true, 100);
        assertThat(fromMemory.events()).extracting(Changes.Event::actorId).containsExactly(99L);
        assertThat(fromMemory.caughtUp()).isTrue();
        assertThat(cursors.decode(fromMemory.events().get(0).cursor())).containsExactly(11, 0, 0);
    }

    @Test
    void aPositionMemoryNoLongerHolds_isRefusedByMemory_andReadFromTheTopic() {
        startInstance(2, 1000);
        long[] start = stream.head();
        for (int i = 0; i < 5; i++) {
            publish(FollowEvent.Type.FOLLOW, 10 + i, 3); // partition 0; memory keeps the last 2
        }
        assertThat(stream.readInMemory(start, e -> true, 100)).as("pushed out since the position was taken").isNull();
        ChangeStream.Batch fromTopic = stream.read(start, e -> true, 100);
        assertThat(fromTopic.events()).extracting(Changes.Event::actorId).containsExactly(10L, 11L, 12L);
        ChangeStream.Batch fromMemory = stream.readInMemory(fromTopic.next(), e -> true, 100);
        assertThat(fromMemory.events()).extracting(Changes.Event::actorId).containsExactly(13L, 14L);
        assertThat(fromMemory.caughtUp()).isTrue();
    }

    @Test
    void aNarrowFilter_movesTheCursorPastWhatItSkips_inBoundedSteps() {
        startInstance(100, 5);
        for (int i = 0; i < 12; i++) {
            publish(FollowEvent.Type.FOLLOW, 10 + i, 3);
        }
        publish(FollowEvent.Type.MUTE, 40, 3);
        long[] position = new long[PARTITIONS];
        int reads = 0;
        List<Changes.Event> found = new ArrayList<>();
        ChangeStream.Batch batch;
        do {
            batch = stream.read(position, e -> e.kind().equals("mute"), 10);
            found.addAll(batch.events());
            position = batch.next();
            reads++;
        } while (!batch.caughtUp());
        assertThat(found).extracting(Changes.Event::kind).containsExactly("mute");
        assertThat(reads).as("13 records, 5 looked at per read").isEqualTo(3);
        assertThat(position).containsExactly(13, 0, 0);
    }

    @Test
    void aStoppedFeed_servesNothing_ratherThanAStalePosition() {
        startInstance(10, 1000);
        log.markStale();
        assertThatThrownBy(() -> stream.head()).isInstanceOf(ChangeStream.UnavailableException.class);
        assertThatThrownBy(() -> stream.read(new long[PARTITIONS], e -> true, 10))
                .isInstanceOf(ChangeStream.UnavailableException.class);
    }

    void randomWrite(Random random) {
        if (random.nextInt(8) == 0) {
            publishNothing(random.nextInt(PARTITIONS));
            return;
        }
        if (random.nextInt(6) == 0) {
            AccountEvent.Type type = AccountEvent.Type.values()[random.nextInt(AccountEvent.Type.values().length)];
            publish(type, 1 + random.nextInt(6));
            return;
        }
        FollowEvent.Type type = FollowEvent.Type.values()[random.nextInt(FollowEvent.Type.values().length)];
        long actor = 1 + random.nextInt(6);
        long target = 1 + random.nextInt(6);
        if (actor == target) {
            target = actor % 6 + 1;
        }
        publish(type, actor, target);
    }

    /** Every event of the topic at or after {@code from}, in the topic's order per partition. */
    List<GraphEvent> after(long[] from) {
        List<GraphEvent> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (int o = (int) from[p]; o < topic.get(p).size(); o++) {
                if (topic.get(p).get(o) != null) {
                    out.add(topic.get(p).get(o));
                }
            }
        }
        return out;
    }

    final class Watcher {
        final long[] start;
        final ChangeFilter filter;
        final List<String> cursorsSeen = new ArrayList<>();
        final Set<String> seen = new HashSet<>();
        long[] position;
        /** Per pair, the version of the last event of this session. */
        Map<String, Long> lastOfPair = new HashMap<>();

        Watcher(Random random, long[] start) {
            this.start = start;
            this.position = start;
            Set<String> kinds = new HashSet<>();
            for (String kind : Changes.KINDS_SERVED) {
                if (random.nextBoolean()) {
                    kinds.add(kind);
                }
            }
            long[] users = random.nextBoolean() ? new long[0] : new long[] {1 + random.nextInt(3), 4};
            java.util.Arrays.sort(users);
            this.filter = new ChangeFilter(kinds, users, 0, id -> false, id -> false);
        }

        void read(Random random) {
            ChangeStream.Batch batch = stream.read(position, filter, 1 + random.nextInt(5));
            for (Changes.Event e : batch.events()) {
                assertThat(filter.test(model(e.eventId()))).as("passes the filter").isTrue();
                String pair = e.actorId() + ">" + e.targetId();
                Long last = lastOfPair.get(pair);
                assertThat(last == null || e.version() > last).as("pair " + pair + " in commit order").isTrue();
                lastOfPair.put(pair, e.version());
                seen.add(e.eventId());
                cursorsSeen.add(e.cursor());
            }
            long[] next = batch.next();
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(next[p]).as("the cursor never moves back").isGreaterThanOrEqualTo(position[p]);
            }
            position = next;
            cursorsSeen.add(cursors.encode(next));
        }

        void disconnect(Random random) {
            if (!cursorsSeen.isEmpty()) {
                position = cursors.decode(cursorsSeen.get(random.nextInt(cursorsSeen.size())));
                lastOfPair = new HashMap<>(); // a new session: what it sees again may repeat
            }
        }

        void drain(Random random) {
            for (int i = 0; i < 10_000; i++) {
                ChangeStream.Batch batch = stream.read(position, filter, 1000);
                for (Changes.Event e : batch.events()) {
                    seen.add(e.eventId());
                }
                position = batch.next();
                if (batch.caughtUp() && batch.events().isEmpty()) {
                    return;
                }
            }
            throw new AssertionError("never caught up");
        }

        void assertSawEverything(String why) {
            Set<String> expected = new HashSet<>();
            for (GraphEvent e : after(start)) {
                if (filter.test(e)) {
                    expected.add(e.eventId());
                }
            }
            assertThat(seen).as(why).containsAll(expected);
            assertThat(expected).as(why + ": no event outside the filter or before the start").containsAll(seen);
        }

        GraphEvent model(String eventId) {
            for (List<GraphEvent> partition : topic) {
                for (GraphEvent e : partition) {
                    if (e != null && e.eventId().equals(eventId)) {
                        return e;
                    }
                }
            }
            throw new AssertionError("a phantom event " + eventId);
        }
    }
}
