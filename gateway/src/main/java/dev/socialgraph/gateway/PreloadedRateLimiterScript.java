package dev.socialgraph.gateway;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Replaces Spring Cloud Gateway's {@code redisRequestRateLimiterScript} bean (the token-bucket Lua script of
 * {@link RedisRateLimiter}) by the same text with its SHA-1 computed once.
 *
 * <p>Why: Spring Cloud Gateway 5.0.3 builds that bean as a {@code DefaultRedisScript} over a
 * {@code ResourceScriptSource} of a classpath resource, and {@code DefaultRedisScript.getSha1()} asks the resource for
 * its last-modified time on every call, so that a changed file is re-read. Inside a Spring Boot executable jar the
 * resource is a nested jar entry, which has no file: every rate-limited request threw (and JFR recorded) a
 * {@code FileNotFoundException} with a full stack trace, and took the script's monitor. The profile of issue 5 put
 * that at 6 % of the gateway's event-loop CPU. The script in a jar cannot change while the process runs, so nothing
 * is lost. The limiter still runs {@code EVALSHA} per request and falls back to {@code EVAL} when Redis does not
 * know the script, exactly as before.
 */
@Component
class PreloadedRateLimiterScript implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (RedisRateLimiter.REDIS_SCRIPT_NAME.equals(beanName) && bean instanceof RedisScript<?> script
                && !(bean instanceof Preloaded<?>)) {
            return Preloaded.of(script);
        }
        return bean;
    }

    /**
     * A script whose text and SHA-1 (hex, as {@code EVALSHA} takes it) are fixed at construction.
     *
     * @param sha1       hex SHA-1 of {@code text}
     * @param text       the Lua source
     * @param resultType what the script returns ({@code List} for the rate limiter)
     */
    record Preloaded<T>(String sha1, String text, Class<T> resultType) implements RedisScript<T> {

        static <T> Preloaded<T> of(RedisScript<T> script) {
            String text = script.getScriptAsString();
            return new Preloaded<>(DigestUtils.sha1DigestAsHex(text), text, script.getResultType());
        }

        @Override
        public String getSha1() {
            return sha1;
        }

        @Override
        public Class<T> getResultType() {
            return resultType;
        }

        @Override
        public String getScriptAsString() {
            return text;
        }
    }
}
