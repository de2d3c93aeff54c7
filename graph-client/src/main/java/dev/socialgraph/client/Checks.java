package dev.socialgraph.client;

import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.wire.FollowingAnswer;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.WireFormatException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * The checks a backend makes per pair or per batch, on the check instance of the follower or viewer: the single follow
 * check ({@link InternalApi#CHECK}), the batch check ({@link InternalApi#CONTAINS}) and hidden authors
 * ({@link InternalApi#HIDDEN}), each with the actor's follow token when there is one. Batches larger than
 * {@code batchSize} are split, one request each, and their ascending answers merged without boxing. Ids are checked
 * before any request. Thread-safe.
 */
final class Checks {

    private final Transport transport;
    /** {@code null} unless read-your-writes was asked for. */
    private final FollowTokenMemory tokens;
    private final int batchSize;

    Checks(Transport transport, FollowTokenMemory tokens, int batchSize) {
        this.transport = transport;
        this.tokens = tokens;
        this.batchSize = batchSize;
    }

    /** Whether {@code follower} follows {@code followee}; {@code followToken} {@code null} sends the remembered one. */
    boolean isFollowing(long follower, long followee, String followToken) {
        UserIds.requirePositive(follower, "follower");
        UserIds.requirePositive(followee, "followee");
        Request request = Request.to(InternalApi.CHECK, follower, followee)
                .header(Headers.FOLLOW_TOKEN, tokenFor(follower, followToken));
        byte[] body = transport.read(follower, request);
        // The two answers are pre-encoded by the service (graph-wire's FollowingAnswer); anything else is parsed.
        if (Arrays.equals(body, FollowingAnswer.bytes(true))) {
            return true;
        }
        if (Arrays.equals(body, FollowingAnswer.bytes(false))) {
            return false;
        }
        try {
            return FollowingAnswer.read(Answers.parse(body));
        } catch (WireFormatException e) {
            throw Problems.unreadable(e.getMessage(), e);
        }
    }

    /** Which of {@code followees} {@code follower} follows, one request per {@code batchSize} ids. */
    FollowingBatch areFollowing(long follower, long[] followees, String followToken) {
        UserIds.requirePositive(follower, "follower");
        requirePositive(followees, "followees");
        Request request = Request.to(InternalApi.CONTAINS, follower)
                .header(Headers.FOLLOW_TOKEN, tokenFor(follower, followToken));
        // Primitive all the way (no boxed set): each batch's ascending answer is merged into the last.
        long[] following = new long[0];
        for (int from = 0; from < followees.length; from += batchSize) {
            byte[] json = idsBody(followees, from, Math.min(followees.length, from + batchSize));
            JsonNode body = Answers.parse(transport.read(follower, request.body(json)));
            following = union(following, Answers.ids(body, "following"));
        }
        return new FollowingBatch(follower, followees, following);
    }

    /** Which of {@code authors} {@code viewer} blocks, is blocked by, or mutes; one request per batch. */
    FollowChecks.Hidden hidden(long viewer, long[] authors, String followToken) {
        UserIds.requirePositive(viewer, "viewer");
        requirePositive(authors, "authors");
        Request request = Request.to(InternalApi.HIDDEN, viewer)
                .header(Headers.FOLLOW_TOKEN, tokenFor(viewer, followToken));
        // Each batch's three ascending answers are merged into the last, as for areFollowing.
        long[] blocking = new long[0];
        long[] blockedBy = new long[0];
        long[] muting = new long[0];
        for (int from = 0; from < authors.length; from += batchSize) {
            byte[] json = idsBody(authors, from, Math.min(authors.length, from + batchSize));
            JsonNode body = Answers.parse(transport.read(viewer, request.body(json)));
            blocking = union(blocking, Answers.ids(body, "blocking"));
            blockedBy = union(blockedBy, Answers.ids(body, "blockedBy"));
            muting = union(muting, Answers.ids(body, "muting"));
        }
        return new FollowChecks.Hidden(blocking, blockedBy, muting);
    }

    /** The ascending union of two ascending arrays, each id once. */
    static long[] union(long[] a, long[] b) {
        long[] out = new long[a.length + b.length];
        int i = 0;
        int j = 0;
        int n = 0;
        while (i < a.length || j < b.length) {
            long next = j == b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
            if (n == 0 || out[n - 1] != next) {
                out[n++] = next;
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** {@code {"ids":[..]}} of {@code ids[from..to)}, the body of a batch check and of hidden authors. */
    static byte[] idsBody(long[] ids, int from, int to) {
        StringBuilder s = new StringBuilder(12 + (to - from) * 12).append("{\"ids\":[");
        for (int i = from; i < to; i++) {
            s.append(i == from ? "" : ",").append(ids[i]);
        }
        return s.append("]}").toString().getBytes(StandardCharsets.US_ASCII);
    }

    private String tokenFor(long actor, String explicit) {
        return tokens == null ? explicit : tokens.tokenFor(actor, explicit);
    }

    private static void requirePositive(long[] ids, String name) {
        Objects.requireNonNull(ids, name);
        for (int i = 0; i < ids.length; i++) {
            UserIds.requirePositive(ids[i], name + "[" + i + "]");
        }
    }
}
