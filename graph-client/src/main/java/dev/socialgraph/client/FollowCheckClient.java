package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.relation.Relation;
import dev.socialgraph.common.shard.ShardAffineRouter;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.FollowingAnswer;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.WireFormatException;
import io.github.resilience4j.retry.Retry;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * The social graph's internal API for server-side callers (feed fan-out, notification eligibility, button state),
 * without the public gateway's hop: every read on follow-check-service's instances, every write on
 * follow-write-service's. (The name is older than the writes; it stays so that callers need not change.)
 *
 * <p><b>Reads</b> ({@code /internal/v1/users/...} of the check service): follow checks single and batched, following
 * and followers lists (one page, or every page as a lazy {@link Stream}), block and mute lists, counts, common
 * following, suggestions, the relationship between two users, and hidden authors. A read about user {@code u} goes
 * to the check instance that owns {@code u}'s logical shard, {@code floorMod(u, logicalShardCount)}, by the same
 * {@link ShardAffineRouter} the gateway's load balancer uses, so it lands on the instance whose bloom filter and
 * caches hold {@code u}'s slice. The instances are a fixed list of (id, base URI); the ids must be the check
 * instances' {@code graph.check.affinity.instance-id}s and the list their {@code graph.check.affinity.instances} (as
 * for the gateway).
 *
 * <p><b>Writes</b> (follow, unfollow, block, unblock, mute, unmute) go to the write service's instances
 * ({@link Builder#writeInstance}), spread by {@link Builder#writeBalancing}, and return a {@link WriteResult} with the
 * actor's follow token. With {@link Builder#readYourWrites} the client remembers each actor's newest token for
 * {@link Builder#followTokenTtl} and sends it as {@value #FOLLOW_TOKEN_HEADER} on that actor's next reads that take
 * one (check, batch check, relationship, hidden authors), so a backend sees its own writes at once.
 *
 * <p><b>Accounts</b> (docs/account-lifecycle.md; the write service's {@code /internal/v1/admin/...}, on the write
 * instances like the writes): {@link #deactivate}, {@link #reactivate} and {@link #erase} a user, each answering the
 * {@link AccountState} after it, {@link #accountState} and the {@link AccountJob} of a state change
 * ({@link #accountJob}). While a user is deactivated or erased, reads answer as if the user had no edges and writes by
 * or of the user throw a {@link RequestRejectedException} of type {@code user-inactive}.
 *
 * <p><b>Fail-over.</b> A connection failure, a timeout or HTTP 503 is retried (Resilience4j {@link Retry}) on the next
 * instance: for a read the next in rendezvous order for the user's shard, which is the instance that takes the shard
 * over when the owner leaves the list; for a write the next write instance. After {@link Builder#maxAttempts}
 * attempts the call throws {@link UnavailableException}. Reads are safe to repeat. Writes are too: they are
 * idempotent {@code PUT}/{@code DELETE}s, so a write repeated after an attempt that did reach the service (a
 * response timeout) leaves the same state and gets the same reply. Every other status is thrown at once and never
 * retried: a 4xx as {@link RequestRejectedException}, 429 as {@link RateLimitedException} (waiting is the caller's
 * choice; see {@link GraphClientException#retryAfter()}), anything else as {@link GraphClientException}; each with the
 * problem's type and {@code parameter}.
 *
 * <p><b>Connections and timeouts.</b> Apache HttpClient 5's classic client: HTTP/1.1 on keep-alive connections,
 * at most {@link Builder#maxConnectionsPerInstance} per instance, idle ones closed after 30 s. A
 * call runs on the calling thread from request to answer, with no hand-off (the JDK's {@code HttpClient} passes
 * each request to its selector thread and each answer on to an executor, which cost about 130 µs per call at one
 * connection here). Each attempt is bounded by
 * {@link Builder#connectTimeout} twice, to wait for a pooled connection when all of the instance's are busy and to
 * open a new one, and by {@link Builder#requestTimeout} for the answer (the longest silence while it is awaited,
 * which for the service's small answers is the time to the answer). A call therefore takes at most about
 * {@code maxAttempts × (2 × connectTimeout + requestTimeout)} plus {@link Builder#retryWait} between attempts; a
 * stream of pages takes that per page.
 *
 * <p><b>Service credential.</b> With {@link Builder#serviceToken}, every request carries
 * {@value #SERVICE_TOKEN_HEADER}{@code : <token>}, a header of its own so it never collides with a user's
 * {@code Authorization} header that the gateway forwards.
 *
 * <p><b>Ids.</b> User ids are positive 64-bit numbers; a zero or negative id is a bug of the caller and throws
 * {@link IllegalArgumentException} before any request is sent, as does a limit below 1. A read without check
 * instances, or a write without write instances, throws {@link IllegalStateException}.
 *
 * <p>Thread-safe; build one per process and share it. Calls block the calling thread (virtual threads are fine).
 */
public final class FollowCheckClient implements AutoCloseable {

    /** The header carrying the service credential. */
    public static final String SERVICE_TOKEN_HEADER = Headers.SERVICE_TOKEN;
    /** The header carrying a follow token (read-your-writes, see {@link #isFollowing(long, long, String)}). */
    public static final String FOLLOW_TOKEN_HEADER = Headers.FOLLOW_TOKEN;
    /** The header naming the user a relationship is shown to (see {@link #relationshipSeenBy}). */
    public static final String VIEWER_HEADER = Headers.VIEWER_ID;

    /** Remembered actors past which expired follow tokens are swept (see {@link FollowTokenMemory}). */
    private static final int TOKEN_SWEEP_AT = 10_000;

    private final HttpTransport transport;
    private final Checks checks;
    private final Lists lists;
    private final Relationships relationships;
    private final Relations relations;
    private final Accounts accounts;

    private FollowCheckClient(Settings s) {
        this.transport = new HttpTransport(s);
        // Read-your-writes: one memory, filled by the writes and account changes, read by the reads that take a token.
        FollowTokenMemory tokens = s.readYourWrites()
                ? new FollowTokenMemory(s.followTokenTtl().toNanos(), TOKEN_SWEEP_AT, System::nanoTime) : null;
        this.checks = new Checks(transport, tokens, s.batchSize());
        this.lists = new Lists(transport);
        this.relationships = new Relationships(transport, tokens);
        this.relations = new Relations(transport, tokens);
        this.accounts = new Accounts(transport, tokens);
    }

    /**
     * A builder; at least one {@link Builder#instance} or {@link Builder#writeInstance} is required.
     *
     * @return a new builder with the defaults given on each setting
     */
    public static Builder builder() {
        return new Builder();
    }

    // ---- follow checks ----------------------------------------------------------------------------------------

    /**
     * Does {@code follower} follow {@code followee}? Answered by the check service's layers (bloom filter, caches,
     * shard), as fresh as its follow-events stream: a follow acknowledged a moment ago may still read {@code false}
     * unless its follow token is sent ({@link #isFollowing(long, long, String)}, or {@link Builder#readYourWrites}).
     *
     * @param follower a user id, positive
     * @param followee a user id, positive
     * @return whether the edge exists
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public boolean isFollowing(long follower, long followee) {
        return isFollowing(follower, followee, null);
    }

    /**
     * Does {@code follower} follow {@code followee}, reading the shard when {@code followToken} says the follower
     * wrote since (read-your-writes)?
     *
     * @param follower    a user id, positive
     * @param followee    a user id, positive
     * @param followToken the follow token the write service returned to the follower's last write, sent as
     *                    {@value #FOLLOW_TOKEN_HEADER}; {@code null} for none (then the remembered one, with
     *                    {@link Builder#readYourWrites}). A token that does not verify is ignored by the service.
     * @return whether the edge exists
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public boolean isFollowing(long follower, long followee, String followToken) {
        return checks.isFollowing(follower, followee, followToken);
    }

    /**
     * Which of {@code followees} does {@code follower} follow? One request per {@link Builder#batchSize} ids, all to
     * {@code follower}'s instance.
     *
     * @param follower  a user id, positive
     * @param followees user ids, each positive; any order, repeats allowed; not modified
     * @return the answers, by position in {@code followees} or by id
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public FollowingBatch areFollowing(long follower, long[] followees) {
        return areFollowing(follower, followees, null);
    }

    /**
     * {@link #areFollowing(long, long[])} with read-your-writes: the service reads the shard for every id when
     * {@code followToken} is a young token of {@code follower}.
     *
     * @param follower    a user id, positive
     * @param followees   user ids, each positive; any order, repeats allowed; not modified
     * @param followToken the follower's {@value #FOLLOW_TOKEN_HEADER}, or {@code null} (then the remembered one)
     * @return the answers, by position in {@code followees} or by id
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public FollowingBatch areFollowing(long follower, long[] followees, String followToken) {
        return checks.areFollowing(follower, followees, followToken);
    }

    // ---- lists --------------------------------------------------------------------------------------------------

    /**
     * One page of the users {@code user} follows, newest follow first.
     *
     * @param user   a user id, positive
     * @param limit  items per page, {@code >= 1} and at most the service's {@code graph.check.max-limit} (1000)
     * @param cursor the previous page's {@link Page#nextCursor()}, or {@code null} for the first page
     * @return the page; {@link Page#nextCursor()} is {@code null} on the last
     * @throws IllegalArgumentException when the id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request (a limit over the
     *                                  service's maximum or a cursor of another list: 400, {@code parameter}
     *                                  {@code limit} or {@code cursor})
     */
    public Page<Followed> following(long user, int limit, String cursor) {
        return lists.follows(InternalApi.FOLLOWING, user, limit, cursor);
    }

    /**
     * One page of {@code user}'s followers, newest follow first; users {@code user} blocks are left out, so a page
     * may hold fewer than {@code limit} items although more follow. A celebrity's followers (cdc-consumer's celebrity
     * pages) are paged the same way.
     *
     * @param user   a user id, positive
     * @param limit  items per page, {@code >= 1} and at most the service's {@code graph.check.max-limit} (1000)
     * @param cursor the previous page's {@link Page#nextCursor()}, or {@code null} for the first page
     * @return the page; {@link Page#nextCursor()} is {@code null} on the last
     * @throws IllegalArgumentException when the id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Page<Followed> followers(long user, int limit, String cursor) {
        return lists.follows(InternalApi.FOLLOWERS, user, limit, cursor);
    }

    /**
     * Every user {@code user} follows, newest first, fetched {@code pageSize} at a time as the stream is consumed
     * (nothing before its terminal operation; a {@code limit(n)} fetches only the pages it needs). The walk follows
     * each page's cursor, so follows made meanwhile do not repeat or shift items.
     *
     * @param user     a user id, positive
     * @param pageSize items per request, {@code >= 1} and at most the service's maximum (1000)
     * @return a lazy, ordered, sequential stream; a failed page fetch throws {@link GraphClientException} from the
     *         stream's operation
     * @throws IllegalArgumentException when the id is not positive or {@code pageSize < 1}
     */
    public Stream<Followed> allFollowing(long user, int pageSize) {
        check(user, pageSize);
        return PageWalker.stream(cursor -> following(user, pageSize, cursor));
    }

    /**
     * Every follower of {@code user}, newest first, a page at a time as for {@link #allFollowing}.
     *
     * @param user     a user id, positive
     * @param pageSize items per request, {@code >= 1} and at most the service's maximum (1000)
     * @return a lazy, ordered, sequential stream; a failed page fetch throws {@link GraphClientException} from the
     *         stream's operation
     * @throws IllegalArgumentException when the id is not positive or {@code pageSize < 1}
     */
    public Stream<Followed> allFollowers(long user, int pageSize) {
        check(user, pageSize);
        return PageWalker.stream(cursor -> followers(user, pageSize, cursor));
    }

    /**
     * One page of the users {@code user} blocks, newest block first.
     *
     * @param user   a user id, positive
     * @param limit  items per page, {@code >= 1} and at most the service's maximum (1000)
     * @param cursor the previous page's {@link Page#nextCursor()}, or {@code null} for the first page
     * @return the page
     * @throws IllegalArgumentException when the id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Page<Related> blocking(long user, int limit, String cursor) {
        return lists.relations(InternalApi.BLOCKING, user, limit, cursor);
    }

    /**
     * One page of the users {@code user} mutes, newest mute first.
     *
     * @param user   a user id, positive
     * @param limit  items per page, {@code >= 1} and at most the service's maximum (1000)
     * @param cursor the previous page's {@link Page#nextCursor()}, or {@code null} for the first page
     * @return the page
     * @throws IllegalArgumentException when the id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Page<Related> muting(long user, int limit, String cursor) {
        return lists.relations(InternalApi.MUTING, user, limit, cursor);
    }

    /**
     * Every user {@code user} blocks, newest first, a page at a time as for {@link #allFollowing}.
     *
     * @param user     a user id, positive
     * @param pageSize items per request, {@code >= 1}
     * @return a lazy, ordered, sequential stream
     * @throws IllegalArgumentException when the id is not positive or {@code pageSize < 1}
     */
    public Stream<Related> allBlocking(long user, int pageSize) {
        check(user, pageSize);
        return PageWalker.stream(cursor -> blocking(user, pageSize, cursor));
    }

    /**
     * Every user {@code user} mutes, newest first, a page at a time as for {@link #allFollowing}.
     *
     * @param user     a user id, positive
     * @param pageSize items per request, {@code >= 1}
     * @return a lazy, ordered, sequential stream
     * @throws IllegalArgumentException when the id is not positive or {@code pageSize < 1}
     */
    public Stream<Related> allMuting(long user, int pageSize) {
        check(user, pageSize);
        return PageWalker.stream(cursor -> muting(user, pageSize, cursor));
    }

    /**
     * One page of the users both {@code a} and {@code b} follow, ascending by id. Asked of {@code a}'s instance.
     *
     * @param a      a user id, positive
     * @param b      a user id, positive
     * @param limit  items per page, {@code >= 1} and at most the service's maximum (1000)
     * @param cursor the previous page's {@link Page#nextCursor()}, or {@code null} for the first page
     * @return the page of user ids
     * @throws IllegalArgumentException when an id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Page<Long> commonFollowing(long a, long b, int limit, String cursor) {
        return lists.commonFollowing(a, b, limit, cursor);
    }

    /**
     * Every user both {@code a} and {@code b} follow, ascending by id, a page at a time as for {@link #allFollowing}.
     *
     * @param a        a user id, positive
     * @param b        a user id, positive
     * @param pageSize items per request, {@code >= 1}
     * @return a lazy, ordered, sequential stream of user ids
     * @throws IllegalArgumentException when an id is not positive or {@code pageSize < 1}
     */
    public Stream<Long> allCommonFollowing(long a, long b, int pageSize) {
        check(a, pageSize);
        UserIds.requirePositive(b, "b");
        return PageWalker.stream(cursor -> commonFollowing(a, b, pageSize, cursor));
    }

    /**
     * Users {@code user} may want to follow: followed by the users it follows (depth 2), best first.
     *
     * @param user  a user id, positive
     * @param limit most suggestions, {@code >= 1} and at most the service's maximum (1000)
     * @return the suggestions, best first; empty when there are none
     * @throws IllegalArgumentException when the id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public List<Suggestion> suggestions(long user, int limit) {
        return relationships.suggestions(user, limit);
    }

    /**
     * A user's follower and following counts.
     *
     * @param user a user id, positive
     * @return the counts, each {@code >= 0}
     * @throws IllegalArgumentException when the id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Counts counts(long user) {
        return relationships.counts(user);
    }

    // ---- relationship and hidden authors -----------------------------------------------------------------------

    /**
     * Everything between {@code a} and {@code b}: both follows, both blocks, and {@code a}'s mute of {@code b}. No
     * follow is reported while a block stands either way.
     *
     * @param a a user id, positive
     * @param b a user id, positive
     * @return the relationship with every field present
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Relationship relationship(long a, long b) {
        return relationships.relationship(a, b, 0, null);
    }

    /**
     * {@link #relationship(long, long)} with read-your-writes for {@code a}.
     *
     * @param a           a user id, positive
     * @param b           a user id, positive
     * @param followToken {@code a}'s {@value #FOLLOW_TOKEN_HEADER}, or {@code null} (then the remembered one)
     * @return the relationship with every field present
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Relationship relationship(long a, long b, String followToken) {
        return relationships.relationship(a, b, 0, followToken);
    }

    /**
     * The relationship between {@code a} and {@code b} as {@code viewer} may see it, as the gateway asks for a
     * signed-in user ({@value #VIEWER_HEADER}): the blocks are present only when the viewer is {@code a} or
     * {@code b}, the mute only when it is {@code a}.
     *
     * @param a           a user id, positive
     * @param b           a user id, positive
     * @param viewer      the user it is shown to, positive
     * @param followToken {@code a}'s {@value #FOLLOW_TOKEN_HEADER}, or {@code null} (then the remembered one)
     * @return the relationship; the fields hidden from {@code viewer} are empty
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Relationship relationshipSeenBy(long a, long b, long viewer, String followToken) {
        UserIds.requirePositive(viewer, "viewer");
        return relationships.relationship(a, b, viewer, followToken);
    }

    /**
     * Which of {@code authors} are hidden from {@code viewer}: those it blocks, is blocked by, or mutes.
     *
     * @param viewer  a user id, positive
     * @param authors user ids, each positive; any order, repeats allowed; not modified
     * @return the three subsets of {@code authors}, each ascending and without repeats
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Hidden hidden(long viewer, long[] authors) {
        return hidden(viewer, authors, null);
    }

    /**
     * Which of {@code authors} does {@code viewer} block, is blocked by, or mute? The check a feed makes before
     * rendering, for the same cost class as {@link #areFollowing}: one request per {@link Builder#batchSize} ids, all
     * to {@code viewer}'s instance, answered there mostly in process. Pass the viewer's follow token (from its block
     * or mute reply) to see that write at once.
     *
     * @param viewer      a user id, positive
     * @param authors     user ids, each positive; any order, repeats allowed; not modified
     * @param followToken the viewer's {@value #FOLLOW_TOKEN_HEADER}, or {@code null} (then the remembered one)
     * @return the three subsets of {@code authors}, each ascending and without repeats
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    public Hidden hidden(long viewer, long[] authors, String followToken) {
        return checks.hidden(viewer, authors, followToken);
    }

    // ---- writes -------------------------------------------------------------------------------------------------

    /**
     * {@code follower} follows {@code followee} ({@code PUT .../following/{followee}} on a write instance);
     * idempotent.
     *
     * @param follower a user id, positive
     * @param followee a user id, positive, not {@code follower}
     * @return the follow, {@link WriteResult#active()} {@code true}, with the follower's follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: 400 for a self-follow, 403
     *                                  {@code blocked} when the followee blocks the follower, 409 {@code blocking} when
     *                                  the follower blocks the followee, 409 {@code limit-reached} past 10,000
     *                                  followings
     */
    public WriteResult follow(long follower, long followee) {
        return relations.write(Relation.FOLLOW, true, follower, followee);
    }

    /**
     * {@code follower} no longer follows {@code followee}; idempotent (unfollowing a user not followed is a
     * success).
     *
     * @param follower a user id, positive
     * @param followee a user id, positive
     * @return {@link WriteResult#active()} {@code false}, with the follower's follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    public WriteResult unfollow(long follower, long followee) {
        return relations.write(Relation.FOLLOW, false, follower, followee);
    }

    /**
     * {@code user} blocks {@code target}: removes {@code user}'s follow of {@code target} at once and
     * {@code target}'s follow of {@code user} shortly after (cdc-consumer); idempotent.
     *
     * @param user   a user id, positive
     * @param target a user id, positive, not {@code user}
     * @return the block, {@link WriteResult#active()} {@code true}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused (400 for oneself, 409
     *                                  {@code limit-reached} past 50,000 blocks)
     */
    public WriteResult block(long user, long target) {
        return relations.write(Relation.BLOCK, true, user, target);
    }

    /**
     * {@code user} no longer blocks {@code target}; idempotent. Follows the block removed are not restored.
     *
     * @param user   a user id, positive
     * @param target a user id, positive
     * @return {@link WriteResult#active()} {@code false}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    public WriteResult unblock(long user, long target) {
        return relations.write(Relation.BLOCK, false, user, target);
    }

    /**
     * {@code user} mutes {@code target} (hidden from {@code user}'s feed; follows stay); idempotent.
     *
     * @param user   a user id, positive
     * @param target a user id, positive, not {@code user}
     * @return the mute, {@link WriteResult#active()} {@code true}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused (400 for oneself, 409
     *                                  {@code limit-reached} past 50,000 mutes)
     */
    public WriteResult mute(long user, long target) {
        return relations.write(Relation.MUTE, true, user, target);
    }

    /**
     * {@code user} no longer mutes {@code target}; idempotent.
     *
     * @param user   a user id, positive
     * @param target a user id, positive
     * @return {@link WriteResult#active()} {@code false}, with {@code user}'s follow token
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    public WriteResult unmute(long user, long target) {
        return relations.write(Relation.MUTE, false, user, target);
    }

    // ---- accounts (docs/account-lifecycle.md) -------------------------------------------------------------------

    /**
     * Deactivates {@code user} ({@code PUT /internal/v1/admin/users/{user}/deactivation} on a write instance):
     * reversibly hides the user; within the propagation bound every read answers as if the user had no edges and
     * every write by or of the user is refused ({@code user-inactive}). Idempotent: deactivating a deactivated user
     * answers its current state.
     *
     * @param user a user id, positive
     * @return the state after the call, {@link AccountState.State#DEACTIVATED}, with the job that corrects other
     *         users' counts; with {@link Builder#readYourWrites} its token goes with {@code user}'s next reads
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: 409 {@code conflict} for an
     *                                  erased user
     */
    public AccountState deactivate(long user) {
        return accounts.deactivate(user);
    }

    /**
     * Reactivates {@code user} ({@code DELETE /internal/v1/admin/users/{user}/deactivation}): the user's edges are
     * visible again exactly as they were. Idempotent: reactivating an active user answers its current state.
     *
     * @param user a user id, positive
     * @return the state after the call, {@link AccountState.State#ACTIVE}
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: 409 {@code conflict} for an
     *                                  erased user
     */
    public AccountState reactivate(long user) {
        return accounts.reactivate(user);
    }

    /**
     * Erases {@code user} ({@code DELETE /internal/v1/admin/users/{user}}), active or deactivated: irreversible
     * (GDPR article 17). At once the user has no edges in any read and can neither write nor be written about; the
     * job deletes every row that names the user, and the id can never be followed again. Idempotent: erasing an
     * erased user answers its current state. This is also what a user's own erasure ({@code DELETE /v1/me} on the
     * gateway) does for the token's subject: a backend names the user instead.
     *
     * @param user a user id, positive
     * @return the state after the call, {@link AccountState.State#ERASED}
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    public AccountState erase(long user) {
        return accounts.erase(user);
    }

    /**
     * {@code user}'s account state ({@code GET /internal/v1/admin/users/{user}} on a write instance). Every id has
     * one: a user never changed is {@link AccountState.State#ACTIVE} with version 0.
     *
     * @param user a user id, positive
     * @return the state
     * @throws IllegalArgumentException when {@code user} is not positive (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused the request
     */
    public AccountState accountState(long user) {
        return accounts.state(user);
    }

    /**
     * The job a state change started ({@code GET /internal/v1/admin/jobs/{jobId}} on a write instance).
     *
     * @param jobId an {@link AccountState#jobId()}: {@code <userId>-<version>}, both positive decimal integers
     * @return the job
     * @throws IllegalArgumentException when {@code jobId} is not of that form (no request is sent)
     * @throws IllegalStateException    when the client has no write instance
     * @throws GraphClientException     when no write instance answered, or one refused: a
     *                                  {@link RequestRejectedException} of 404 {@code not-found} for an unknown job
     */
    public AccountJob accountJob(String jobId) {
        return accounts.job(jobId);
    }

    // ---- instances ----------------------------------------------------------------------------------------------

    /**
     * The check instance ids, in the order given to the builder.
     *
     * @return the ids the router chooses among; empty without check instances
     */
    public List<String> instanceIds() {
        return transport.instanceIds();
    }

    /**
     * The check instance a read about {@code user} goes to on attempt {@code attempt} (0 first): the owner of its
     * logical shard, then the next instances in rendezvous order. The same choice as the gateway's.
     *
     * @param user    a user id
     * @param attempt {@code >= 0}
     * @return one of {@link #instanceIds()}
     * @throws IllegalStateException when the client has no check instance
     */
    public String instanceFor(long user, int attempt) {
        return transport.instanceFor(user, attempt);
    }

    /** Closes the pooled connections at once; calls after this fail. */
    @Override
    public void close() {
        transport.close();
    }

    // ---- value types --------------------------------------------------------------------------------------------

    /**
     * Everything between users {@code a} and {@code b}.
     *
     * @param following  whether {@code a} follows {@code b} (never while a block stands either way)
     * @param followedBy whether {@code b} follows {@code a} (never while a block stands either way)
     * @param blocking   whether {@code a} blocks {@code b}; empty when hidden from the viewer
     * @param blockedBy  whether {@code b} blocks {@code a}; empty when hidden from the viewer
     * @param muting     whether {@code a} mutes {@code b}; empty when hidden from the viewer
     */
    public record Relationship(boolean following, boolean followedBy, Optional<Boolean> blocking,
                               Optional<Boolean> blockedBy, Optional<Boolean> muting) {

        /**
         * @param following  whether {@code a} follows {@code b}
         * @param followedBy whether {@code b} follows {@code a}
         * @param blocking   whether {@code a} blocks {@code b}, or empty
         * @param blockedBy  whether {@code b} blocks {@code a}, or empty
         * @param muting     whether {@code a} mutes {@code b}, or empty
         */
        public Relationship {
            Objects.requireNonNull(blocking, "blocking");
            Objects.requireNonNull(blockedBy, "blockedBy");
            Objects.requireNonNull(muting, "muting");
        }

        /**
         * A relationship with every field known.
         *
         * @param following  whether {@code a} follows {@code b}
         * @param followedBy whether {@code b} follows {@code a}
         * @param blocking   whether {@code a} blocks {@code b}
         * @param blockedBy  whether {@code b} blocks {@code a}
         * @param muting     whether {@code a} mutes {@code b}
         * @return the relationship
         */
        public static Relationship of(boolean following, boolean followedBy, boolean blocking, boolean blockedBy,
                                      boolean muting) {
            return new Relationship(following, followedBy, Optional.of(blocking), Optional.of(blockedBy),
                    Optional.of(muting));
        }

        /**
         * Whether a block stands either way, as far as the viewer may know.
         *
         * @return {@code blocking || blockedBy}, absent fields read as {@code false}
         */
        public boolean blocked() {
            return blocking.orElse(false) || blockedBy.orElse(false);
        }
    }

    /**
     * A user's counts.
     *
     * @param followers how many users follow the user
     * @param following how many users the user follows
     */
    public record Counts(long followers, long following) {
    }

    /**
     * One item of a following or followers list.
     *
     * @param userId     the followee (following list) or follower (followers list)
     * @param followedAt when the follow was made, millisecond precision
     */
    public record Followed(long userId, Instant followedAt) {
    }

    /**
     * One item of a block or mute list.
     *
     * @param userId    the blocked or muted user
     * @param createdAt when the block or mute was made, millisecond precision
     */
    public record Related(long userId, Instant createdAt) {
    }

    /**
     * One suggestion.
     *
     * @param userId      the suggested user
     * @param mutualCount how many of the user's followings follow it, {@code >= 1}
     */
    public record Suggestion(long userId, int mutualCount) {
    }

    /**
     * Which authors are hidden from a viewer.
     *
     * @param blocking  authors the viewer blocks, ascending
     * @param blockedBy authors who block the viewer, ascending
     * @param muting    authors the viewer mutes, ascending
     */
    public record Hidden(long[] blocking, long[] blockedBy, long[] muting) {

        /**
         * Whether nobody is hidden.
         *
         * @return whether all three arrays are empty
         */
        public boolean isEmpty() {
            return blocking.length == 0 && blockedBy.length == 0 && muting.length == 0;
        }
    }

    /** Checks a stream's arguments before it is built (its pages are fetched later). */
    private static void check(long user, int pageSize) {
        UserIds.requirePositive(user, "user");
        Lists.requireLimit(pageSize);
    }

    /**
     * Settings of a {@link FollowCheckClient}. Not thread-safe; {@link #build} validates.
     */
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
            Objects.requireNonNull(baseUri, "baseUri");
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("instance id must not be blank");
            }
            Settings.requireHttp(baseUri, "instance " + id);
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
            Objects.requireNonNull(baseUri, "baseUri");
            Settings.requireHttp(baseUri, "write instance");
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
         * Read-your-writes for this process: when {@code true}, the client remembers the newest follow token each
         * actor got from a write through it, and sends it as {@value FollowCheckClient#FOLLOW_TOKEN_HEADER} on that
         * actor's reads that take one ({@code isFollowing}, {@code areFollowing}, {@code relationship} and
         * {@code hidden}, where the actor is the follower, {@code a} or the viewer) for {@link #followTokenTtl}
         * after the write, unless the call passes a token of its own. Writes made elsewhere (another process, the
         * gateway) are not known to it.
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
         * Attempts per call, the first included: for a read, attempt {@code k} goes to the {@code k}-th check
         * instance in rendezvous order for the user's shard (again the owner after the last instance); for a write,
         * to the {@code k}-th write instance after the one {@link #writeBalancing} starts at. Retried are connection
         * failures, timeouts and 503, on reads and writes alike (writes are idempotent).
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
         * @param wait {@code >= 0}; default 0: the next attempt goes to another instance, so there is nothing to wait
         *             for
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
         * @param size {@code 1..10000}, at most the service's {@code graph.check.batch-max}; default 1000 (the
         *             service's default)
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
