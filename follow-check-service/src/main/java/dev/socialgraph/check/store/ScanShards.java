package dev.socialgraph.check.store;

import dev.socialgraph.check.bloom.EdgeSink;
import dev.socialgraph.check.bloom.ShardScans;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.store.following.FollowingSliceRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * {@link ShardScans}: whole following databases of the map of now, read in batches of {@value #SCAN_BATCH} rows per
 * query; a slice of owned logical shards through {@link FollowingSliceRepository}, asking only the databases that hold
 * one of them.
 */
@Component
class ScanShards implements ShardScans {

    /** Rows per query of a scan. */
    private static final int SCAN_BATCH = 500;

    private final ShardReads reads;
    private final FollowingRepository following;
    private final FollowingRepository blocks = new FollowingRepository(Relation.BLOCK);
    private final FollowingRepository mutes = new FollowingRepository(Relation.MUTE);
    private final FollowingRepository requests = new FollowingRepository(Relation.REQUEST);
    private final FollowingSliceRepository slices = new FollowingSliceRepository();

    ScanShards(ShardDataSources dataSources, FollowingRepository following) {
        this.reads = new ShardReads(dataSources);
        this.following = following;
    }

    @Override
    public long edgeCount() {
        long total = 0;
        for (DataSource ds : reads.followingDatabases()) {
            total += ShardReads.database(ds, 0, following::edgeCount);
        }
        return total;
    }

    @Override
    public long edgeCount(int[] ownedShards) {
        int count = reads.dataSources().shardMap().logicalShardCount();
        long total = 0;
        for (Map.Entry<DataSource, int[]> e : reads.followingDatabases(ownedShards).entrySet()) {
            total += ShardReads.database(e.getKey(), 0, c -> slices.edgeCount(c, count, e.getValue()));
        }
        return total;
    }

    @Override
    public long scanEdges(EdgeSink sink) {
        return scan(following, sink);
    }

    @Override
    public long scanEdges(int[] ownedShards, EdgeSink sink) {
        int count = reads.dataSources().shardMap().logicalShardCount();
        long edges = 0;
        for (Map.Entry<DataSource, int[]> e : reads.followingDatabases(ownedShards).entrySet()) {
            int[] shards = e.getValue();
            long after = 0;
            while (true) {
                long from = after;
                List<FollowingSliceRepository.Row> rows = ShardReads.database(e.getKey(), from,
                        c -> slices.scan(c, count, shards, from, SCAN_BATCH));
                for (FollowingSliceRepository.Row row : rows) {
                    for (long id : row.followingIds()) {
                        sink.accept(row.followerId(), id);
                    }
                    edges += row.followingIds().length;
                    after = row.followerId();
                }
                if (rows.size() < SCAN_BATCH) {
                    break;
                }
            }
        }
        return edges;
    }

    @Override
    public long relationEdgeCount() {
        long total = 0;
        for (DataSource ds : reads.followingDatabases()) {
            total += ShardReads.database(ds, 0, blocks::edgeCount) + ShardReads.database(ds, 0, mutes::edgeCount);
        }
        return total;
    }

    @Override
    public long scanRelationEdges(Relation relation, EdgeSink sink) {
        return scan(switch (relation) {
            case BLOCK -> blocks;
            case MUTE -> mutes;
            case REQUEST -> requests;
            case FOLLOW -> following;
        }, sink);
    }

    private long scan(FollowingRepository repository, EdgeSink sink) {
        long edges = 0;
        for (DataSource ds : reads.followingDatabases()) {
            long after = 0;
            while (true) {
                long from = after;
                List<FollowingRow> rows = ShardReads.database(ds, from, c -> repository.scan(c, from, SCAN_BATCH));
                for (FollowingRow row : rows) {
                    long[] ids = row.followingIds();
                    for (long id : ids) {
                        sink.accept(row.followerId(), id);
                    }
                    edges += ids.length;
                    after = row.followerId();
                }
                if (rows.size() < SCAN_BATCH) {
                    break;
                }
            }
        }
        return edges;
    }
}
