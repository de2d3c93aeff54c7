package dev.socialgraph.client;

import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link FollowCheckClient.Builder}'s settings, validated: what the transport and the resources are built from. The
 * meaning and default of each is on the builder's setter of the same name.
 *
 * @param instances                 check instance id → base URI, in the order added; unmodifiable
 * @param writeInstances            the write instances' base URIs, in the order added; unmodifiable
 * @param writeBalancing            where each write starts
 * @param readYourWrites            whether writes' follow tokens are kept and sent on the actor's reads
 * @param followTokenTtl            how long a kept token is sent, positive
 * @param logicalShardCount         {@code >= 1}
 * @param connectTimeout            per attempt, to get a connection, positive
 * @param requestTimeout            per attempt, for the answer, positive
 * @param maxConnectionsPerInstance {@code 1..10000}
 * @param maxAttempts               {@code >= 1}
 * @param retryWait                 {@code >= 0}
 * @param serviceToken              the service credential, or {@code null}
 * @param batchSize                 ids per batch request, {@code 1..10000}
 */
record Settings(Map<String, URI> instances, List<URI> writeInstances, WriteBalancing writeBalancing,
                boolean readYourWrites, Duration followTokenTtl, int logicalShardCount, Duration connectTimeout,
                Duration requestTimeout, int maxConnectionsPerInstance, int maxAttempts, Duration retryWait,
                String serviceToken, int batchSize) {

    /** @throws IllegalArgumentException naming the first bad setting, in the order the builder always checked them */
    Settings {
        instances = Collections.unmodifiableMap(new LinkedHashMap<>(instances));
        writeInstances = List.copyOf(writeInstances);
        Objects.requireNonNull(writeBalancing, "writeBalancing");
        if (instances.isEmpty() && writeInstances.isEmpty()) {
            throw new IllegalArgumentException("at least one check instance or write instance is required");
        }
        if (logicalShardCount < 1) {
            throw new IllegalArgumentException("logicalShardCount must be >= 1, was " + logicalShardCount);
        }
        requirePositive(connectTimeout, "connectTimeout");
        requirePositive(requestTimeout, "requestTimeout");
        if (maxConnectionsPerInstance < 1 || maxConnectionsPerInstance > 10_000) {
            throw new IllegalArgumentException("maxConnectionsPerInstance must be in 1..10000, was "
                    + maxConnectionsPerInstance);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
        }
        if (retryWait == null || retryWait.isNegative()) {
            throw new IllegalArgumentException("retryWait must be >= 0, was " + retryWait);
        }
        if (serviceToken != null && (serviceToken.isBlank() || !serviceToken.strip().equals(serviceToken))) {
            throw new IllegalArgumentException("serviceToken must not be blank or padded with spaces");
        }
        if (batchSize < 1 || batchSize > 10_000) {
            throw new IllegalArgumentException("batchSize must be in 1..10000, was " + batchSize);
        }
        requirePositive(followTokenTtl, "followTokenTtl");
    }

    /** Refuses a blank check instance id or a base URI that is not http(s). */
    static void requireInstance(String id, URI baseUri) {
        Objects.requireNonNull(baseUri, "baseUri");
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("instance id must not be blank");
        }
        requireHttp(baseUri, "instance " + id);
    }

    /**
     * Refuses a base URI that is not {@code http(s)://host[:port]} (a path prefix is allowed).
     *
     * @param what names the instance in the message
     */
    static void requireHttp(URI uri, String what) {
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalArgumentException(what + ": base URI must be http(s)://host[:port], was " + uri);
        }
    }

    private static void requirePositive(Duration d, String name) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }
}
