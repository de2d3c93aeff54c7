package dev.socialgraph.check;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the read path, {@code graph.check.*} (DESIGN.md 5 and 10). A bad value stops start-up naming it.
 *
 * @param redisUri            the L1 cache server, e.g. {@code redis://127.0.0.1:6379/0}
 * @param redisTimeout        per-command timeout; a dead Redis costs at most this before the shard answers
 * @param cacheTtl            time to live of a {@code following:{id}} set filled from the shard (3600 s)
 * @param localCacheBudget    memory budget of the in-process cache of following arrays
 * @param localCacheTtl       how long a local entry is trusted; bounds its staleness while this instance does
 *                            not yet consume {@code follow-events} (DESIGN.md 1: other readers within 2 s)
 * @param tokenSecret         HMAC secret of follow tokens, shared with the write service (>= 32 bytes)
 * @param tokenMaxAge         how long a follow token lets a check skip the local cache (5 s)
 * @param cursorKey           HMAC key of list cursors, shared by every check instance (>= 32 bytes)
 * @param defaultLimit        list page size when {@code limit} is absent (50)
 * @param maxLimit            largest accepted {@code limit} (1000)
 * @param batchMax            most ids in one batch check (1000)
 * @param suggestionsTtl      time to live of cached suggestions (15 min)
 * @param suggestionsFanOut   most recent followings followed per node of the depth-2 walk (500)
 * @param suggestionsMax      most suggestions computed and cached (1000)
 */
@Validated
@ConfigurationProperties("graph.check")
public record CheckProperties(
        @NotBlank @DefaultValue("redis://127.0.0.1:6379") String redisUri,
        @NotNull @DefaultValue("100ms") Duration redisTimeout,
        @NotNull @DefaultValue("3600s") Duration cacheTtl,
        @NotNull @DefaultValue("64MB") DataSize localCacheBudget,
        @NotNull @DefaultValue("1s") Duration localCacheTtl,
        @NotNull @Size(min = 32) @DefaultValue("dev-only-follow-token-secret-change-me-0123456789") String tokenSecret,
        @NotNull @DefaultValue("5s") Duration tokenMaxAge,
        @NotNull @Size(min = 32) @DefaultValue("dev-only-list-cursor-key-change-me-0123456789") String cursorKey,
        @Min(1) @Max(1000) @DefaultValue("50") int defaultLimit,
        @Min(1) @Max(10000) @DefaultValue("1000") int maxLimit,
        @Min(1) @Max(10000) @DefaultValue("1000") int batchMax,
        @NotNull @DefaultValue("15m") Duration suggestionsTtl,
        @Min(1) @Max(10000) @DefaultValue("500") int suggestionsFanOut,
        @Min(1) @Max(10000) @DefaultValue("1000") int suggestionsMax) {
}
