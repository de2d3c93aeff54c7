package dev.socialgraph.check.affinity;

import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.common.shard.ShardAffinity;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.store.shard.ShardDataSources;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.BitSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The logical shards this instance owns (shard-affine reads): with {@code graph.check.affinity.instances}
 * set, the shards {@link ShardAffinity} gives to {@code graph.check.affinity.instance-id} among them; unset, every
 * shard. The gateway routes each request about follower {@code a} to the owner of {@code a}'s logical shard, so
 * the bloom filter needs only the edges of owned followers; a request that reaches another instance (a gateway
 * with another list, during a rollout) is still answered correctly, without the filter.
 *
 * <p>Fixed at start-up; {@link #owns} is a bit lookup (no allocation) for the check path. Gauge
 * {@code graph.check.affinity.owned.shards}: the number of owned logical shards.
 */
@Component
public class ShardOwnership {

    private static final Logger log = LoggerFactory.getLogger(ShardOwnership.class);

    private final String instanceId;
    private final List<String> instances;
    private final int logicalShardCount;
    private final BitSet owned;
    private final boolean ownsAll;

    @Autowired // the public constructor is for tests and tools
    ShardOwnership(CheckProperties properties, ShardDataSources dataSources, MeterRegistry registry) {
        this(properties.affinity(), dataSources.shardMap().logicalShardCount());
        Gauge.builder("graph.check.affinity.owned.shards", this, o -> o.owned.cardinality())
                .description("Logical shards this instance owns (its bloom filter holds their followers' edges)")
                .register(registry);
        if (ownsAll) {
            log.info("Instance {} owns every logical shard ({})", instanceId, logicalShardCount);
        } else {
            log.info("Instance {} owns {} of {} logical shards among instances {}", instanceId, owned.cardinality(),
                    logicalShardCount, instances);
        }
    }

    /**
     * Ownership without Spring (tests, tools).
     *
     * @param affinity          the settings
     * @param logicalShardCount the deployment's logical shard count, {@code >= 1}
     */
    public ShardOwnership(CheckProperties.Affinity affinity, int logicalShardCount) {
        this.instanceId = affinity.instanceId();
        this.instances = affinity.instances();
        this.logicalShardCount = logicalShardCount;
        if (instances.isEmpty()) {
            this.owned = new BitSet(logicalShardCount);
            this.owned.set(0, logicalShardCount);
        } else {
            this.owned = ShardAffinity.ownedShards(instanceId, instances, logicalShardCount);
        }
        this.ownsAll = owned.cardinality() == logicalShardCount;
    }

    /**
     * Whether the follower's logical shard is owned here.
     *
     * @param followerId a user id
     * @return {@code true} when {@code floorMod(followerId, logicalShardCount)} is owned
     */
    public boolean owns(long followerId) {
        return ownsAll || owned.get(ShardMap.logicalShard(followerId, logicalShardCount));
    }

    /**
     * Whether a logical shard is owned here.
     *
     * @param logicalShard {@code 0..logicalShardCount-1}
     * @return {@code true} when owned
     */
    public boolean ownsShard(int logicalShard) {
        return owned.get(logicalShard);
    }

    /** Whether this instance owns every logical shard (no affinity configured, or a list of one). */
    public boolean ownsAll() {
        return ownsAll;
    }

    /**
     * The owned logical shards.
     *
     * @return ascending shard numbers, a new array
     */
    public int[] ownedShards() {
        return owned.stream().toArray();
    }

    /** This instance's id ({@code graph.check.affinity.instance-id}). */
    public String instanceId() {
        return instanceId;
    }

    /** Number of logical shards of the deployment. */
    public int logicalShardCount() {
        return logicalShardCount;
    }
}
