package dev.socialgraph.write;

import dev.socialgraph.cache.FollowingCache;
import dev.socialgraph.cache.RedisBreaker;
import dev.socialgraph.cache.RedisConnector;
import dev.socialgraph.cache.RedisEndpoint;
import dev.socialgraph.common.token.FollowTokens;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

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
     *  write by at most one timeout, and a hung one only until its breaker ({@code graph.redis-breaker.*}) opens:
     *  then writes skip Redis as when it is down (the event stream repairs the sets). */
    @Bean(destroyMethod = "close")
    RedisConnector redisConnector(WriteProperties properties, Environment environment, MeterRegistry meters) {
        WriteProperties.Redis redis = properties.redis();
        RedisConnector connector = new RedisConnector(RedisEndpoint.parse(redis.uri(), redis.mode(), redis.timeout(),
                redis.timeout()), RedisBreaker.settings(environment::getProperty));
        connector.breaker().bindTo(meters);
        return connector;
    }

    /** Failures are counted as {@code graph.write.cache.apply{result=failed}} by the write path. */
    @Bean
    FollowingCache followingCache(RedisConnector redis, WriteProperties properties) {
        return new FollowingCache(redis, properties.redis().cacheTtl(), (command, error) -> { });
    }
}
