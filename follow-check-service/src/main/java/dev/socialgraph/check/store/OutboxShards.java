package dev.socialgraph.check.store;

import dev.socialgraph.check.feed.Outboxes;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/** {@link Outboxes}: the oldest unpublished outbox row of every following database of the map of now. */
@Component
class OutboxShards implements Outboxes {

    private final ShardReads reads;
    private final OutboxRepository outbox;

    OutboxShards(ShardDataSources dataSources, OutboxRepository outbox) {
        this.reads = new ShardReads(dataSources);
        this.outbox = outbox;
    }

    @Override
    public long oldestUnpublishedAgeMillis() {
        long oldest = -1;
        for (DataSource ds : reads.followingDatabases()) {
            oldest = Math.max(oldest, ShardReads.database(ds, 0, outbox::oldestUnpublishedAgeMillis));
        }
        return oldest;
    }
}
