package dev.socialgraph.client;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The checks a backend makes before it shows or sends something (a follow button's state, a notification's
 * eligibility, a feed's authors), part of {@link FollowCheckClient}'s API: the follow check single and batched, the
 * relationship between two users, and the authors hidden from a viewer. Each is answered by the check instance that
 * owns the shard of the user it is about (the follower, {@code a}, the viewer), with fail-over to the next instance
 * in rendezvous order ({@link #instanceFor}); so are the lists of {@link FollowLists}.
 *
 * <p><b>Read-your-writes.</b> The check service answers from its bloom filter and caches, as fresh as its
 * follow-events stream. A check that carries the actor's follow token ({@value FollowCheckClient#FOLLOW_TOKEN_HEADER},
 * from the actor's last write) reads the shard instead while the token is young, so it sees that write at once. Pass
 * the token as the last argument, or let the client keep it
 * ({@link FollowCheckClient.Builder#readYourWrites readYourWrites}); a passed token wins.
 *
 * <p>Sealed: {@link FollowCheckClient} is its one implementation.
 */
public sealed interface FollowChecks permits FollowCheckClient {

    /**
     * Does {@code follower} follow {@code followee}? Answered by the check service's layers (bloom filter, caches,
     * shard), as fresh as its follow-events stream: a follow acknowledged a moment ago may still read {@code false}
     * unless its follow token is sent ({@link #isFollowing(long, long, String)}, or
     * {@link FollowCheckClient.Builder#readYourWrites readYourWrites}).
     *
     * @param follower a user id, positive
     * @param followee a user id, positive
     * @return whether the edge exists
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    default boolean isFollowing(long follower, long followee) {
        return isFollowing(follower, followee, null);
    }

    /**
     * Does {@code follower} follow {@code followee}, reading the shard when {@code followToken} says the follower
     * wrote since (read-your-writes)?
     *
     * @param follower    a user id, positive
     * @param followee    a user id, positive
     * @param followToken the follow token the write service returned to the follower's last write, sent as
     *                    {@value FollowCheckClient#FOLLOW_TOKEN_HEADER}; {@code null} for none (then the remembered
     *                    one, with {@link FollowCheckClient.Builder#readYourWrites readYourWrites}). A token that does
     *                    not verify is ignored by the service.
     * @return whether the edge exists
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    boolean isFollowing(long follower, long followee, String followToken);

    /**
     * Which of {@code followees} does {@code follower} follow? One request per
     * {@link FollowCheckClient.Builder#batchSize batchSize} ids, all to {@code follower}'s instance.
     *
     * @param follower  a user id, positive
     * @param followees user ids, each positive; any order, repeats allowed; not modified
     * @return the answers, by position in {@code followees} or by id
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    default FollowingBatch areFollowing(long follower, long[] followees) {
        return areFollowing(follower, followees, null);
    }

    /**
     * {@link #areFollowing(long, long[])} with read-your-writes: the service reads the shard for every id when
     * {@code followToken} is a young token of {@code follower}.
     *
     * @param follower    a user id, positive
     * @param followees   user ids, each positive; any order, repeats allowed; not modified
     * @param followToken the follower's follow token, or {@code null} (then the remembered one)
     * @return the answers, by position in {@code followees} or by id
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    FollowingBatch areFollowing(long follower, long[] followees, String followToken);

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
    default Relationship relationship(long a, long b) {
        return relationship(a, b, null);
    }

    /**
     * {@link #relationship(long, long)} with read-your-writes for {@code a}.
     *
     * @param a           a user id, positive
     * @param b           a user id, positive
     * @param followToken {@code a}'s follow token, or {@code null} (then the remembered one)
     * @return the relationship with every field present
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    Relationship relationship(long a, long b, String followToken);

    /**
     * The relationship between {@code a} and {@code b} as {@code viewer} may see it, as the gateway asks for a
     * signed-in user ({@value FollowCheckClient#VIEWER_HEADER}): the blocks are present only when the viewer is
     * {@code a} or {@code b}, the mute only when it is {@code a}.
     *
     * @param a           a user id, positive
     * @param b           a user id, positive
     * @param viewer      the user it is shown to, positive
     * @param followToken {@code a}'s follow token, or {@code null} (then the remembered one)
     * @return the relationship; the fields hidden from {@code viewer} are empty
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    Relationship relationshipSeenBy(long a, long b, long viewer, String followToken);

    /**
     * Which of {@code authors} are hidden from {@code viewer}: those it blocks, is blocked by, or mutes.
     *
     * @param viewer  a user id, positive
     * @param authors user ids, each positive; any order, repeats allowed; not modified
     * @return the three subsets of {@code authors}, each ascending and without repeats
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    default Hidden hidden(long viewer, long[] authors) {
        return hidden(viewer, authors, null);
    }

    /**
     * Which of {@code authors} does {@code viewer} block, is blocked by, or mute? The check a feed makes before
     * rendering, for the same cost class as {@link #areFollowing}: one request per
     * {@link FollowCheckClient.Builder#batchSize batchSize} ids, all to {@code viewer}'s instance, answered there
     * mostly in process. Pass the viewer's follow token (from its block or mute reply) to see that write at once.
     *
     * @param viewer      a user id, positive
     * @param authors     user ids, each positive; any order, repeats allowed; not modified
     * @param followToken the viewer's follow token, or {@code null} (then the remembered one)
     * @return the three subsets of {@code authors}, each ascending and without repeats
     * @throws IllegalArgumentException when an id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    Hidden hidden(long viewer, long[] authors, String followToken);

    /**
     * The check instance ids, in the order given to the builder.
     *
     * @return the ids the router chooses among; empty without check instances
     */
    List<String> instanceIds();

    /**
     * The check instance a read about {@code user} goes to on attempt {@code attempt} (0 first): the owner of its
     * logical shard, then the next instances in rendezvous order. The same choice as the gateway's load balancer.
     *
     * @param user    a user id
     * @param attempt {@code >= 0}
     * @return one of {@link #instanceIds()}
     * @throws IllegalStateException when the client has no check instance
     */
    String instanceFor(long user, int attempt);

    /**
     * Everything between users {@code a} and {@code b}.
     *
     * <p>A protected account's follows (docs/decisions/0064-follow-requests.md) are hidden from a viewer who is neither
     * the account nor one of its followers: then the direction it follows in reads {@code false} and is marked hidden.
     * Without a viewer (a backend) nothing is hidden.
     *
     * @param following        whether {@code a} follows {@code b} (never while a block stands either way); {@code false}
     *                         when {@link #followingHidden()}
     * @param followedBy       whether {@code b} follows {@code a} (never while a block stands either way);
     *                         {@code false} when {@link #followedByHidden()}
     * @param blocking         whether {@code a} blocks {@code b}; empty when hidden from the viewer
     * @param blockedBy        whether {@code b} blocks {@code a}; empty when hidden from the viewer
     * @param muting           whether {@code a} mutes {@code b}; empty when hidden from the viewer
     * @param protectedAccount whether {@code b} is a protected account
     * @param requested        whether {@code a} asked to follow {@code b} and waits; empty when hidden from the viewer
     * @param requestedBy      whether {@code b} asked to follow {@code a} and waits; empty when hidden from the viewer
     * @param followingHidden  whether {@code a} is a protected account whose follows the viewer may not see
     * @param followedByHidden whether {@code b} is such an account
     */
    public record Relationship(boolean following, boolean followedBy, Optional<Boolean> blocking,
                               Optional<Boolean> blockedBy, Optional<Boolean> muting, boolean protectedAccount,
                               Optional<Boolean> requested, Optional<Boolean> requestedBy, boolean followingHidden,
                               boolean followedByHidden) {

        /**
         * @param following        whether {@code a} follows {@code b}
         * @param followedBy       whether {@code b} follows {@code a}
         * @param blocking         whether {@code a} blocks {@code b}, or empty
         * @param blockedBy        whether {@code b} blocks {@code a}, or empty
         * @param muting           whether {@code a} mutes {@code b}, or empty
         * @param protectedAccount whether {@code b} is protected
         * @param requested        whether {@code a} waits for {@code b}'s answer, or empty
         * @param requestedBy      whether {@code b} waits for {@code a}'s answer, or empty
         * @param followingHidden  whether {@code a}'s follows are hidden from the viewer
         * @param followedByHidden whether {@code b}'s follows are hidden from the viewer
         */
        public Relationship {
            Objects.requireNonNull(blocking, "blocking");
            Objects.requireNonNull(blockedBy, "blockedBy");
            Objects.requireNonNull(muting, "muting");
            Objects.requireNonNull(requested, "requested");
            Objects.requireNonNull(requestedBy, "requestedBy");
        }

        /**
         * A relationship between public accounts with no request pending, as before protected accounts.
         *
         * @param following  whether {@code a} follows {@code b}
         * @param followedBy whether {@code b} follows {@code a}
         * @param blocking   whether {@code a} blocks {@code b}, or empty
         * @param blockedBy  whether {@code b} blocks {@code a}, or empty
         * @param muting     whether {@code a} mutes {@code b}, or empty
         */
        public Relationship(boolean following, boolean followedBy, Optional<Boolean> blocking,
                            Optional<Boolean> blockedBy, Optional<Boolean> muting) {
            this(following, followedBy, blocking, blockedBy, muting, false, blocking.map(shown -> false),
                    blocking.map(shown -> false), false, false);
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
}
