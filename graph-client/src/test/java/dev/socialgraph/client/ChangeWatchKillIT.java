package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.socialgraph.client.FollowChanges.ChangeFilter;
import dev.socialgraph.client.FollowChanges.ChangeListener;
import dev.socialgraph.client.FollowChanges.ChangeWatch;
import dev.socialgraph.localruntime.ServiceProcess;
import dev.socialgraph.testsupport.KafkaServer;
import dev.socialgraph.testsupport.TestServers;
import dev.socialgraph.testsupport.TestShards;
import dev.socialgraph.wire.Changes;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A watcher of the change stream ({@link FollowCheckClient#watchChanges}) across a {@code kill -9} of each check
 * instance it reads from and of the write service, through the real processes: follow-write-service and two
 * follow-check-service instances, each its own JVM ({@link ServiceProcess}), restarted on their own ports as a
 * supervisor would. Every acknowledged write reaches the watcher exactly once and nothing else does: no gap where an
 * instance died under the watch (it resumes from its last cursor on the other one), and no write acknowledged before
 * the write service died is lost (the outbox publishes it after the restart).
 */
class ChangeWatchKillIT {

    static final TestShards SHARDS = TestShards.create("change_watch_kill");
    static final KafkaServer KAFKA = TestServers.kafka();
    static final String TOPIC = KAFKA.createTopic("follow-events", 4);
    static final Duration STARTUP = Duration.ofSeconds(180);
    /** Generous: a watch's retry backoff grows to seconds while its instance is down, on a loaded test machine. */
    static final Duration DELIVERY = Duration.ofSeconds(90);
    static final long ACTOR = 7_300_001L;

    static ServiceProcess write;
    static final ServiceProcess[] checks = new ServiceProcess[2];

    static {
        try {
            start();
        } catch (RuntimeException e) {
            stop(); // a failed class initializer runs no @AfterAll: do not leave the JVMs running
            throw e;
        }
    }

    private static void start() {
        FleetProperties fleet = FleetProperties.of(SHARDS, KAFKA, TOPIC);
        write = ServiceProcess.start("follow-write-service", fleet.write(), STARTUP);
        for (int i = 0; i < checks.length; i++) {
            checks[i] = ServiceProcess.start("follow-check-service", fleet.check("check-" + i, "check-0,check-1"),
                    STARTUP);
        }
    }

    @AfterAll
    static void stop() {
        for (ServiceProcess service : new ServiceProcess[] {checks[0], checks[1], write}) {
            if (service != null) {
                service.close();
            }
        }
        SHARDS.close();
    }

    @Test
    void aWatcherAcrossAKill9OfEachInstanceItReads_andOfTheWriteService_getsEveryAcknowledgedWriteOnce()
            throws Exception {
        try (FollowCheckClient client = FollowCheckClient.builder()
                .instance("check-0", URI.create(checks[0].baseUrl()))
                .instance("check-1", URI.create(checks[1].baseUrl()))
                .writeInstance(URI.create(write.baseUrl()))
                .serviceToken(ServiceProcess.SERVICE_TOKEN)
                .connectTimeout(Duration.ofSeconds(5))
                .requestTimeout(Duration.ofSeconds(30))
                .build()) {
            List<String> acknowledged = new ArrayList<>();
            List<Changes.Event> received = new CopyOnWriteArrayList<>();
            AtomicReference<RuntimeException> stopped = new AtomicReference<>();
            try (ChangeWatch watch = client.watchChanges(client.changesHead(), ChangeFilter.ALL.withUsers(ACTOR),
                    new ChangeListener() {
                        @Override
                        public void onEvent(Changes.Event event, String cursor) {
                            received.add(event);
                        }

                        @Override
                        public void onError(RuntimeException failure) {
                            stopped.set(failure);
                        }
                    })) {
                long followee = 7_400_001L;
                followee = writes(client, followee, acknowledged);
                awaitDelivered(received, acknowledged, stopped);

                // The watch reads from one of the two; each dies in turn under it, the other one serving meanwhile.
                checks[0].kill();
                followee = writes(client, followee, acknowledged);
                awaitDelivered(received, acknowledged, stopped);
                checks[0] = checks[0].restart(STARTUP);
                checks[1].kill(); // and stays down: check-0, back on its port, serves the rest
                followee = writes(client, followee, acknowledged);
                awaitDelivered(received, acknowledged, stopped);

                followee = writes(client, followee, acknowledged);
                write.kill(); // after the acknowledgements: the relay may not have published them yet
                write = write.restart(STARTUP);
                writes(client, followee, acknowledged);
                awaitDelivered(received, acknowledged, stopped);
                assertThat(watch.isRunning()).isTrue();
            }
            assertThat(received).extracting(Changes.Event::eventId)
                    .as("every acknowledged write once, nothing else")
                    .containsExactlyInAnyOrderElementsOf(acknowledged);
            Map<Long, Long> lastVersionOfPair = new HashMap<>();
            for (Changes.Event e : received) {
                Long previous = lastVersionOfPair.put(e.targetId(), e.version());
                assertThat(previous == null || previous < e.version()).as("%s in the pair's commit order", e.eventId())
                        .isTrue();
            }
        }
    }

    /** Follows and unfollows by {@link #ACTOR}, each acknowledged; their event ids go to {@code acknowledged}. */
    private static long writes(FollowCheckClient client, long followee, List<String> acknowledged) {
        for (int i = 0; i < 3; i++) {
            WriteResult follow = client.follow(ACTOR, followee);
            acknowledged.add(ACTOR + "-" + follow.version());
            if (i == 1) {
                WriteResult unfollow = client.unfollow(ACTOR, followee);
                acknowledged.add(ACTOR + "-" + unfollow.version());
            }
            followee++;
        }
        return followee;
    }

    private static void awaitDelivered(List<Changes.Event> received, List<String> acknowledged,
                                       AtomicReference<RuntimeException> stopped) {
        await().atMost(DELIVERY).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(stopped.get()).as("the watch stopped").isNull();
            assertThat(received).extracting(Changes.Event::eventId).containsAll(acknowledged);
        });
    }
}
