package dev.socialgraph.gateway;

import dev.socialgraph.wire.FollowingPairs;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.WireFormatException;
import io.netty.buffer.ByteBuf;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * The batch follow check of one check instance, the transport of its {@link Coalescer}: one call
 * {@code POST {instance}/internal/v1/following/pairs} with body
 * {@code {"pairs":[{"followerId":1,"followeeId":2},{"followerId":3,"followeeId":4,"followToken":"…"}]}} (1 to
 * 1,000 pairs, the check service's limit), answered {@code 200 {"results":[{"following":true},{"status":503,…}]}}:
 * one result per pair in order, each {@code {"following":bool}} or the problem the single check
 * ({@code GET /internal/v1/users/{id}/following/{targetId}}) would have answered for that pair.
 *
 * <p>Sent on the gateway's own Reactor Netty client, the one Spring Cloud Gateway proxies with
 * ({@link HttpClientTuning}): the same bounded pool per instance, connect and response timeouts, keep-alive. Headers:
 * the service credential, and the request id and trace context of the batch's first request
 * ({@link ServiceHeaders#writeBatchHeaders}).
 *
 * <p>The answer is read up to {@link FollowingPairs#answerBytes} of the batch, its largest honest size (a problem
 * document of at most 1,024 bytes per pair: 65,613 bytes for 64 pairs), never whole whatever its length.
 *
 * <p>What a caller of the coalescer gets: a {@link Following} or a per-pair {@link Problem} (among them the check
 * service's 504 for a pair it could not answer within its {@code pair-timeout}); or, failing the whole batch, the
 * client's own error (connection refused or closed, pool exhausted, response timeout: answered 503 or 504 by
 * {@link GatewayErrors}), a {@link BatchProblem} for an answer other than 200 (relayed to every caller), or an
 * {@link UnusableAnswer} (503) for a 200 that is not one result per pair or an answer over the bound. None of these
 * whole-batch failures depends on what one caller sent: each pair's ids are checked and its token bounded
 * ({@link FollowTokenGuard}) before it is queued, so the body is always one the check service reads, within its body
 * limit.
 */
final class FollowPairsClient implements Coalescer.Transport<FollowPairsClient.Pair, FollowPairsClient.Answer> {

    /** The check service's batch check path. */
    static final String PATH = InternalApi.PAIRS.template();

    /** The instance that answered, which the check service adds to its answers and the gateway passes on. */
    static final String SERVED_BY = Headers.SERVED_BY;

    /**
     * One follow check: does {@code followerId} follow {@code followeeId}.
     *
     * @param followerId  positive user id
     * @param followeeId  positive user id
     * @param viewerId    who asks, the token's subject (a protected follower's follows are answered only to the
     *                    follower and its followers), positive; 0 for none
     * @param followToken the caller's {@code X-Follow-Token} as sent (read-your-writes), or {@code null}
     * @param exchange    the caller's request, whose id and trace context a batch it leads carries
     */
    record Pair(long followerId, long followeeId, long viewerId, String followToken, ServerWebExchange exchange) {
    }

    /** A pair's answer, and the instance that gave it ({@value #SERVED_BY}, {@code null} when not named). */
    sealed interface Answer permits Following, Problem {
        String servedBy();
    }

    /** {@code {"following":bool}}. */
    record Following(boolean following, String servedBy) implements Answer {
    }

    /**
     * The problem the single check would have answered for this pair.
     *
     * @param status  its HTTP status, 400 to 599
     * @param members the problem document's members as the service wrote them ({@code type}, {@code title},
     *                {@code status}, {@code detail}, …)
     */
    record Problem(int status, Map<String, Object> members, String servedBy) implements Answer {
    }

    /**
     * The batch's answer is one the gateway cannot use: longer than {@link FollowingPairs#answerBytes} of the batch,
     * not JSON, or not one result of the two shapes per pair. Fails the whole batch; every caller in it gets 503
     * ({@link GatewayErrors}), as for a service that failed. Nothing a caller sends can cause it: the check service
     * writes no result over {@link FollowingPairs#MAX_RESULT_BYTES}.
     */
    static class UnusableAnswer extends IllegalStateException {

        UnusableAnswer(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** An answer over the batch's bound, refused before more of it is held. */
    static final class AnswerTooLarge extends UnusableAnswer {

        AnswerTooLarge(String seen, long limit) {
            super("the batch call's answer is too large: " + seen + ", over the " + limit + " bytes its items can"
                    + " take", null);
        }
    }

    /**
     * The whole batch was answered with an error status: each of its callers gets this answer, as a proxied check
     * would have got it.
     */
    static final class BatchProblem extends RuntimeException {

        private final int status;
        private final String contentType;
        private final byte[] body;
        private final String retryAfter;
        private final String servedBy;

        BatchProblem(int status, String contentType, byte[] body, String retryAfter, String servedBy) {
            super("the batch check was answered " + status, null, false, false);
            this.status = status;
            this.contentType = contentType;
            this.body = body;
            this.retryAfter = retryAfter;
            this.servedBy = servedBy;
        }

        int status() {
            return status;
        }

        /** The answer's {@code Content-Type}, or {@code null}. */
        String contentType() {
            return contentType;
        }

        byte[] body() {
            return body;
        }

        /** The answer's {@code Retry-After}, or {@code null}. */
        String retryAfter() {
            return retryAfter;
        }

        /** The answer's {@value FollowPairsClient#SERVED_BY}, or {@code null}. */
        String servedBy() {
            return servedBy;
        }
    }

    private final BatchPost post;

    /**
     * @param client   the gateway's proxying client (its pool, timeouts and keep-alive)
     * @param instance the check instance's base URI, e.g. {@code http://10.0.0.7:8081}
     * @param headers  the headers every call to a service carries
     */
    FollowPairsClient(HttpClient client, URI instance, ServiceHeaders headers) {
        this.post = new BatchPost(client, instance, PATH, headers);
    }

    /** The URI the batches are posted to. */
    String uri() {
        return post.uri();
    }

    @Override
    public Mono<List<Answer>> send(List<Pair> batch) {
        return post.send(batch.get(0).exchange(), encode(batch), FollowingPairs.answerBytes(batch.size()),
                (status, contentType, retryAfter, servedBy, body) ->
                        decode(status, contentType, retryAfter, servedBy, body, batch.size()));
    }

    /**
     * An answer's body, read up to {@code limit} bytes and no further: a declared {@code Content-Length} over it fails
     * before a byte is read, and a body without one fails as soon as the count passes it (the connection is then
     * closed, not drained). Each buffer is copied while it is handed on; Reactor Netty releases it after.
     *
     * @param content       the body's buffers
     * @param declaredBytes its {@code Content-Length}, or a negative number without one
     * @param limit         the most bytes accepted ({@link FollowingPairs#answerBytes} of the batch)
     * @return the body, empty as an empty array; or {@link AnswerTooLarge}
     */
    static Mono<byte[]> read(Flux<ByteBuf> content, long declaredBytes, long limit) {
        if (declaredBytes > limit) {
            return Mono.error(new AnswerTooLarge(declaredBytes + " bytes declared", limit));
        }
        int initial = (int) Math.min(declaredBytes >= 0 ? declaredBytes : 1024, limit);
        return content.collect(() -> new Body(initial, limit), Body::append).map(Body::bytes);
    }

    /** An answer's bytes so far, never more than its limit. Used by one subscriber at a time. */
    private static final class Body {

        private final long limit;
        private byte[] bytes;
        private int size;

        Body(int initial, long limit) {
            this.bytes = new byte[initial];
            this.limit = limit;
        }

        void append(ByteBuf buffer) {
            int n = buffer.readableBytes();
            if (size + (long) n > limit) {
                throw new AnswerTooLarge("at least " + (size + (long) n) + " bytes", limit);
            }
            if (size + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(limit, Math.max(2L * bytes.length, size + n)));
            }
            buffer.getBytes(buffer.readerIndex(), bytes, size, n);
            size += n;
        }

        byte[] bytes() {
            return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
        }
    }

    /**
     * The request body of a batch ({@link FollowingPairs#encodeRequest}).
     *
     * @param batch the pairs, in order
     * @return {@code {"pairs":[{"followerId":…,"followeeId":…[,"viewerId":…][,"followToken":"…"]},…]}} as UTF-8,
     *         each pair's own viewer and token (JSON-escaped) in its own object, none where there is none
     */
    static byte[] encode(List<Pair> batch) {
        int n = batch.size();
        long[] followers = new long[n];
        long[] followees = new long[n];
        long[] viewers = new long[n];
        String[] tokens = new String[n];
        for (int i = 0; i < n; i++) {
            Pair pair = batch.get(i);
            followers[i] = pair.followerId();
            followees[i] = pair.followeeId();
            viewers[i] = pair.viewerId();
            tokens[i] = pair.followToken();
        }
        return FollowingPairs.encodeRequest(new FollowingPairs.Request(followers, followees, viewers, tokens));
    }

    /**
     * A batch's answer.
     *
     * @param status      the answer's HTTP status
     * @param contentType its {@code Content-Type}, or {@code null}
     * @param retryAfter  its {@code Retry-After}, or {@code null}
     * @param servedBy    its {@value #SERVED_BY}, or {@code null}
     * @param body        its body
     * @param pairs       the number of pairs asked
     * @return one answer per pair, in order
     * @throws BatchProblem for a status other than 200
     * @throws UnusableAnswer for a 200 that is not {@code pairs} results of the two shapes
     */
    static List<Answer> decode(int status, String contentType, String retryAfter, String servedBy, byte[] body,
                               int pairs) {
        if (status != 200) {
            throw new BatchProblem(status, contentType, body, retryAfter, servedBy);
        }
        List<FollowingPairs.Result> results;
        try {
            results = FollowingPairs.decodeAnswer(body, pairs);
        } catch (WireFormatException e) {
            throw new UnusableAnswer(e.getMessage(), e);
        }
        Following yes = new Following(true, servedBy);
        Following no = new Following(false, servedBy);
        List<Answer> answers = new ArrayList<>(pairs);
        for (FollowingPairs.Result result : results) {
            answers.add(switch (result) {
                case FollowingPairs.Following following -> following.following() ? yes : no;
                case FollowingPairs.Problem problem -> new Problem(problem.status(), problem.members(), servedBy);
            });
        }
        return answers;
    }
}
