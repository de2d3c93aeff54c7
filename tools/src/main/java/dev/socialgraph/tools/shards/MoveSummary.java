package dev.socialgraph.tools.shards;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.store.shard.ShardDirectory;
import java.util.List;
import java.util.Locale;

/**
 * What a shard move did (docs/shard-moves.md). Times are milliseconds.
 *
 * @param group        the moved shards' group
 * @param first        first logical shard, inclusive
 * @param last         last logical shard, inclusive
 * @param from         the old owner's database name
 * @param to           the new owner's database name
 * @param fromVersion  the shard map version the move started from
 * @param newVersion   the version it published; equal to {@code fromVersion} when the range was already there
 * @param rounds       the copy rounds while writes went on, in order
 * @param finalRound   the exact round under the fence, or {@code null} when the range was already there
 * @param fenceMillis  how long writers of the range were held back: from asking for the fence to releasing it
 * @param drainMillis  part of the fence spent waiting for the range's outbox to be published (following group)
 * @param stragglers   readers that had not applied {@code newVersion} when the wait for them ended
 * @param rowsCleaned  the range's rows deleted from the old owner, or -1 when the clean-up was skipped
 * @param totalMillis  the whole move
 */
public record MoveSummary(ShardGroup group, int first, int last, String from, String to, long fromVersion,
                          long newVersion, List<Round> rounds, Round finalRound, long fenceMillis, long drainMillis,
                          List<ShardDirectory.Reader> stragglers, long rowsCleaned, long totalMillis) {

    /**
     * One copy round.
     *
     * @param upserted rows copied into the target (missing there, or at another version)
     * @param deleted  rows deleted from the target (gone from the source)
     * @param millis   the round's duration
     */
    public record Round(long upserted, long deleted, long millis) {
        /** @return rows the round changed in the target */
        public long changed() {
            return upserted + deleted;
        }
    }

    public MoveSummary {
        rounds = List.copyOf(rounds);
        stragglers = List.copyOf(stragglers);
    }

    /** @return whether the range already lived in the target, so nothing was done */
    public boolean alreadyThere() {
        return finalRound == null;
    }

    /** @return the report the command line prints, one fact per line */
    public String report() {
        StringBuilder out = new StringBuilder();
        String shards = group.name().toLowerCase(Locale.ROOT) + " shards " + first + ".." + last;
        if (alreadyThere()) {
            return out.append(shards).append(" already live in ").append(to).append(" (shard map version ")
                    .append(newVersion).append("): nothing to do\n").toString();
        }
        out.append(shards).append(": ").append(from).append(" -> ").append(to).append(", shard map version ")
                .append(fromVersion).append(" -> ").append(newVersion).append('\n');
        for (int i = 0; i < rounds.size(); i++) {
            Round r = rounds.get(i);
            out.append(String.format(Locale.ROOT, "  copy round %d: %,d rows copied, %,d deleted, %d ms%n", i + 1,
                    r.upserted(), r.deleted(), r.millis()));
        }
        out.append(String.format(Locale.ROOT, "  final round (fenced): %,d rows copied, %,d deleted, %d ms%n",
                finalRound.upserted(), finalRound.deleted(), finalRound.millis()));
        out.append(String.format(Locale.ROOT, "  fence held %d ms (outbox drain %d ms)%n", fenceMillis, drainMillis));
        if (stragglers.isEmpty()) {
            out.append("  every reader applied version ").append(newVersion).append('\n');
        } else {
            out.append("  readers still on an older version: ").append(stragglers).append('\n');
        }
        if (rowsCleaned >= 0) {
            out.append(String.format(Locale.ROOT, "  %,d rows of the range deleted from %s%n", rowsCleaned, from));
        } else {
            out.append("  rows of the range left in ").append(from).append(": run 'shards cleanup' when every reader"
                    + " has applied version ").append(newVersion).append('\n');
        }
        out.append(String.format(Locale.ROOT, "  total %d ms%n", totalMillis));
        return out.toString();
    }
}
