package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

/**
 * The lists of a user, part of {@link FollowCheckClient}'s API: following and followers, blocks and mutes, and the
 * users two users both follow, one cursor-paged {@link Page} per call or every page as a lazy {@link Stream}; a user's
 * counts; and suggestions. Each is answered by the check instance that owns the shard of the user it is about, with
 * fail-over to the next instance in rendezvous order. A page's {@code limit} is at most the service's
 * {@code graph.check.max-limit} (1000); a cursor is opaque: pass back a page's {@link Page#nextCursor()}, {@code null}
 * for the first page.
 *
 * <p>Sealed: {@link FollowCheckClient} is its one implementation.
 */
public sealed interface FollowLists permits FollowCheckClient {

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
    Page<Followed> following(long user, int limit, String cursor);

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
    Page<Followed> followers(long user, int limit, String cursor);

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
    default Stream<Followed> allFollowing(long user, int pageSize) {
        Lists.requireWalk(user, pageSize);
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
    default Stream<Followed> allFollowers(long user, int pageSize) {
        Lists.requireWalk(user, pageSize);
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
    Page<Related> blocking(long user, int limit, String cursor);

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
    Page<Related> muting(long user, int limit, String cursor);

    /**
     * One page of {@code user}'s pending follow requests, newest first ({@code GET
     * /internal/v1/users/{user}/follow-requests}; docs/decisions/0064-follow-requests.md): {@code incoming}, who asked
     * to follow {@code user} (within the follower side's propagation bound); else whom {@code user} asked (at once).
     * {@link Related#createdAt()} is when the request was made.
     *
     * @param user     a user id, positive
     * @param incoming the requests to {@code user}, rather than its own
     * @param limit    items per page, {@code >= 1} and at most the service's maximum (1000)
     * @param cursor   the previous page's {@link Page#nextCursor()}, or {@code null} for the first page
     * @return the page
     * @throws IllegalArgumentException when the id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    Page<Related> followRequests(long user, boolean incoming, int limit, String cursor);

    /**
     * Every user {@code user} blocks, newest first, a page at a time as for {@link #allFollowing}.
     *
     * @param user     a user id, positive
     * @param pageSize items per request, {@code >= 1}
     * @return a lazy, ordered, sequential stream
     * @throws IllegalArgumentException when the id is not positive or {@code pageSize < 1}
     */
    default Stream<Related> allBlocking(long user, int pageSize) {
        Lists.requireWalk(user, pageSize);
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
    default Stream<Related> allMuting(long user, int pageSize) {
        Lists.requireWalk(user, pageSize);
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
    Page<Long> commonFollowing(long a, long b, int limit, String cursor);

    /**
     * Every user both {@code a} and {@code b} follow, ascending by id, a page at a time as for {@link #allFollowing}.
     *
     * @param a        a user id, positive
     * @param b        a user id, positive
     * @param pageSize items per request, {@code >= 1}
     * @return a lazy, ordered, sequential stream of user ids
     * @throws IllegalArgumentException when an id is not positive or {@code pageSize < 1}
     */
    default Stream<Long> allCommonFollowing(long a, long b, int pageSize) {
        Lists.requireWalk(a, pageSize);
        UserIds.requirePositive(b, "b");
        return PageWalker.stream(cursor -> commonFollowing(a, b, pageSize, cursor));
    }

    /**
     * One page of the users {@code viewer} follows who follow {@code user} ("followers you know"), newest first by the
     * viewer's follow ({@link Followed#followedAt()}: when the viewer followed them). Asked of {@code user}'s instance;
     * inactive users and users {@code user} blocks are left out, so a page may hold fewer than {@code limit} items.
     *
     * @param viewer who asks, a user id, positive
     * @param user   whose followers, a user id, positive
     * @param limit  items per page, {@code >= 1} and at most the service's maximum (1000)
     * @param cursor the previous page's {@link Page#nextCursor()}, or {@code null} for the first page
     * @return the page
     * @throws IllegalArgumentException when an id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    Page<Followed> knownFollowers(long viewer, long user, int limit, String cursor);

    /**
     * Users {@code user} may want to follow: followed by the users it follows (depth 2), best first.
     *
     * @param user  a user id, positive
     * @param limit most suggestions, {@code >= 1} and at most the service's maximum (1000)
     * @return the suggestions, best first; empty when there are none
     * @throws IllegalArgumentException when the id is not positive or {@code limit < 1} (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    List<Suggestion> suggestions(long user, int limit);

    /**
     * A user's follower and following counts.
     *
     * @param user a user id, positive
     * @return the counts, each {@code >= 0}
     * @throws IllegalArgumentException when the id is not positive (no request is sent)
     * @throws GraphClientException     when no instance answered, or one refused the request
     */
    Counts counts(long user);

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
}
