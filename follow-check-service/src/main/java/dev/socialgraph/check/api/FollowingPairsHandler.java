package dev.socialgraph.check.api;

import dev.socialgraph.common.api.ApiPaths;
import dev.socialgraph.common.api.FollowingPairs;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.web.BadParameterException;
import dev.socialgraph.web.ProblemJson;
import dev.socialgraph.web.ProblemMapping;
import dev.socialgraph.web.ProblemTypes;
import dev.socialgraph.web.UserIdJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /internal/v1/following/pairs}
 * {@code {"pairs":[{"followerId":1,"followeeId":2},{"followerId":3,"followeeId":4,"followToken":"…"}]}}: the single
 * follow check of each pair, for a caller that coalesces concurrent single checks of many followers into one call
 * (the gateway). 1 to {@code graph.check.batch-max} pairs; ids as the batch check takes them (JSON numbers or
 * decimal strings); {@code followToken}, optional ({@code null} is the same as absent), is the value the pair's
 * single check would carry as {@code X-Follow-Token}.
 *
 * <p>Answers 200 {@code {"results":[…]}}, one result per pair, in order: {@code {"following":true|false}}, what
 * {@code GET /internal/v1/users/{followerId}/following/{followeeId}} with that token would answer now (every
 * visibility rule of {@link GraphReads}), or, where that check would fail with a 5xx, the problem document its
 * answer would carry ({@code type}, {@code title}, {@code status}, {@code detail}, {@code instance} naming that
 * single check's path): 503 {@code shard-unavailable} while the follower's database is down, 503
 * {@code service-unavailable} when no blocking thread is free. The other pairs are answered all the same. Bad input
 * answers nothing: 400 problem+json naming {@code body}, {@code pairs}, or the member ({@code pairs[3]},
 * {@code pairs[3].followerId}, {@code pairs[3].followeeId}, {@code pairs[3].followToken}).
 *
 * <p><b>Threads.</b> Every pair is first asked of memory ({@link GraphReads#isFollowingInProcess}) on the I/O thread
 * that read the request, the common case and a few µs per pair; each pair memory cannot answer is a task of its own
 * on the blocking scheduler, as its single check would be. One task for all of them would make each wait for the
 * ones before it: a database that is down costs every pair routed there the pool's connection timeout.
 */
final class FollowingPairsHandler {

    private static final Logger log = LoggerFactory.getLogger(FollowingPairsHandler.class);

    /** The body member holding the pairs, and the name of every error about it. */
    static final String PAIRS = FollowingPairs.PAIRS;
    private static final String BODY_SHAPE =
            "body must be a JSON object {\"pairs\": [{\"followerId\": …, \"followeeId\": …}, …]}";
    private static final byte[] OPEN = "{\"results\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "]}".getBytes(StandardCharsets.US_ASCII);
    /** The single check's two bodies, which are also the two answers a pair can have. */
    private static final byte[] FOLLOWING = GraphReadHandlers.FOLLOWING;
    private static final byte[] NOT_FOLLOWING = GraphReadHandlers.NOT_FOLLOWING;

    private final GraphReads reads;
    private final int batchMax;
    private final Scheduler blockingReads;

    /**
     * @param reads         the single check's decision
     * @param batchMax      most pairs in one request ({@code graph.check.batch-max})
     * @param maxBodyBytes  the largest request body this service accepts ({@code graph.web.max-request-size})
     * @param blockingReads where the pairs that may wait for Redis or a shard are answered
     * @throws IllegalArgumentException when {@code batchMax} pairs as the gateway writes them
     *                                  ({@link FollowingPairs#requestBytes}) may not fit in {@code maxBodyBytes}:
     *                                  start-up stops rather than answer a full batch 413, which fails every caller
     *                                  in it
     */
    FollowingPairsHandler(GraphReads reads, int batchMax, long maxBodyBytes, Scheduler blockingReads) {
        long largest = FollowingPairs.requestBytes(batchMax);
        if (largest > maxBodyBytes) {
            throw new IllegalArgumentException("graph.check.batch-max (" + batchMax + ") pairs take up to " + largest
                    + " bytes (" + FollowingPairs.MAX_PAIR_BYTES + " a pair), more than graph.web.max-request-size ("
                    + maxBodyBytes + " bytes): lower the one or raise the other");
        }
        this.reads = reads;
        this.batchMax = batchMax;
        this.blockingReads = blockingReads;
    }

    /** The pairs of one request, aligned; {@code followTokens[i]} is {@code null} where the pair carried none. */
    record Pairs(long[] followerIds, long[] followeeIds, String[] followTokens) {
    }

    Mono<ServerResponse> check(ServerRequest request) {
        if (request.uri().getRawQuery() != null) {
            // No id in this answer, as in the single check's: only refuse bad values.
            UserIdJson.asStrings(request.queryParams().getFirst(UserIdJson.PARAMETER));
        }
        return request.bodyToMono(JsonNode.class)
                .switchIfEmpty(Mono.error(() -> new BadParameterException("body", BODY_SHAPE)))
                .flatMap(body -> answer(parse(body)));
    }

    private Mono<ServerResponse> answer(Pairs pairs) {
        int n = pairs.followerIds().length;
        byte[][] results = new byte[n][];
        List<Mono<Void>> rest = null;
        for (int i = 0; i < n; i++) {
            long follower = pairs.followerIds()[i];
            long followee = pairs.followeeIds()[i];
            String token = pairs.followTokens()[i];
            int known = reads.isFollowingInProcess(follower, followee, token);
            if (GraphReads.isAnswer(known)) {
                results[i] = known == GraphReads.FOLLOWING ? FOLLOWING : NOT_FOLLOWING;
            } else {
                if (rest == null) {
                    rest = new ArrayList<>();
                }
                rest.add(answerBlocking(results, i, follower, followee, token, known));
            }
        }
        if (rest == null) {
            return ok(encode(results));
        }
        // Each task writes its own slot; Mono.when completes after every task did, so encode sees every write.
        return Mono.when(rest).then(Mono.fromSupplier(() -> encode(results))).flatMap(FollowingPairsHandler::ok);
    }

    /** Fills {@code results[i]} on the blocking scheduler, or with the overload problem when it takes no task. */
    private Mono<Void> answerBlocking(byte[][] results, int i, long follower, long followee, String token,
                                      int known) {
        return Mono.<Void>fromRunnable(() -> results[i] = result(follower, followee, token, known))
                .subscribeOn(blockingReads)
                .onErrorResume(RejectedExecutionException.class, e -> {
                    results[i] = overloaded(follower, followee);
                    return Mono.empty();
                });
    }

    private byte[] result(long follower, long followee, String token, int known) {
        try {
            return reads.isFollowing(follower, followee, token, known) ? FOLLOWING : NOT_FOLLOWING;
        } catch (RuntimeException e) {
            return problem(e, follower, followee);
        }
    }

    /**
     * The problem document the pair's single check would carry for {@code e}: graph-web's mapping of the graph's
     * own exceptions ({@link ProblemMapping}), else the 500 its exception handler answers for a bug.
     */
    private static byte[] problem(RuntimeException e, long follower, long followee) {
        ResponseEntity<ProblemDetail> mapped = ProblemMapping.of(e);
        return document((mapped != null ? mapped : ProblemMapping.unexpected(e, log)).getBody(), follower, followee);
    }

    /** The single check's answer when the blocking scheduler's queue is full, as graph-web's handler writes it. */
    private static byte[] overloaded(long follower, long followee) {
        return document(ProblemMapping.overloaded().getBody(), follower, followee);
    }

    /**
     * A pair's problem document, completed as the single check's would be. Never longer than
     * {@link FollowingPairs#MAX_RESULT_BYTES}, the bound the gateway reads an answer by: a longer one (none of the
     * graph's own problems is, they are about 250 bytes) is a bug, logged, and the pair gets the bug's 500 instead.
     */
    private static byte[] document(ProblemDetail problem, long follower, long followee) {
        String path = ApiPaths.USERS + "/" + follower + "/following/" + followee;
        ProblemTypes.complete(problem, null, path);
        byte[] document = ProblemJson.of(problem);
        if (document.length <= FollowingPairs.MAX_RESULT_BYTES) {
            return document;
        }
        ProblemDetail bug = ProblemMapping.unexpected(new IllegalStateException("the problem of pair " + follower
                + " -> " + followee + " is " + document.length + " bytes, over " + FollowingPairs.MAX_RESULT_BYTES
                + ": " + problem.getType()), log).getBody();
        ProblemTypes.complete(bug, null, path);
        return ProblemJson.of(bug);
    }

    /** {@code {"results":[r0,r1,…]}}, each result already encoded. */
    private static byte[] encode(byte[][] results) {
        int size = OPEN.length + CLOSE.length + results.length - 1;
        for (byte[] result : results) {
            size += result.length;
        }
        byte[] out = new byte[size];
        System.arraycopy(OPEN, 0, out, 0, OPEN.length);
        int at = OPEN.length;
        for (int i = 0; i < results.length; i++) {
            if (i > 0) {
                out[at++] = ',';
            }
            System.arraycopy(results[i], 0, out, at, results[i].length);
            at += results[i].length;
        }
        System.arraycopy(CLOSE, 0, out, at, CLOSE.length);
        return out;
    }

    private static Mono<ServerResponse> ok(byte[] body) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }

    /**
     * The pairs of a body.
     *
     * @throws BadParameterException naming {@code body}, {@code pairs} or the bad member
     * @throws dev.socialgraph.common.id.InvalidUserIdException naming the member of an id that is not a positive
     *                                                         64-bit id
     */
    Pairs parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new BadParameterException("body", BODY_SHAPE);
        }
        JsonNode pairs = body.get(PAIRS);
        if (pairs == null || !pairs.isArray() || pairs.isEmpty()) {
            throw new BadParameterException(PAIRS, "pairs must be an array of 1 to " + batchMax
                    + " pairs {\"followerId\": …, \"followeeId\": …}");
        }
        if (pairs.size() > batchMax) {
            throw new BadParameterException(PAIRS,
                    "pairs holds " + pairs.size() + " pairs; at most " + batchMax + " are allowed");
        }
        int n = pairs.size();
        long[] followers = new long[n];
        long[] followees = new long[n];
        String[] tokens = new String[n];
        for (int i = 0; i < n; i++) {
            JsonNode pair = pairs.get(i);
            String field = PAIRS + "[" + i + "]";
            if (!pair.isObject()) {
                throw new BadParameterException(field,
                        field + " must be an object {\"followerId\": …, \"followeeId\": …}");
            }
            followers[i] = Params.userId(pair.get("followerId"), field + ".followerId");
            followees[i] = Params.userId(pair.get("followeeId"), field + ".followeeId");
            JsonNode token = pair.get("followToken");
            if (token != null && !token.isNull()) {
                if (!token.isString()) {
                    throw new BadParameterException(field + ".followToken",
                            field + ".followToken must be a string, the X-Follow-Token of a write");
                }
                tokens[i] = Params.followToken(token.stringValue(), field + ".followToken");
            }
        }
        return new Pairs(followers, followees, tokens);
    }
}
