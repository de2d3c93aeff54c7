package dev.socialgraph.check.suggest;

import dev.socialgraph.check.CheckProperties;
import dev.socialgraph.check.cache.RedisFollowingCache;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.check.store.ShardReader;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.store.FollowingRow;
import dev.socialgraph.web.UserIdJson;
import java.util.Arrays;
import java.util.List;
import org.springframework.stereotype.Service;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * "People you may know" (DESIGN.md 5): depth 2 over the following graph, fan-out of the most recent
 * {@code suggestionsFanOut} follows per node, ranked by {@link SuggestionRanking}, at most {@code suggestionsMax}
 * kept in Redis {@code suggest:{id}} for {@code suggestionsTtl} (15 min). A cached list is filtered against the
 * user's current following (one batch check) so that an account followed since is not suggested again.
 */
@Service
public class Suggestions {

    private final ShardReader shards;
    private final RedisFollowingCache redis;
    private final FollowChecker checker;
    private final CheckProperties properties;

    Suggestions(ShardReader shards, RedisFollowingCache redis, FollowChecker checker, CheckProperties properties) {
        this.shards = shards;
        this.redis = redis;
        this.checker = checker;
        this.properties = properties;
    }

    /**
     * One suggestion.
     *
     * @param userId      the suggested account
     * @param mutualCount how many of the accounts the user follows follow it
     */
    public record Suggestion(@JsonSerialize(using = UserIdJson.Id.class) long userId, int mutualCount) {
    }

    /**
     * The best suggestions for {@code userId}.
     *
     * @param userId positive
     * @param limit  the most to return, {@code >= 1}
     * @return best first
     */
    public List<Suggestion> suggest(long userId, int limit) {
        String key = RedisKeys.suggestions(userId);
        SuggestionRanking.Ranked ranked = decode(redis.get(key));
        if (ranked == null) {
            ranked = compute(userId);
            redis.put(key, encode(ranked), properties.suggestionsTtl());
        } else if (ranked.size() > 0) {
            ranked = withoutFollowed(userId, ranked);
        }
        ranked = ranked.first(limit);
        Suggestion[] out = new Suggestion[ranked.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new Suggestion(ranked.ids()[i], ranked.mutualCounts()[i]);
        }
        return List.of(out);
    }

    private SuggestionRanking.Ranked compute(long userId) {
        FollowingRow row = shards.following(userId);
        int fanOut = properties.suggestionsFanOut();
        long[] hop = AdjacencyArray.mostRecent(row.followingIds(), row.followedAt(), fanOut);
        if (hop.length == 0) {
            return SuggestionRanking.Ranked.EMPTY;
        }
        List<FollowingRow> rows = shards.followingRows(hop);
        long[][] neighbours = new long[rows.size()][];
        for (int i = 0; i < neighbours.length; i++) {
            FollowingRow r = rows.get(i);
            neighbours[i] = r.followingCount() <= fanOut ? r.followingIds()
                    : AdjacencyArray.mostRecent(r.followingIds(), r.followedAt(), fanOut);
        }
        return SuggestionRanking.rank(userId, row.followingIds(), neighbours, properties.suggestionsMax());
    }

    private SuggestionRanking.Ranked withoutFollowed(long userId, SuggestionRanking.Ranked ranked) {
        boolean[] followed = checker.areFollowing(userId, ranked.ids(), null);
        long[] ids = new long[ranked.size()];
        int[] counts = new int[ranked.size()];
        int n = 0;
        for (int i = 0; i < followed.length; i++) {
            if (!followed[i]) {
                ids[n] = ranked.ids()[i];
                counts[n++] = ranked.mutualCounts()[i];
            }
        }
        return n == ids.length ? ranked
                : new SuggestionRanking.Ranked(Arrays.copyOf(ids, n), Arrays.copyOf(counts, n));
    }

    /** {@code id:count} pairs joined by commas, best first; the empty string for none. */
    static String encode(SuggestionRanking.Ranked ranked) {
        StringBuilder s = new StringBuilder(ranked.size() * 12);
        for (int i = 0; i < ranked.size(); i++) {
            s.append(i == 0 ? "" : ",").append(ranked.ids()[i]).append(':').append(ranked.mutualCounts()[i]);
        }
        return s.toString();
    }

    /** Inverse of {@link #encode}; {@code null} (not cached) for {@code null} or a value it did not write. */
    static SuggestionRanking.Ranked decode(String value) {
        if (value == null) {
            return null;
        }
        if (value.isEmpty()) {
            return SuggestionRanking.Ranked.EMPTY;
        }
        String[] pairs = value.split(",", -1);
        long[] ids = new long[pairs.length];
        int[] counts = new int[pairs.length];
        try {
            for (int i = 0; i < pairs.length; i++) {
                int colon = pairs[i].indexOf(':');
                ids[i] = Long.parseLong(pairs[i], 0, colon, 10);
                counts[i] = Integer.parseInt(pairs[i], colon + 1, pairs[i].length(), 10);
            }
        } catch (RuntimeException e) {
            return null; // unreadable: recompute and overwrite
        }
        return new SuggestionRanking.Ranked(ids, counts);
    }
}
