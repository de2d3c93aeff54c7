package dev.socialgraph.gateway;

import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import reactor.core.publisher.Mono;

/**
 * Takes tokens in batches from one token bucket per user and budget in Redis, for {@link LocalTokenBuckets}.
 *
 * <p>The bucket is the classic one (Stripe's "Scaling your API with rate limiters", as in Spring Cloud Gateway's
 * {@code RedisRateLimiter}): {@code burstCapacity} tokens at most, refilled continuously at {@code replenishRate}
 * tokens per second, in a hash {@code rate_limit.{<budget>.<user>}} with fields {@code tokens} (a fraction) and
 * {@code ts} (milliseconds of Redis's own clock, so that gateways with skewed clocks agree). One Lua script refills it
 * and takes up to the wanted number of whole tokens, atomically: every token any gateway ever holds was taken out of
 * this bucket once. The key expires once the bucket would be full again, since a missing bucket counts as full.
 */
final class TokenReservations {

    /**
     * A batch taken from the bucket.
     *
     * @param granted          tokens taken, 0 to the number wanted
     * @param retryAfterMicros when none was taken: microseconds until the bucket holds a whole token again; else 0
     */
    record Reservation(long granted, long retryAfterMicros) {
    }

    static final String SCRIPT = """
            local rate = tonumber(ARGV[1])
            local capacity = tonumber(ARGV[2])
            local wanted = tonumber(ARGV[3])
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
            local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
            local tokens = tonumber(state[1])
            local ts = tonumber(state[2])
            if tokens == nil or ts == nil then
              tokens = capacity
              ts = now
            end
            if now > ts then
              tokens = math.min(capacity, tokens + (now - ts) * rate / 1000)
              ts = now
            end
            local granted = math.min(wanted, math.floor(tokens))
            tokens = tokens - granted
            redis.call('HMSET', KEYS[1], 'tokens', tostring(tokens), 'ts', string.format('%d', ts))
            redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) * 1000 / rate) + 1000)
            local retry = 0
            if granted == 0 then
              retry = math.ceil((1 - tokens) * 1000000 / rate)
            end
            return {granted, retry}
            """;

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final RedisScript<List> RESERVE = RedisScript.of(SCRIPT, List.class);

    private final ReactiveStringRedisTemplate redis;
    private final String budget;
    private final List<String> limits;

    /**
     * @param redis         where the buckets live
     * @param budget        the budget's name, part of every key ({@code reads}, {@code writes})
     * @param replenishRate tokens per second added to a user's bucket
     * @param burstCapacity the bucket's size in tokens
     */
    TokenReservations(ReactiveStringRedisTemplate redis, String budget, int replenishRate, int burstCapacity) {
        this.redis = redis;
        this.budget = budget;
        this.limits = List.of(Integer.toString(replenishRate), Integer.toString(burstCapacity));
    }

    /**
     * Takes up to {@code wanted} tokens from {@code user}'s bucket.
     *
     * @return the batch; an error when Redis cannot be reached or does not answer within
     *         {@code spring.data.redis.timeout}
     */
    @SuppressWarnings("unchecked")
    Mono<Reservation> reserve(String user, int wanted) {
        List<String> keys = List.of("rate_limit.{" + budget + "." + user + "}");
        List<String> args = List.of(limits.get(0), limits.get(1), Integer.toString(wanted));
        return redis.execute(RESERVE, keys, args).next()
                .map(result -> new Reservation(((Number) result.get(0)).longValue(), ((Number) result.get(1)).longValue()));
    }
}
