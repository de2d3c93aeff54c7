package dev.socialgraph.write;

import dev.socialgraph.common.token.FollowTokens;
import dev.socialgraph.write.cache.FollowingCache;
import io.micrometer.core.instrument.MeterRegistry;
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

    @Bean(destroyMethod = "close")
    FollowingCache followingCache(WriteProperties properties, MeterRegistry registry) {
        WriteProperties.Redis redis = properties.redis();
        return new FollowingCache(redis.uri(), redis.timeout(), redis.cacheTtl(), registry);
    }
}
