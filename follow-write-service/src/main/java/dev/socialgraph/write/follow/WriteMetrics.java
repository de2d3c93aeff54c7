package dev.socialgraph.write.follow;

import dev.socialgraph.cache.FollowingCache;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Write results by outcome, {@code graph.write.results{outcome}} (DESIGN.md 8). Outcomes: {@code followed},
 * {@code unfollowed}, {@code unchanged} (an idempotent repeat), {@code rejected} (4xx: bad id, self-follow, cap)
 * and {@code unavailable} (503). Blocks and mutes are counted apart, {@code graph.write.relations{relation, outcome}}
 * with outcomes {@code added}, {@code removed} and {@code unchanged}; their refusals count as {@code rejected} above.
 * The write-through of each committed follow change to {@code following:{id}} is counted by what it did,
 * {@code graph.write.cache.apply{result}} ({@code applied}, {@code already_applied}, {@code not_cached},
 * {@code invalidated}, {@code failed}). Never a user id as a tag.
 */
@Component
public final class WriteMetrics {

    private final Counter followed;
    private final Counter unfollowed;
    private final Counter unchanged;
    private final Counter rejected;
    private final Counter unavailable;
    /**
     * {@code [relation][outcome]}: block, mute, request × added, removed, unchanged; registered up front so they
     * export.
     */
    private final Map<String, Counter> relations = new HashMap<>();
    private final Map<FollowingCache.Outcome, Counter> cache = new EnumMap<>(FollowingCache.Outcome.class);

    WriteMetrics(MeterRegistry registry) {
        for (String relation : List.of("block", "mute", "request")) {
            for (String outcome : List.of("added", "removed", "unchanged")) {
                relations.put(relation + "/" + outcome, Counter.builder("graph.write.relations")
                        .description("Blocks, mutes and follow requests written, by relation and outcome")
                        .tag("relation", relation).tag("outcome", outcome).register(registry));
            }
        }
        for (FollowingCache.Outcome outcome : FollowingCache.Outcome.values()) {
            if (outcome != FollowingCache.Outcome.DROPPED) {
                cache.put(outcome, Counter.builder("graph.write.cache.apply")
                        .description("Write-through results of following:{id} after a committed change")
                        .tag("result", outcome.name().toLowerCase()).register(registry));
            }
        }
        followed = counter(registry, "followed");
        unfollowed = counter(registry, "unfollowed");
        unchanged = counter(registry, "unchanged");
        rejected = counter(registry, "rejected");
        unavailable = counter(registry, "unavailable");
    }

    private static Counter counter(MeterRegistry registry, String outcome) {
        return Counter.builder("graph.write.results").description("Follow and unfollow requests by outcome")
                .tag("outcome", outcome).register(registry);
    }

    /** Counts a request rejected before anything was written (invalid input or the following cap). */
    public void rejected() {
        rejected.increment();
    }

    void result(FollowResult result) {
        if (!result.changed()) {
            unchanged.increment();
        } else if (result.following()) {
            followed.increment();
        } else {
            unfollowed.increment();
        }
    }

    /**
     * Counts a write of a follow request: made ({@code added}), ended ({@code removed}: withdrawn, declined or
     * accepted), or neither (a repeat).
     */
    void request(boolean added, boolean removed) {
        relations.get("request/" + (added ? "added" : removed ? "removed" : "unchanged")).increment();
    }

    void relation(RelationResult result) {
        String outcome = !result.changed() ? "unchanged" : result.present() ? "added" : "removed";
        relations.get(result.relation().wireName() + "/" + outcome).increment();
    }

    void cacheApplied(FollowingCache.Outcome outcome) {
        Counter counter = cache.get(outcome);
        if (counter != null) {
            counter.increment();
        }
    }

    void unavailable() {
        unavailable.increment();
    }
}
