package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.scripting.support.ResourceScriptSource;

class PreloadedRateLimiterScriptTest {

    /** Built as Spring Cloud Gateway's GatewayRedisAutoConfiguration builds it. */
    private static DefaultRedisScript<List> gatewayScript() {
        DefaultRedisScript<List> script = new DefaultRedisScript<>();
        script.setScriptSource(new ResourceScriptSource(
                new ClassPathResource("META-INF/scripts/request_rate_limiter.lua")));
        script.setResultType(List.class);
        return script;
    }

    @Test
    void postProcess_rateLimiterScript_keepsTextShaAndResultType() {
        DefaultRedisScript<List> original = gatewayScript();

        Object replaced = new PreloadedRateLimiterScript()
                .postProcessAfterInitialization(original, RedisRateLimiter.REDIS_SCRIPT_NAME);

        assertThat(replaced).isInstanceOf(PreloadedRateLimiterScript.Preloaded.class);
        RedisScript<?> script = (RedisScript<?>) replaced;
        assertThat(script.getScriptAsString()).isEqualTo(original.getScriptAsString()).contains("redis.call");
        assertThat(script.getSha1()).isEqualTo(original.getSha1()).hasSize(40);
        assertThat(script.getResultType()).isEqualTo(List.class);
    }

    @Test
    void postProcess_otherBeans_areLeftAlone() {
        DefaultRedisScript<List> other = gatewayScript();
        PreloadedRateLimiterScript processor = new PreloadedRateLimiterScript();

        assertThat(processor.postProcessAfterInitialization(other, "someOtherScript")).isSameAs(other);
        assertThat(processor.postProcessAfterInitialization("text", RedisRateLimiter.REDIS_SCRIPT_NAME)).isEqualTo("text");
    }
}
