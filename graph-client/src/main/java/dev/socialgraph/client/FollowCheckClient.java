package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.wire.Changes;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The social graph's internal API for server-side callers (feed fan-out, notification eligibility, button state),
 * without the public gateway's hop: every read on follow-check-service's instances, every write on
 * follow-write-service's. (The name is older than the writes; it stays so that callers need not change.) Its methods
 * are documented by part: {@link FollowChecks} (follow checks, relationship, hidden authors), {@link FollowLists}
 * (lists, counts, suggestions), {@link FollowWrites} (follows, blocks, mutes, accounts) and {@link FollowChanges}
 * (the change stream).
 *
 * <p>A read about user {@code u} goes to the check instance that owns {@code u}'s logical shard, by the gateway's
 * rendezvous choice ({@link #instanceFor}); a write to a write instance. A connection failure, a timeout or 503 moves
 * the call to the next instance, up to {@link Builder#maxAttempts} attempts, then throws
 * {@link UnavailableException}; any other status is thrown at once, a 4xx as {@link RequestRejectedException} and 429
 * as {@link RateLimitedException}, with the problem's type and {@code parameter}. A call takes at most about
 * {@code maxAttempts × (2 × connectTimeout + requestTimeout)} plus {@link Builder#retryWait} between attempts. Ids
 * are positive; a zero or negative id, or a limit below 1, throws {@link IllegalArgumentException} before any
 * request. A read without check instances, or a write without write instances, throws {@link IllegalStateException}.
 *
 * <p>Thread-safe; build one per process and share it. Calls block the calling thread (virtual threads are fine).
 * Inside, a facade: each call goes to a resource class that builds its request from graph-wire's descriptors and
 * reads the answer, over one HTTP transport (Apache HttpClient 5's classic client on keep-alive connections).
 */
public final class FollowCheckClient implements FollowChecks, FollowLists, FollowWrites, FollowChanges, AutoCloseable {

    /** The header carrying the service credential. */
    public static final String SERVICE_TOKEN_HEADER = Headers.SERVICE_TOKEN;
    /** The header carrying a follow token (read-your-writes, see {@link #isFollowing(long, long, String)}). */
    public static final String FOLLOW_TOKEN_HEADER = Headers.FOLLOW_TOKEN;
    /** The header naming the user a relationship is shown to (see {@link #relationshipSeenBy}). */
    public static final String VIEWER_HEADER = Headers.VIEWER_ID;

    private final HttpTransport transport;
    private final Checks checks;
    private final Lists lists;
    private final Relationships relationships;
    private final Relations relations;
    private final Accounts accounts;
    private final ChangeReads changes;

    private FollowCheckClient(Settings s) {
        this.transport = new HttpTransport(s);
        // Read-your-writes: one memory, filled by the writes and account changes, read by the reads that take a token.
        FollowTokenMemory tokens = FollowTokenMemory.of(s);
        this.checks = new Checks(transport, tokens, s.batchSize());
        this.lists = new Lists(transport, tokens);
        this.relationships = new Relationships(transport, tokens);
        this.relations = new Relations(transport, tokens);
        this.accounts = new Accounts(transport, tokens);
        this.changes = new ChangeReads(transport);
    }

    /**
     * A builder; at least one {@link Builder#instance} or {@link Builder#writeInstance} is required.
     *
     * @return a new builder with the defaults given on each setting
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean isFollowing(long follower, long followee, String followToken) {
        return checks.isFollowing(follower, followee, followToken);
    }

    @Override
    public FollowingBatch areFollowing(long follower, long[] followees, String followToken) {
        return checks.areFollowing(follower, followees, followToken);
    }

    @Override
    public Relationship relationship(long a, long b, String followToken) {
        return relationships.relationship(a, b, 0, followToken);
    }

    @Override
    public Relationship relationshipSeenBy(long a, long b, long viewer, String followToken) {
        return relationships.relationship(a, b, UserIds.requirePositive(viewer, "viewer"), followToken);
    }

    @Override
    public Hidden hidden(long viewer, long[] authors, String followToken) {
        return checks.hidden(viewer, authors, followToken);
    }

    @Override
    public Page<Followed> following(long user, int limit, String cursor) {
        return lists.follows(InternalApi.FOLLOWING, user, limit, cursor);
    }

    @Override
    public Page<Followed> followers(long user, int limit, String cursor) {
        return lists.follows(InternalApi.FOLLOWERS, user, limit, cursor);
    }

    @Override
    public Page<Related> blocking(long user, int limit, String cursor) {
        return lists.relations(InternalApi.BLOCKING, user, limit, cursor);
    }

    @Override
    public Page<Related> muting(long user, int limit, String cursor) {
        return lists.relations(InternalApi.MUTING, user, limit, cursor);
    }

    @Override
    public Page<Related> followRequests(long user, boolean incoming, int limit, String cursor) {
        return lists.followRequests(user, incoming, limit, cursor);
    }

    @Override
    public Page<Long> commonFollowing(long a, long b, int limit, String cursor) {
        return lists.commonFollowing(a, b, limit, cursor);
    }

    @Override
    public Page<Followed> knownFollowers(long viewer, long user, int limit, String cursor) {
        return lists.knownFollowers(viewer, user, limit, cursor);
    }

    @Override
    public List<Suggestion> suggestions(long user, int limit) {
        return relationships.suggestions(user, limit);
    }

    @Override
    public Counts counts(long user) {
        return relationships.counts(user);
    }

    @Override
    public WriteResult follow(long follower, long followee) {
        return relations.write(Relation.FOLLOW, true, follower, followee);
    }

    @Override
    public WriteResult unfollow(long follower, long followee) {
        return relations.write(Relation.FOLLOW, false, follower, followee);
    }

    @Override
    public WriteResult block(long user, long target) {
        return relations.write(Relation.BLOCK, true, user, target);
    }

    @Override
    public WriteResult unblock(long user, long target) {
        return relations.write(Relation.BLOCK, false, user, target);
    }

    @Override
    public WriteResult mute(long user, long target) {
        return relations.write(Relation.MUTE, true, user, target);
    }

    @Override
    public WriteResult unmute(long user, long target) {
        return relations.write(Relation.MUTE, false, user, target);
    }

    @Override
    public AccountState deactivate(long user) {
        return accounts.deactivate(user);
    }

    @Override
    public AccountState reactivate(long user) {
        return accounts.reactivate(user);
    }

    @Override
    public AccountState erase(long user) {
        return accounts.erase(user);
    }

    @Override
    public Protection protect(long user) {
        return accounts.protection(user, true);
    }

    @Override
    public Protection unprotect(long user) {
        return accounts.protection(user, false);
    }

    @Override
    public WriteResult acceptFollowRequest(long user, long requester) {
        return relations.answerRequest(true, user, requester);
    }

    @Override
    public WriteResult declineFollowRequest(long user, long requester) {
        return relations.answerRequest(false, user, requester);
    }

    @Override
    public AccountState accountState(long user) {
        return accounts.state(user);
    }

    @Override
    public AccountJob accountJob(String jobId) {
        return accounts.job(jobId);
    }

    @Override
    public String changesHead() {
        return changes.head();
    }

    @Override
    public Changes.Page changes(String cursor, ChangeFilter filter, int limit, int waitSeconds) {
        return changes.page(0, cursor, filter, limit, waitSeconds);
    }

    @Override
    public Changes.Page ownChanges(long user, String cursor, ChangeFilter filter, int limit, int waitSeconds) {
        return changes.page(ChangeReads.requireOwner(user), cursor, filter, limit, waitSeconds);
    }

    @Override
    public ChangeWatch watchChanges(String cursor, ChangeFilter filter, ChangeListener listener) {
        return ChangeWatcher.watch(changes, 0, cursor, filter, listener);
    }

    @Override
    public ChangeWatch watchOwnChanges(long user, String cursor, ChangeFilter filter, ChangeListener listener) {
        return ChangeWatcher.watch(changes, ChangeReads.requireOwner(user), cursor, filter, listener);
    }

    @Override
    public List<String> instanceIds() {
        return transport.instanceIds();
    }

    @Override
    public String instanceFor(long user, int attempt) {
        return transport.instanceFor(user, attempt);
    }

    /** Closes the pooled connections at once; calls after this fail. */
    @Override
    public void close() {
        transport.close();
    }

    /** Settings of a {@link FollowCheckClient}. Not thread-safe; {@link #build} validates. */
    public static final class Builder {

        private final Map<String, URI> instances = new LinkedHashMap<>();
        private int logicalShardCount = 256;
        private Duration connectTimeout = Duration.ofMillis(500);
        private Duration requestTimeout = Duration.ofSeconds(1);
        private int maxConnectionsPerInstance = 64;
        private int maxAttempts = 2;
        private Duration retryWait = Duration.ZERO;
        private String serviceToken;
        private int batchSize = 1000;
        private final List<URI> writeInstances = new ArrayList<>();
        private WriteBalancing writeBalancing = WriteBalancing.ROUND_ROBIN;
        private boolean readYourWrites;
        private Duration followTokenTtl = Duration.ofSeconds(5);

        private Builder() {
        }

        /**
         * Adds a check instance (follow-check-service), where reads go.
         *
         * @param id      its {@code graph.check.affinity.instance-id} (the launcher's are {@code check-0},
         *                {@code check-1}; in Kubernetes the pod name); unique, non-blank
         * @param baseUri its base URI, {@code http://host:port} (a path prefix is kept)
         * @return this builder
         * @throws IllegalArgumentException when the id is blank or already added, or the URI is not absolute http(s)
         */
        public Builder instance(String id, URI baseUri) {
            Settings.requireInstance(id, baseUri);
            if (instances.putIfAbsent(id, baseUri) != null) {
                throw new IllegalArgumentException("instance id '" + id + "' added twice");
            }
            return this;
        }

        /**
         * Adds a write instance (follow-write-service), where follows, unfollows, blocks and mutes go. Optional: a
         * client without one only reads.
         *
         * @param baseUri its base URI, {@code http://host:port} (a path prefix is kept); the launcher's is
         *                {@code http://127.0.0.1:8082}
         * @return this builder
         * @throws IllegalArgumentException when the URI is not absolute http(s) or already added
         */
        public Builder writeInstance(URI baseUri) {
            Settings.requireHttp(Objects.requireNonNull(baseUri, "baseUri"), "write instance");
            if (writeInstances.contains(baseUri)) {
                throw new IllegalArgumentException("write instance " + baseUri + " added twice");
            }
            writeInstances.add(baseUri);
            return this;
        }

        /**
         * How writes are spread over the write instances; a failed attempt moves to the next either way.
         *
         * @param balancing default {@link WriteBalancing#ROUND_ROBIN}
         * @return this builder
         */
        public Builder writeBalancing(WriteBalancing balancing) {
            this.writeBalancing = Objects.requireNonNull(balancing, "balancing");
            return this;
        }

        /**
         * Read-your-writes for this process ({@link FollowChecks}): the client keeps the newest follow token each actor
         * got from a write through it and sends it on that actor's checks for {@link #followTokenTtl}, unless the call
         * passes one. Writes made elsewhere (another process, the gateway) are not known to it.
         *
         * @param enabled default {@code false}: tokens reach reads only when the caller passes them
         * @return this builder
         */
        public Builder readYourWrites(boolean enabled) {
            this.readYourWrites = enabled;
            return this;
        }

        /**
         * How long a remembered follow token is sent after its write ({@link #readYourWrites}): the check service's
         * {@code graph.check.token-max-age}, past which it ignores the token anyway.
         *
         * @param ttl positive; default 5 s (the service's default)
         * @return this builder
         */
        public Builder followTokenTtl(Duration ttl) {
            this.followTokenTtl = ttl;
            return this;
        }

        /**
         * The deployment's logical shard count, the services' {@code graph.shards.logical-shard-count} and the
         * gateway's {@code graph.gateway.routing.logical-shard-count}.
         *
         * @param count {@code >= 1}; default 256
         * @return this builder
         */
        public Builder logicalShardCount(int count) {
            this.logicalShardCount = count;
            return this;
        }

        /**
         * Time to get a connection to one instance, bounding each of: the wait for a pooled one when all of
         * {@link #maxConnectionsPerInstance} are busy, and opening a new one.
         *
         * @param timeout positive; default 500 ms
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /**
         * Time for one attempt's answer: the longest wait for the response's next bytes once the request is sent.
         *
         * @param timeout positive; default 1 s
         * @return this builder
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * Most connections kept to one instance: as many calls to it can be in flight at once, and the next waits up
         * to {@link #connectTimeout} for one to come free (then fails over like a connection failure).
         *
         * @param connections {@code 1..10000}; default 64
         * @return this builder
         */
        public Builder maxConnectionsPerInstance(int connections) {
            this.maxConnectionsPerInstance = connections;
            return this;
        }

        /**
         * Attempts per call, the first included: attempt {@code k} of a read goes to the {@code k}-th check instance in
         * rendezvous order for the user's shard, of a write to the {@code k}-th write instance after the first.
         * Retried are connection failures, timeouts and 503, on reads and writes alike (writes are idempotent).
         *
         * @param attempts {@code >= 1}; default 2 (the owner, then the instance that takes its shards over)
         * @return this builder
         */
        public Builder maxAttempts(int attempts) {
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * Pause before each retry.
         *
         * @param wait {@code >= 0}; default 0 (the next attempt goes to another instance: nothing to wait for)
         * @return this builder
         */
        public Builder retryWait(Duration wait) {
            this.retryWait = wait;
            return this;
        }

        /**
         * The service credential sent as {@value FollowCheckClient#SERVICE_TOKEN_HEADER} on every request.
         *
         * @param token the shared secret issued to this caller; {@code null} (the default) sends none
         * @return this builder
         */
        public Builder serviceToken(String token) {
            this.serviceToken = token;
            return this;
        }

        /**
         * Most ids in one batch-check request; larger batches are split.
         *
         * @param size {@code 1..10000}, at most the service's {@code graph.check.batch-max}; default 1000 (its default)
         * @return this builder
         */
        public Builder batchSize(int size) {
            this.batchSize = size;
            return this;
        }

        /**
         * Builds the client and its connection pool.
         *
         * @return a new client
         * @throws IllegalArgumentException naming the first bad setting
         */
        public FollowCheckClient build() {
            return new FollowCheckClient(new Settings(instances, writeInstances, writeBalancing, readYourWrites,
                    followTokenTtl, logicalShardCount, connectTimeout, requestTimeout, maxConnectionsPerInstance,
                    maxAttempts, retryWait, serviceToken, batchSize));
        }
    }
}
