package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.wire.Changes;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The change stream, part of {@link FollowCheckClient}'s API: every follow, unfollow, block, unblock, mute, unmute and
 * follow request (and every account change) after a position, in the order they were committed, read a page at a time ({@link #changes}, long-polled) or
 * watched ({@link #watchChanges}, a thread of its own that reconnects by itself). The whole stream is the service's
 * {@code GET /internal/v1/changes} (what the gateway serves as {@code GET /v1/changes} to tokens with the
 * {@code graph:changes} scope), asked of any check instance; a user's own stream is
 * {@code GET /internal/v1/users/{user}/changes} (the gateway's {@code GET /v1/me/changes}), asked of the instance
 * that owns the user's shard. Either way a connection failure, a timeout or 503 moves the call to the next instance.
 *
 * <p><b>Events.</b> Graph-wire's {@link Changes.Event}: {@code eventId} (stable across redeliveries: drop repeats by
 * it), {@code cursor} (the position just after the event), {@code kind} (one of {@link Changes#KINDS_SERVED}),
 * {@code actorId} (the follower, blocker or muter) and {@code targetId} (the followee, blocked or muted user), both
 * positive 64-bit user ids, {@code occurredAt} (commit time, epoch milliseconds) and {@code version} (the actor's row's
 * version after the change, {@code >= 1}). An account change ({@code deactivate}, {@code reactivate}, {@code erase},
 * and a protection change, {@code protect} or {@code unprotect}) has the user as {@code actorId}, {@code targetId} 0,
 * and the account row's version. Never an edge event naming a user who
 * is deactivated or erased now, and of an erased user nothing but the {@code erase} event. A user's own stream holds
 * the follows and unfollows where the user is actor or target and the user's own blocks, mutes and account changes,
 * never another user's block or mute of them, nor anything of a user who blocks them.
 *
 * <p><b>Cursors.</b> Opaque strings; any instance accepts any cursor, and a cursor outlives every restart (it names
 * positions in the {@code follow-events} topic). {@code null} starts at the head now ({@link #changesHead}). A cursor
 * older than the topic keeps (7 days by default) is refused with 410 {@code cursor-expired}
 * ({@link RequestRejectedException}): take the head, re-read what the consumer needs, and go on from the head.
 *
 * <p>Sealed: {@link FollowCheckClient} is its one implementation.
 */
public sealed interface FollowChanges permits FollowCheckClient {

    /**
     * The stream's position now ({@code GET /internal/v1/changes/head}), to start watching from after a consumer has
     * read the state it needs.
     *
     * @return an opaque cursor
     * @throws IllegalStateException when the client has no check instance
     * @throws GraphClientException  when no instance answered (503 while the topic cannot be read), or one refused
     */
    String changesHead();

    /**
     * One page of the whole stream after {@code cursor}: the events at once when there are some, else after waiting
     * up to {@code waitSeconds} for one (a long-poll; the call may take that long plus the client's
     * {@code requestTimeout} and a few seconds). An empty page is normal: its cursor still moves on past what the
     * filter left out.
     *
     * @param cursor      where to start: a page's or an event's cursor, or {@code null} for the head now
     * @param filter      the kinds and users to keep; {@code null} or {@link ChangeFilter#ALL} for everything
     * @param limit       most events in the page, {@value Changes#MIN_LIMIT} to {@value Changes#MAX_LIMIT}
     * @param waitSeconds seconds to wait when there is no event yet, {@value Changes#MIN_WAIT} to
     *                    {@value Changes#MAX_WAIT} (0 answers at once)
     * @return the events in stream order and the cursor the next page starts from
     * @throws IllegalArgumentException when {@code limit} or {@code waitSeconds} is out of range or {@code cursor} is
     *                                  blank (no request is sent)
     * @throws IllegalStateException    when the client has no check instance
     * @throws GraphClientException     when no instance answered (503: the topic cannot be read now), or one refused:
     *                                  410 {@code cursor-expired} for a cursor older than the stream keeps, 400 naming
     *                                  the bad parameter ({@code cursor} for one not issued by the fleet)
     */
    Changes.Page changes(String cursor, ChangeFilter filter, int limit, int waitSeconds);

    /**
     * One page of {@code user}'s own stream after {@code cursor}, as {@link #changes} otherwise; its cursors are the
     * whole stream's.
     *
     * @param user        whose stream, a user id, positive
     * @param cursor      where to start, or {@code null} for the head now
     * @param filter      the kinds and users to keep; {@code null} or {@link ChangeFilter#ALL} for everything
     * @param limit       most events in the page, {@value Changes#MIN_LIMIT} to {@value Changes#MAX_LIMIT}
     * @param waitSeconds seconds to wait when there is no event yet, {@value Changes#MIN_WAIT} to
     *                    {@value Changes#MAX_WAIT}
     * @return the events in stream order and the cursor the next page starts from
     * @throws IllegalArgumentException when the id is not positive, {@code limit} or {@code waitSeconds} is out of
     *                                  range, or {@code cursor} is blank (no request is sent)
     * @throws IllegalStateException    when the client has no check instance
     * @throws GraphClientException     as {@link #changes}
     */
    Changes.Page ownChanges(long user, String cursor, ChangeFilter filter, int limit, int waitSeconds);

    /**
     * Watches the whole stream from {@code cursor} on a thread of its own (a virtual thread, so it does not keep the
     * JVM alive): pages of up to {@value Changes#MAX_LIMIT} events long-polled {@value Changes#MAX_WAIT} s at a time,
     * each event handed to {@code listener} in stream order, an event whose {@code eventId} was among the last 10,000
     * delivered skipped. After a connection failure, a timeout, 503, 429 or another 5xx it reconnects by itself from
     * the last cursor, after an exponential backoff (250 ms doubling to 30 s, randomized, at least the answer's
     * {@code Retry-After} up to that cap; reset by an answer). Any other failure
     * (410 {@code cursor-expired}, a 400 or 401, an unreadable answer, the listener's own exception) stops the watch
     * and goes to {@link ChangeListener#onError}.
     *
     * @param cursor   where to start: a cursor the consumer kept, or {@code null} for the head now (read first, and
     *                 given to {@link ChangeListener#onCheckpoint} so the consumer can keep it)
     * @param filter   the kinds and users to keep; {@code null} or {@link ChangeFilter#ALL} for everything
     * @param listener gets the events, checkpoints and the error that stops the watch, on the watch's thread
     * @return the running watch; close it to stop
     * @throws IllegalArgumentException when {@code cursor} is blank (no request is sent)
     * @throws NullPointerException     when {@code listener} is {@code null}
     */
    ChangeWatch watchChanges(String cursor, ChangeFilter filter, ChangeListener listener);

    /**
     * Watches {@code user}'s own stream from {@code cursor}, as {@link #watchChanges} otherwise.
     *
     * @param user     whose stream, a user id, positive
     * @param cursor   where to start, or {@code null} for the head now
     * @param filter   the kinds and users to keep; {@code null} or {@link ChangeFilter#ALL} for everything
     * @param listener gets the events, checkpoints and the error that stops the watch, on the watch's thread
     * @return the running watch; close it to stop
     * @throws IllegalArgumentException when the id is not positive or {@code cursor} is blank (no request is sent)
     * @throws NullPointerException     when {@code listener} is {@code null}
     */
    ChangeWatch watchOwnChanges(long user, String cursor, ChangeFilter filter, ChangeListener listener);

    /**
     * Which events a read keeps: the service's {@code kinds} and {@code users} parameters. Immutable.
     *
     * @param kinds only these kinds ({@link Changes#KINDS_SERVED}: {@code follow}, {@code unfollow}, {@code block},
     *              {@code unblock}, {@code mute}, {@code unmute}, {@code request}, {@code unrequest},
     *              {@code deactivate}, {@code reactivate}, {@code erase}, {@code protect}, {@code unprotect}); empty for
     *              every kind; unmodifiable, in that order
     * @param users only events whose actor or target is one of these positive user ids, at most
     *              {@value Changes#MAX_USERS}; empty for every user; unmodifiable, ascending
     */
    record ChangeFilter(Set<String> kinds, Set<Long> users) {

        /** Every kind, every user. */
        public static final ChangeFilter ALL = new ChangeFilter(Set.of(), Set.of());

        /**
         * @param kinds the kinds, copied
         * @param users the user ids, copied
         * @throws IllegalArgumentException for an unknown kind, an id that is not positive, or too many users
         * @throws NullPointerException     for a {@code null} set or element
         */
        public ChangeFilter {
            Objects.requireNonNull(kinds, "kinds");
            Objects.requireNonNull(users, "users");
            for (String kind : kinds) {
                if (!Changes.KINDS_SERVED.contains(Objects.requireNonNull(kind, "kind"))) {
                    throw new IllegalArgumentException("unknown kind '" + kind + "'; kinds are "
                            + String.join(", ", Changes.KINDS_SERVED));
                }
            }
            if (users.size() > Changes.MAX_USERS) {
                throw new IllegalArgumentException("at most " + Changes.MAX_USERS + " users, was " + users.size());
            }
            for (Long user : users) {
                UserIds.requirePositive(Objects.requireNonNull(user, "user"), "users");
            }
            Set<String> ordered = new LinkedHashSet<>();
            Changes.KINDS_SERVED.stream().filter(kinds::contains).forEach(ordered::add);
            kinds = Collections.unmodifiableSet(ordered);
            users = Collections.unmodifiableSet(new TreeSet<>(users));
        }

        /**
         * This filter keeping only {@code kinds}.
         *
         * @param kinds wire names of {@link Changes#KINDS_SERVED}; none for every kind
         * @return a new filter with this one's users
         * @throws IllegalArgumentException for an unknown kind
         */
        public ChangeFilter withKinds(String... kinds) {
            return new ChangeFilter(Set.of(kinds), users);
        }

        /**
         * This filter keeping only events whose actor or target is one of {@code users}.
         *
         * @param users positive user ids, at most {@value Changes#MAX_USERS}; none for every user
         * @return a new filter with this one's kinds
         * @throws IllegalArgumentException for an id that is not positive, or too many
         */
        public ChangeFilter withUsers(long... users) {
            Set<Long> ids = new TreeSet<>();
            for (long user : users) {
                ids.add(user);
            }
            return new ChangeFilter(kinds, ids);
        }
    }

    /**
     * What a watch ({@link #watchChanges}) calls, always on the watch's own thread, one call at a time, never after
     * {@link ChangeWatch#close()} returned. A callback that blocks holds the watch (nothing is read meanwhile); one
     * that throws stops it ({@link #onError} gets the exception).
     */
    interface ChangeListener {

        /**
         * One event, in stream order, at most once among the last 10,000 delivered.
         *
         * @param event  the event
         * @param cursor the position just after it ({@code event.cursor()}): a consumer that keeps it and watches from
         *               it after its own restart gets the next events and never this one again
         */
        void onEvent(Changes.Event event, String cursor);

        /**
         * The position moved on without an event to deliver: the head read when the watch started without a cursor,
         * or a page's end past what the filter left out (and past repeats). Keep it as the last event's cursor is
         * kept, so that a narrow filter's watch does not fall behind the stream's retention. Called only when the
         * position changed. Does nothing by default.
         *
         * @param cursor the position now
         */
        default void onCheckpoint(String cursor) {
        }

        /**
         * A failure the watch retries: it reconnects from its last cursor after {@code backoff}. For logging; does
         * nothing by default.
         *
         * @param failure what failed: {@link UnavailableException} (no answer, or 503), {@link RateLimitedException},
         *                or a {@link GraphClientException} with a 5xx status
         * @param backoff the pause before the next attempt
         */
        default void onRetry(GraphClientException failure, Duration backoff) {
        }

        /**
         * The failure that stopped the watch; the last call this listener gets. For a 410 {@code cursor-expired}
         * ({@code failure.type() == ProblemType.CURSOR_EXPIRED}), take {@link #changesHead()}, re-read what the
         * consumer derives from the stream, and watch from that head.
         *
         * @param failure a {@link GraphClientException} the watch does not retry (410, another 4xx, an unreadable
         *                answer), an {@link IllegalStateException} when the client has no check instance, or the
         *                exception {@link #onEvent} or {@link #onCheckpoint} threw
         */
        void onError(RuntimeException failure);
    }

    /** A running watch ({@link #watchChanges}). Thread-safe. */
    interface ChangeWatch extends AutoCloseable {

        /**
         * The position of the last event or checkpoint given to the listener, else the cursor the watch started from.
         *
         * @return the cursor, or {@code null} while a watch started without one has not read the head yet
         */
        String cursor();

        /**
         * Whether the watch still runs: not closed, and not stopped by a failure.
         *
         * @return {@code true} until it stops
         */
        boolean isRunning();

        /**
         * The failure that stopped the watch, as {@link ChangeListener#onError} got it.
         *
         * @return it, or empty while running or after a {@link #close()}
         */
        Optional<RuntimeException> failure();

        /**
         * Waits for the watch to stop (a failure, or a {@link #close()} from elsewhere): what a consumer's main thread
         * does, the watch's own thread being a daemon.
         *
         * @throws InterruptedException when the waiting thread is interrupted
         */
        void awaitStop() throws InterruptedException;

        /**
         * Waits for the watch to stop, at most {@code timeout}.
         *
         * @param timeout longest wait; past about 292 years, as long as it takes
         * @return {@code true} when it stopped, {@code false} when the time ran out
         * @throws InterruptedException when the waiting thread is interrupted
         */
        boolean awaitStop(Duration timeout) throws InterruptedException;

        /**
         * Stops the watch: a read in progress is abandoned, a backoff cut short, and no listener call comes after this
         * returns (a call in progress is waited for, unless this is called from the listener itself). Idempotent.
         */
        @Override
        void close();
    }
}
