package dev.socialgraph.cdc.block;

import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.store.following.BlockedFollows;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * The half of a block its own transaction cannot do: when A blocks B, B's follow of A lives on B's following shard,
 * often another database. For each block event this removes it there ({@link BlockedFollows}, which also says which
 * follows a block forbids), as an unfollow with its outbox row.
 *
 * <p>Counted in {@code graph.cdc.block.removed-follows}. Thread-safe.
 */
@Component
public class BlockEnforcement {

    private final BlockedFollows blockedFollows;
    private final Counter removed;

    /** Wires the store; {@code following} and {@code outbox} are the shared follow repositories. */
    public BlockEnforcement(ShardDataSources dataSources, FollowingRepository following, OutboxRepository outbox,
                            MeterRegistry registry) {
        this.blockedFollows = new BlockedFollows(dataSources, following, outbox);
        this.removed = Counter.builder("graph.cdc.block.removed-follows")
                .description("Follows between a blocker and the user it blocks, removed when the block's event arrived")
                .register(registry);
    }

    /**
     * Enforces every block event among {@code events}; other events are ignored.
     *
     * @param events valid events, in stream order
     * @throws SQLException when a database could not be read or written; the caller retries the events (every step
     *                      is idempotent)
     */
    public void apply(List<FollowEvent> events) throws SQLException {
        for (FollowEvent event : events) {
            if (event.type() == FollowEvent.Type.BLOCK) {
                int n = blockedFollows.enforce(event.followerId(), event.followeeId(), event.followedAt());
                if (n > 0) {
                    removed.increment(n);
                }
            }
        }
    }
}
