package dev.socialgraph.tools.importer;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an import did.
 *
 * @param edgesRead          edge lines read from the file
 * @param selfLoopsSkipped   {@code a -> a} lines skipped (the service forbids self-follows)
 * @param duplicatesSkipped  repeated (follower, followee) pairs skipped
 * @param edgesImported      distinct edges now stored on both sides
 * @param users              distinct users in the imported graph (followers and followees of its edges)
 * @param followingRows      following rows written (users who follow someone)
 * @param followerRows       follower rows written (users with a follower)
 * @param celebrities        followees whose followers went to celebrity pages
 * @param celebrityPages     celebrity pages written
 * @param followingChanged   following rows whose content changed (0 on a repeated import)
 * @param followerChanged    follower rows whose content changed (0 on a repeated import)
 * @param phases             wall time per phase, in order
 */
public record ImportSummary(long edgesRead, long selfLoopsSkipped, long duplicatesSkipped, long edgesImported,
                            long users, long followingRows, long followerRows, long celebrities, long celebrityPages,
                            long followingChanged, long followerChanged, Map<String, Duration> phases) {

    public ImportSummary {
        phases = new LinkedHashMap<>(phases);
    }

    /** Total wall time. */
    public Duration total() {
        return phases.values().stream().reduce(Duration.ZERO, Duration::plus);
    }

    /** Imported edges per second over the whole import. */
    public double edgesPerSecond() {
        double seconds = Math.max(1e-3, total().toNanos() / 1e9);
        return edgesImported / seconds;
    }

    /** A human-readable multi-line report. */
    public String report() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("edges read           %,d%n", edgesRead));
        sb.append(String.format("self-loops skipped   %,d%n", selfLoopsSkipped));
        sb.append(String.format("duplicates skipped   %,d%n", duplicatesSkipped));
        sb.append(String.format("edges imported       %,d%n", edgesImported));
        sb.append(String.format("users                %,d%n", users));
        sb.append(String.format("following rows       %,d (%,d changed)%n", followingRows, followingChanged));
        sb.append(String.format("follower rows        %,d (%,d changed)%n", followerRows, followerChanged));
        sb.append(String.format("celebrities          %,d in %,d pages%n", celebrities, celebrityPages));
        phases.forEach((phase, d) -> sb.append(String.format("%-20s %,.2f s%n", phase, d.toNanos() / 1e9)));
        sb.append(String.format("total                %,.2f s, %,.0f edges/s%n", total().toNanos() / 1e9, edgesPerSecond()));
        return sb.toString();
    }
}
