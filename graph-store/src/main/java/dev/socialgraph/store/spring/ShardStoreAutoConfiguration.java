package dev.socialgraph.store.spring;

import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.store.CelebrityPageRepository;
import dev.socialgraph.store.FollowerRepository;
import dev.socialgraph.store.FollowingRepository;
import dev.socialgraph.store.OutboxRepository;
import dev.socialgraph.store.ShardDataSources;
import dev.socialgraph.store.ShardDatabases;
import dev.socialgraph.store.ShardMigrations;
import java.sql.SQLException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Spring wiring of the shard store for the services: the validated {@link ShardMap}, one pool per physical
 * database, the repositories, and (where {@code graph.shards.migrate-on-startup=true}) the schema migrations.
 * Active when {@code graph.shards.ranges} is configured. A bad shard map stops start-up with the map's message.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "graph.shards", name = "ranges[0].jdbc-url")
@EnableConfigurationProperties(ShardProperties.class)
public class ShardStoreAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ShardMap shardMap(ShardProperties properties) {
        return properties.toShardMap();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    ShardDataSources shardDataSources(ShardProperties properties, ShardMap shardMap,
                                      @Value("${spring.application.name:graph}") String applicationName)
            throws SQLException {
        if (properties.createDatabases()) {
            ShardDatabases.createMissing(shardMap.databases(), properties.username(), properties.password());
        }
        ShardDataSources dataSources = new ShardDataSources(shardMap, properties.poolSettings(applicationName));
        if (properties.migrateOnStartup()) {
            try {
                ShardMigrations.migrateAll(dataSources);
            } catch (RuntimeException e) {
                dataSources.close();
                throw e;
            }
        }
        return dataSources;
    }

    @Bean
    @ConditionalOnMissingBean
    FollowingRepository followingRepository() {
        return new FollowingRepository();
    }

    @Bean
    @ConditionalOnMissingBean
    FollowerRepository followerRepository() {
        return new FollowerRepository();
    }

    @Bean
    @ConditionalOnMissingBean
    CelebrityPageRepository celebrityPageRepository() {
        return new CelebrityPageRepository();
    }

    @Bean
    @ConditionalOnMissingBean
    OutboxRepository outboxRepository() {
        return new OutboxRepository();
    }
}
