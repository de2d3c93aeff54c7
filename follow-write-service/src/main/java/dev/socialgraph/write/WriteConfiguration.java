package dev.socialgraph.write;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.cache.RedisConnector;
import dev.socialgraph.cache.RedisEndpoint;
import dev.socialgraph.common.token.FollowTokens;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Beans built from {@link WriteProperties} that are plain Java objects (no Spring annotations of their own). */
@Configuration(proxyBeanMethods = false)
class WriteConfiguration {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    @Bean
    FollowTokens followTokens(WriteProperties properties, Clock clock) {
        return new FollowTokens(properties.tokenSecret().getBytes(StandardCharsets.UTF_8), clock);
    }

    /** The connection of the write-through; the connect timeout is the command timeout, so a dead Redis delays a
     *  write by at most one timeout. */
    @Bean(destroyMethod = "close")
    RedisConnector redisConnector(WriteProperties properties) {
        WriteProperties.Redis redis = properties.redis();
        return new RedisConnector(RedisEndpoint.parse(redis.uri(), redis.mode(), redis.timeout(), redis.timeout()));
    }

    /** Failures are counted as {@code graph.write.cache.apply{result=failed}} by the write path. */
    @Bean
    FollowingCache followingCache(RedisConnector redis, WriteProperties properties) {
        return new FollowingCache(redis, properties.redis().cacheTtl(), (command, error) -> { });
    }
}
