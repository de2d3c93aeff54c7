package dev.socialgraph.client;

import dev.socialgraph.client.FollowChanges.ChangeFilter;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.wire.Changes;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.WireFormatException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Collectors;

/**
 * The change stream's reads on the check service: the head ({@link InternalApi#CHANGES_HEAD}) and a page of the whole
 * stream ({@link InternalApi#CHANGES}) on any check instance, a page of a user's own stream
 * ({@link InternalApi#USER_CHANGES}) on the instance that owns the user's shard (its privacy rule reads the user's
 * blocks there). The answers are read with graph-wire's {@link Changes} codec; the arguments are checked against its
 * bounds before any request. Thread-safe.
 */
final class ChangeReads {

    /**
     * Time a page may take on top of its wait and the client's {@code requestTimeout}: an old cursor is read from the
     * topic, for up to the service's {@code graph.check.changes.catch-up-timeout} (2 s), before the answer starts.
     */
    static final Duration CATCH_UP = Duration.ofSeconds(3);

    private final Transport transport;

    ChangeReads(Transport transport) {
        this.transport = transport;
    }

    /** The head's cursor. */
    String head() {
        byte[] body = transport.readAny(Request.to(InternalApi.CHANGES_HEAD).patience(CATCH_UP));
        try {
            return Changes.readCursor(new String(body, StandardCharsets.UTF_8));
        } catch (WireFormatException e) {
            throw Problems.unreadable(e.getMessage(), e);
        }
    }

    /**
     * A page of the whole stream ({@code owner == 0}) or of {@code owner}'s own stream.
     *
     * @param owner  {@code 0}, or a user id (checked by the caller)
     * @param filter {@code null} for {@link ChangeFilter#ALL}
     * @throws IllegalArgumentException for a limit, wait or cursor out of bounds, before any request
     */
    Changes.Page page(long owner, String cursor, ChangeFilter filter, int limit, int waitSeconds) {
        requirePage(cursor, limit, waitSeconds);
        String query = query(cursor, filter == null ? ChangeFilter.ALL : filter, limit, waitSeconds);
        Duration patience = Duration.ofSeconds(waitSeconds).plus(CATCH_UP);
        byte[] body = owner == 0
                ? transport.readAny(Request.to(InternalApi.CHANGES).query(query).patience(patience))
                : transport.read(owner, Request.to(InternalApi.USER_CHANGES, owner).query(query).patience(patience));
        try {
            return Changes.readPage(new String(body, StandardCharsets.UTF_8));
        } catch (WireFormatException e) {
            throw Problems.unreadable(e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException for an id that is not positive */
    static long requireOwner(long user) {
        return UserIds.requirePositive(user, "user");
    }

    /** @throws IllegalArgumentException for a blank cursor ({@code null} is the head) */
    static void requireCursor(String cursor) {
        if (cursor != null && cursor.isBlank()) {
            throw new IllegalArgumentException("cursor must not be blank; null starts at the head");
        }
    }

    /** @throws IllegalArgumentException for a cursor, limit or wait the service would refuse */
    static void requirePage(String cursor, int limit, int waitSeconds) {
        requireCursor(cursor);
        if (limit < Changes.MIN_LIMIT || limit > Changes.MAX_LIMIT) {
            throw new IllegalArgumentException(Changes.LIMIT + " must be from " + Changes.MIN_LIMIT + " to "
                    + Changes.MAX_LIMIT + ", was " + limit);
        }
        if (waitSeconds < Changes.MIN_WAIT || waitSeconds > Changes.MAX_WAIT) {
            throw new IllegalArgumentException(Changes.WAIT + " must be from " + Changes.MIN_WAIT + " to "
                    + Changes.MAX_WAIT + " seconds, was " + waitSeconds);
        }
    }

    /**
     * {@code cursor=..&kinds=..&users=..&limit=..&wait=..}, each only when it says something: the cursor is opaque,
     * so percent-encoded whatever it holds; kinds are wire names and ids digits, joined by commas as the service
     * splits them.
     */
    static String query(String cursor, ChangeFilter filter, int limit, int waitSeconds) {
        StringBuilder q = new StringBuilder();
        if (cursor != null) {
            q.append(Changes.CURSOR).append('=').append(URLEncoder.encode(cursor, StandardCharsets.UTF_8)).append('&');
        }
        if (!filter.kinds().isEmpty()) {
            q.append(Changes.KINDS).append('=').append(String.join(",", filter.kinds())).append('&');
        }
        if (!filter.users().isEmpty()) {
            q.append(Changes.USERS).append('=')
                    .append(filter.users().stream().map(String::valueOf).collect(Collectors.joining(","))).append('&');
        }
        return q.append(Changes.LIMIT).append('=').append(limit).append('&')
                .append(Changes.WAIT).append('=').append(waitSeconds).toString();
    }
}
