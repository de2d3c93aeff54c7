package dev.socialgraph.store.spring;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.socialgraph.common.shard.ShardMap;
import dev.socialgraph.store.follower.CelebrityPageRepository;
import dev.socialgraph.store.follower.FollowerRepository;
import dev.socialgraph.store.following.FollowingRepository;
import dev.socialgraph.store.outbox.EventTracing;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import io.micrometer.core.instrument.MeterRegistry;
import dev.socialgraph.store.shard.ShardDatabases;
import dev.socialgraph.store.shard.ShardDirectory;
import dev.socialgraph.store.shard.ShardMapPoller;
import dev.socialgraph.store.shard.ShardMigrations;
import io.micrometer.tracing.Tracer;
import java.sql.SQLException;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Spring wiring of the shard store for the services: the validated {@link ShardMap}, one pool per physical
 * database, the repositories, and (where {@code graph.shards.migrate-on-startup=true}) the schema migrations. With
 * {@code graph.shards.directory.jdbc-url} the services route by the newest map of the {@link ShardDirectory}
 * (the configured map is its version 1) and follow shard moves while they run ({@link ShardMapPoller}).
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
                                      ObjectProvider<ShardDirectory> directory,
                                      ObjectProvider<MeterRegistry> meters,
                                      @Value("${spring.application.name:graph}") String applicationName)
            throws SQLException {
        ShardMap routed = shardMap;
        long version = 1;
        ShardDirectory dir = directory.getIfAvailable();
        if (dir != null) {
            // The configured map is version 1 of a new directory; a directory that moves made newer wins.
            ShardDirectory.Versioned latest = dir.bootstrap(shardMap);
            routed = latest.map();
            version = latest.version();
        }
        if (properties.createDatabases()) {
            ShardDatabases.createMissing(routed.databases(), properties.username(), properties.password());
        }
        ShardDataSources dataSources = new ShardDataSources(routed, version, properties.poolSettings(applicationName),
                properties.breaker().settings());
        meters.ifAvailable(dataSources::bindTo);
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

    /** The directory's pool: two connections, created (on local topologies) and installed at start-up. */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(prefix = "graph.shards.directory", name = "jdbc-url")
    HikariDataSource shardDirectoryDataSource(ShardProperties properties,
                                              @Value("${spring.application.name:graph}") String applicationName)
            throws SQLException {
        String url = properties.directory().jdbcUrl();
        if (properties.createDatabases()) {
            ShardDatabases.createMissing(Map.of(url, ShardDatabases.databaseName(url)), properties.username(),
                    properties.password());
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(properties.username());
        config.setPassword(properties.password());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(Math.max(250, properties.connectionTimeout().toMillis()));
        config.setPoolName(applicationName + "-shard-directory");
        return new HikariDataSource(config);
    }

    @Bean
    @ConditionalOnProperty(prefix = "graph.shards.directory", name = "jdbc-url")
    ShardDirectory shardDirectory(HikariDataSource shardDirectoryDataSource) throws SQLException {
        ShardDirectory directory = new ShardDirectory(shardDirectoryDataSource);
        directory.install();
        return directory;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(prefix = "graph.shards.directory", name = "jdbc-url")
    ShardMapPoller shardMapPoller(ShardDirectory directory, ShardDataSources dataSources, ShardProperties properties,
                                  @Value("${spring.application.name:graph}") String applicationName) {
        return new ShardMapPoller(directory, dataSources, applicationName, properties.directory().pollInterval());
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

    /**
     * The trace context of outbox rows and follow events, from the service's Micrometer tracer (the OpenTelemetry
     * bridge graph-web brings); without a tracer bean a no-op.
     */
    @Bean
    @ConditionalOnMissingBean
    EventTracing eventTracing(ObjectProvider<Tracer> tracer) {
        Tracer t = tracer.getIfAvailable();
        return t == null ? EventTracing.NONE : new EventTracing(t);
    }

    @Bean
    @ConditionalOnMissingBean
    OutboxRepository outboxRepository(EventTracing tracing) {
        return new OutboxRepository(tracing);
    }
}
