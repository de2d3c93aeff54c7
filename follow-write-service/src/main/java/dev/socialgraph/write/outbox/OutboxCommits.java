package dev.socialgraph.write.outbox;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.shard.ShardDataSources;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/**
 * Where the write path says that it committed outbox rows, so that the relay of their database publishes them now
 * rather than after its poll interval ({@link OutboxRelay#nudge()}). Present whether or not this instance runs relays
 * ({@code graph.write.relay.enabled}); without a relay of the database here (relays off, not started yet, or the
 * active relay is another instance's and this one stands by) a call does nothing and the active relay finds the rows
 * by polling.
 *
 * <p>Cost on the write path: one route through the shard map and, unless a round is already due, one monitor
 * hand-off; never a wait for the relay. Thread-safe.
 */
@Component
public class OutboxCommits {

    private final ShardDataSources dataSources;
    /** The running relays by their database's JDBC URL, registered by {@link OutboxRelays}. */
    private final Map<String, OutboxRelay> relays = new ConcurrentHashMap<>();

    OutboxCommits(ShardDataSources dataSources) {
        this.dataSources = dataSources;
    }

    /**
     * Tells the relay of {@code sourceId}'s following database that a transaction wrote outbox rows there and has
     * committed. Call it after the commit, only when the transaction appended a row (a repeat that wrote nothing need
     * not call).
     *
     * @param sourceId the user whose following row the transaction changed (follower, blocker, muter), positive
     */
    public void committed(long sourceId) {
        if (relays.isEmpty()) {
            return;
        }
        // Routed by the map of now: after a shard move the write went to the new owner, and so does the nudge. A
        // nudge that a map change sends to the wrong relay costs that relay one empty round; the right relay polls.
        OutboxRelay relay = relays.get(dataSources.shardMap().route(ShardGroup.FOLLOWING, sourceId).jdbcUrl());
        if (relay != null) {
            relay.nudge();
        }
    }

    /** Makes {@code relay} the one {@link #committed} nudges for the database at {@code jdbcUrl}. */
    void register(String jdbcUrl, OutboxRelay relay) {
        relays.put(jdbcUrl, relay);
    }

    /** Forgets every relay: they stopped. */
    void clear() {
        relays.clear();
    }
}
