package dev.socialgraph.cache;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the following cache lives and how long a command may take: the configuration every service gives
 * {@link RedisConnector}, parsed once here.
 *
 * @param seeds          the server ({@link RedisMode#STANDALONE}, exactly one) or the cluster's seed nodes
 *                       ({@link RedisMode#CLUSTER}, at least one; more survive a seed that is down at start-up)
 * @param mode           standalone or cluster
 * @param commandTimeout bound on each command, positive
 * @param connectTimeout bound on opening a connection, positive
 */
public record RedisEndpoint(List<RedisURI> seeds, RedisMode mode, Duration commandTimeout, Duration connectTimeout) {

    /**
     * @throws IllegalArgumentException when there is no seed, more than one seed in standalone mode, or a timeout is
     *                                  not positive
     */
    public RedisEndpoint {
        seeds = List.copyOf(seeds);
        if (mode == null) {
            throw new IllegalArgumentException("Redis mode is required (standalone or cluster)");
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no Redis URI given");
        }
        if (mode == RedisMode.STANDALONE && seeds.size() > 1) {
            throw new IllegalArgumentException("standalone Redis takes one URI, got " + seeds.size()
                    + "; set the mode to cluster for seed nodes of a Redis Cluster");
        }
        requirePositive(commandTimeout, "command timeout");
        requirePositive(connectTimeout, "connect timeout");
    }

    /**
     * Parses a comma-separated list of Lettuce URIs, e.g. {@code redis://127.0.0.1:6379} or
     * {@code redis://10.0.0.1:7000,redis://10.0.0.2:7000}.
     *
     * @param uris           one URI, or several separated by commas (blanks around them are ignored)
     * @param mode           standalone or cluster
     * @param commandTimeout bound on each command, positive
     * @param connectTimeout bound on opening a connection, positive
     * @return the endpoint
     * @throws IllegalArgumentException when a URI does not parse, or as {@link RedisEndpoint#RedisEndpoint}
     */
    public static RedisEndpoint parse(String uris, RedisMode mode, Duration commandTimeout, Duration connectTimeout) {
        List<RedisURI> seeds = new ArrayList<>();
        for (String part : uris == null ? new String[0] : uris.split(",")) {
            String uri = part.strip();
            if (!uri.isEmpty()) {
                try {
                    seeds.add(RedisURI.create(uri));
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("not a Redis URI: '" + uri + "' (" + e.getMessage() + ")", e);
                }
            }
        }
        return new RedisEndpoint(seeds, mode, commandTimeout, connectTimeout);
    }

    private static void requirePositive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("Redis " + what + " must be positive, was " + d);
        }
    }
}
