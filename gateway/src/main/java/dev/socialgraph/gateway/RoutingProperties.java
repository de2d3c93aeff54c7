package dev.socialgraph.gateway;

import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Shard-affine routing of reads, {@code graph.gateway.routing.*}. The instances themselves are Spring
 * Cloud's static list ({@code spring.cloud.discovery.client.simple.instances.*}, see {@link LoadBalancing}).
 *
 * @param logicalShardCount the deployment's number of logical shards, the same as the services'
 *                          {@code graph.shards.logical-shard-count} (256): a request about user {@code id} goes to
 *                          the owner of logical shard {@code floorMod(id, logicalShardCount)}
 */
@Validated
@ConfigurationProperties("graph.gateway.routing")
public record RoutingProperties(@Min(1) @DefaultValue("256") int logicalShardCount) {
}
