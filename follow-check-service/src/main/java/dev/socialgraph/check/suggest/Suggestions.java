package dev.socialgraph.check.suggest;

import dev.socialgraph.check.accounts.AccountVisibility;
import dev.socialgraph.check.cache.RedisFollowingCache;
import dev.socialgraph.check.config.CheckProperties;
import dev.socialgraph.check.follow.FollowChecker;
import dev.socialgraph.common.adjacency.AdjacencyArray;
import dev.socialgraph.common.keys.RedisKeys;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.following.FollowingRow;
import dev.socialgraph.web.UserIdJson;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;
import org.springframework.stereotype.Service;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * "People you may know" (DESIGN.md 5): depth 2 over the following graph, fan-out of the most recent
 * {@code suggestionsFanOut} follows per node, ranked by {@link SuggestionRanking}, at most {@code suggestionsMax}
 * kept in Redis {@code suggest:{id}} for {@code suggestionsTtl} (15 min). A cached list is filtered against the
 * user's current following (one batch check) so that an account followed since is not suggested again.
 *
 * <p>Inactive accounts (docs/account-lifecycle.md) are neither suggested nor counted as the intermediate that produced
 * a suggestion. A cached list records which of the user's intermediates were inactive when it was computed (a hash of
 * their ids); when that set has changed since, the list is computed again, so an account deactivated or reactivated
 * after the list was cached changes the answer within the view's bound, not the cache's 15 minutes.
 */
@Service
public class Suggestions {

    /** The shard reads of suggestions: an adapter in {@code check.store} in production. */
    public interface Shards {

        /**
         * The following row of {@code followerId}, read where its shard lives.
         *
         * @param followerId positive user id
         * @return the row; an empty row of version 0 when the user never followed anyone
         * @throws ShardUnavailableException when its database is down
         */
        FollowingRow following(long followerId);

        /**
         * The following rows of many users, one query per physical database of the map of now; a user whose shard
         * moved may be read on its old owner (its row frozen there) until this instance applies the newer map.
         *
         * @param followerIds positive user ids, any order
         * @return rows in no particular order, one per distinct id; absent users get empty rows
         * @throws ShardUnavailableException when one of the databases is down
         */
        List<FollowingRow> followingRows(long[] followerIds);
    }

    private final Shards shards;
    private final RedisFollowingCache redis;
    private final FollowChecker checker;
    private final CheckProperties properties;
    private final AccountVisibility accounts;

    Suggestions(Shards shards, RedisFollowingCache redis, FollowChecker checker, CheckProperties properties,
                AccountVisibility accounts) {
        this.accounts = accounts;
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
        String cached = redis.get(key);
        SuggestionRanking.Ranked ranked = decode(cached);
        FollowingRow row = null;
        long[] hop = null;
        long inactiveHops = 0;
        if (ranked != null && (accounts.anyInactive() || inactiveHash(cached) != 0)) {
            row = shards.following(userId);
            hop = hops(row);
            inactiveHops = inactiveHops(hop);
            if (inactiveHash(cached) != inactiveHops) {
                ranked = null; // an intermediate was deactivated or reactivated since the list was computed
            }
        }
        if (ranked == null) {
            if (row == null) {
                row = shards.following(userId);
                hop = hops(row);
                inactiveHops = inactiveHops(hop);
            }
            ranked = compute(userId, row, accounts.withoutInactive(hop));
            redis.put(key, encode(ranked, inactiveHops), properties.suggestionsTtl());
        } else if (ranked.size() > 0) {
            ranked = withoutFollowed(userId, ranked);
        }
        ranked = withoutInactive(ranked);
        ranked = ranked.first(limit);
        Suggestion[] out = new Suggestion[ranked.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new Suggestion(ranked.ids()[i], ranked.mutualCounts()[i]);
        }
        return List.of(out);
    }

    /** The user's intermediates: the most recent {@code suggestionsFanOut} of its following. */
    private long[] hops(FollowingRow row) {
        return AdjacencyArray.mostRecent(row.followingIds(), row.followedAt(), properties.suggestionsFanOut());
    }

    /** A hash of the inactive ids among {@code hop}, 0 when none is inactive. */
    private long inactiveHops(long[] hop) {
        if (!accounts.anyInactive()) {
            return 0;
        }
        long[] inactive = new long[hop.length];
        int n = 0;
        for (long id : hop) {
            if (accounts.isInactive(id)) {
                inactive[n++] = id;
            }
        }
        if (n == 0) {
            return 0;
        }
        Arrays.sort(inactive, 0, n);
        long h = 1;
        for (int i = 0; i < n; i++) {
            h = h * 0x9E3779B97F4A7C15L + inactive[i];
        }
        return h == 0 ? 1 : h;
    }

    /** {@code ranked} without inactive candidates. */
    private SuggestionRanking.Ranked withoutInactive(SuggestionRanking.Ranked ranked) {
        if (!accounts.anyInactive() || ranked.size() == 0) {
            return ranked;
        }
        return keep(ranked, i -> !accounts.isInactive(ranked.ids()[i]));
    }

    private SuggestionRanking.Ranked compute(long userId, FollowingRow row, long[] hop) {
        int fanOut = properties.suggestionsFanOut();
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
        boolean[] followed = checker.areFollowing(userId, ranked.ids(), FollowChecker.NO_TOKEN);
        return keep(ranked, i -> !followed[i]);
    }

    /** The entries of {@code ranked} whose index {@code kept} accepts, in order; {@code ranked} itself when all are. */
    private static SuggestionRanking.Ranked keep(SuggestionRanking.Ranked ranked, IntPredicate kept) {
        long[] ids = new long[ranked.size()];
        int[] counts = new int[ranked.size()];
        int n = 0;
        for (int i = 0; i < ranked.size(); i++) {
            if (kept.test(i)) {
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

    /**
     * {@link #encode(SuggestionRanking.Ranked)}, after {@code ~<inactiveHops>;} when some intermediates were
     * inactive.
     */
    static String encode(SuggestionRanking.Ranked ranked, long inactiveHops) {
        return inactiveHops == 0 ? encode(ranked) : "~" + inactiveHops + ";" + encode(ranked);
    }

    /** The hash of inactive intermediates a cached value was computed with; 0 for none or no value. */
    static long inactiveHash(String value) {
        if (value == null || !value.startsWith("~")) {
            return 0;
        }
        int end = value.indexOf(';');
        try {
            return end < 0 ? 0 : Long.parseLong(value, 1, end, 10);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Inverse of {@link #encode}; {@code null} (not cached) for {@code null} or a value it did not write. */
    static SuggestionRanking.Ranked decode(String value) {
        if (value == null) {
            return null;
        }
        if (value.startsWith("~")) {
            int end = value.indexOf(';');
            if (end < 0) {
                return null;
            }
            value = value.substring(end + 1);
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
