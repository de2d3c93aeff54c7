package dev.socialgraph.check.bloom;

import dev.socialgraph.bloom.BloomSnapshot;
import dev.socialgraph.bloom.SnapshotStore;
import dev.socialgraph.check.affinity.ShardOwnership;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.store.shard.ShardDataSources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Bloom snapshots for this instance (DESIGN.md 5 step 1): finds the newest valid snapshot in
 * {@code graph.check.bloom.snapshot-dir} that covers the shards served (every logical shard: the instance reads all
 * following databases), and swaps a rebuilt one in without downtime ({@link #swap}): on
 * {@code POST /internal/v1/bloom/swap}, and on its own when a newer file appears (checked every
 * {@code swap-check-interval}). Only an instance that owns every logical shard uses snapshots: one that owns a
 * slice ({@code graph.check.affinity.instances}) builds its filter by scanning its shards, since a snapshot covers
 * a contiguous range and a rendezvous slice is scattered (docs/decisions/0012-shard-affine-reads.md); it never swaps.
 */
@Component
public class BloomSnapshots implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(BloomSnapshots.class);

    /** Outcome of {@link #swap}. */
    public sealed interface SwapResult {
        /** The live filter now is the snapshot's, caught up by {@code replayed} events. */
        record Swapped(long snapshotCreatedAt, long replayed) implements SwapResult {
        }

        /** The newest valid snapshot already is the live filter's. */
        record AlreadyLive(long snapshotCreatedAt) implements SwapResult {
        }

        /** Nothing changed; {@code reason} says why. */
        record NotSwapped(String reason) implements SwapResult {
        }
    }

    private final CheckProperties.Bloom settings;
    private final EdgeBloom bloom;
    private final SnapshotStore store;
    private final SnapshotReplay replay;
    private final int logicalShards;
    private final ShardOwnership ownership;
    private final ReentrantLock swapping = new ReentrantLock();
    private final ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("bloom-snapshot-check").daemon(true).factory());

    BloomSnapshots(CheckProperties properties, EdgeBloom bloom, ShardDataSources dataSources,
                   ShardOwnership ownership) {
        this.settings = properties.bloom();
        this.ownership = ownership;
        this.bloom = bloom;
        this.store = new SnapshotStore(Path.of(settings.snapshotDir()), Integer.MAX_VALUE);
        this.replay = new SnapshotReplay(settings);
        this.logicalShards = dataSources.shardMap().logicalShardCount();
    }

    /**
     * Swaps when a snapshot file newer than the live filter's has appeared (by name, without reading it); called
     * every {@code graph.check.bloom.swap-check-interval}, so snapshots the reconciler writes go live on their own.
     */
    void swapIfNewer() {
        if (!ownership.ownsAll()) {
            return; // a slice is built by scanning its shards; snapshots cover every shard
        }
        try {
            OptionalLong newest = store.newestCreatedAt(0, logicalShards - 1);
            if (bloom.isReady() && newest.isPresent() && newest.getAsLong() > bloom.snapshotCreatedAt()) {
                swap();
            }
        } catch (IOException | RuntimeException e) {
            log.warn("Bloom snapshot check failed: {}", e.toString());
        }
    }

    @EventListener(ApplicationReadyEvent.class)
    void startChecking() {
        long every = settings.swapCheckInterval().toMillis();
        if (settings.enabled() && every > 0) {
            checker.scheduleWithFixedDelay(this::swapIfNewer, every, every, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void destroy() {
        checker.shutdownNow();
    }

    /** The newest valid snapshot covering every logical shard, corrupt ones skipped with a warning. */
    Optional<BloomSnapshot> newest() {
        try {
            return store.newestCovering(logicalShards, 0, logicalShards - 1,
                    (file, e) -> log.warn("Skipping bloom snapshot: {}", e.getMessage()));
        } catch (IOException e) {
            log.warn("Bloom snapshot directory {} unreadable: {}", settings.snapshotDir(), e.toString());
            return Optional.empty();
        }
    }

    /**
     * Replays the follows from a snapshot's offsets to the current end into {@code into}; empty when it cannot.
     *
     * @param snapshot the snapshot whose offsets to start from
     * @param into     {@link EdgeBloom#recordFollow} at start-up (the snapshot's filter is live),
     *                 {@link EdgeBloom#recordShadowFollow} during a swap
     */
    OptionalLong catchUp(BloomSnapshot snapshot, EdgeSink into) {
        return replay.replay(snapshot, into, settings.replayTimeout());
    }

    /**
     * Loads the newest snapshot into a shadow filter fed by the live events, replays it from its offsets and then
     * makes it the live filter; checks keep using the old filter meanwhile. One swap at a time: a second caller
     * waits for the first and then usually finds its snapshot live, so the call is idempotent.
     *
     * @return what happened
     */
    public SwapResult swap() {
        if (!ownership.ownsAll()) {
            return new SwapResult.NotSwapped("this instance owns only some logical shards and builds its filter by "
                    + "scanning them; snapshots cover every shard");
        }
        if (!bloom.isReady()) {
            return new SwapResult.NotSwapped("the filter is not built yet");
        }
        swapping.lock();
        try {
            Optional<BloomSnapshot> found = newest();
            if (found.isEmpty()) {
                return new SwapResult.NotSwapped("no valid snapshot in " + settings.snapshotDir());
            }
            BloomSnapshot snapshot = found.get();
            if (snapshot.createdAt() == bloom.snapshotCreatedAt()) {
                return new SwapResult.AlreadyLive(snapshot.createdAt());
            }
            if (snapshot.createdAt() < bloom.snapshotCreatedAt()) {
                return new SwapResult.NotSwapped("the live filter is from a newer snapshot");
            }
            bloom.beginShadow(snapshot.filter(), snapshot.edgeCount()); // live follows go into it from here on
            OptionalLong replayed = catchUp(snapshot, bloom::recordShadowFollow);
            if (replayed.isEmpty()) {
                bloom.dropShadow();
                return new SwapResult.NotSwapped("the snapshot could not be replayed (see the log)");
            }
            bloom.promoteShadow(snapshot.createdAt());
            log.info("Bloom filter swapped to the snapshot of {} ({} edges), {} events replayed",
                    java.time.Instant.ofEpochMilli(snapshot.createdAt()), snapshot.edgeCount(), replayed.getAsLong());
            return new SwapResult.Swapped(snapshot.createdAt(), replayed.getAsLong());
        } catch (UncheckedIOException e) {
            bloom.dropShadow();
            return new SwapResult.NotSwapped(e.getMessage());
        } finally {
            swapping.unlock();
        }
    }
}
