package dev.socialgraph.check.api;

import dev.socialgraph.check.follow.Answer;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.web.ProblemJson;
import dev.socialgraph.web.ProblemMapping;
import dev.socialgraph.web.ProblemTypes;
import dev.socialgraph.web.ProtectedAccountException;
import dev.socialgraph.web.UserIdJson;
import dev.socialgraph.wire.FollowingAnswer;
import dev.socialgraph.wire.FollowingPairs;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.WireFormatException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /internal/v1/following/pairs}
 * {@code {"pairs":[{"followerId":1,"followeeId":2},{"followerId":3,"followeeId":4,"followToken":"…"}]}}: the single
 * follow check of each pair, for a caller that coalesces concurrent single checks of many followers into one call
 * (the gateway). 1 to {@code graph.check.batch-max} pairs; ids as the batch check takes them (JSON numbers or
 * decimal strings); {@code viewerId}, optional, is the value the pair's single check would carry as
 * {@code X-Viewer-Id} (a protected follower's follows are answered only to the follower and its followers, else the
 * pair's result is the 403 {@code protected-account} problem); {@code followToken}, optional ({@code null} is the same
 * as absent), is the value the pair's single check would carry as {@code X-Follow-Token}.
 *
 * <p>Answers 200 {@code {"results":[…]}}, one result per pair, in order: {@code {"following":true|false}}, what
 * {@code GET /internal/v1/users/{followerId}/following/{followeeId}} with that token would answer now (every
 * visibility rule of {@link GraphReads}), or, where that check would fail with a 5xx, the problem document its
 * answer would carry ({@code type}, {@code title}, {@code status}, {@code detail}, {@code instance} naming that
 * single check's path): 503 {@code shard-unavailable} while the follower's database is down, 503
 * {@code service-unavailable} when no blocking thread is free (in time), and 503 {@code shard-unavailable} for a pair whose read
 * did not end within {@code graph.check.pair-timeout} (3 s). The other pairs are answered all the same: what one pair costs or how it
 * fails is that pair's answer alone. Each result is at most {@link FollowingPairs#MAX_RESULT_BYTES}. Bad input
 * answers nothing: 400 problem+json naming {@code body}, {@code pairs}, or the member ({@code pairs[3]},
 * {@code pairs[3].followerId}, {@code pairs[3].followeeId}, {@code pairs[3].followToken}, which is at most
 * {@value dev.socialgraph.common.token.FollowTokens#MAX_LENGTH} characters).
 *
 * <p><b>Threads.</b> Every pair is first asked of memory ({@link GraphReads#isFollowing} with {@code mayBlock} false)
 * on the I/O thread that read the request, the common case and a few µs per pair; each pair memory cannot answer is a
 * task of its own on the blocking scheduler, the same read asked where blocking is allowed, as its single check would
 * be. One task for all of them would make each wait for the ones before it: a database that is down costs every pair
 * routed there the pool's connection timeout. Those tasks share one deadline, {@code pair-timeout} after they are
 * handed over; a pair past it gets a problem of its own (503 shard-unavailable while its read is under way, a hung database; the overload
 * 503 while it still waits for a thread) and the answer goes out without it ({@link Blocking}).
 */
final class FollowingPairsHandler {

    private static final Logger log = LoggerFactory.getLogger(FollowingPairsHandler.class);

    /** The body member holding the pairs, and the name of every error about it. */
    static final String PAIRS = FollowingPairs.PAIRS;
    /** The single check's two bodies, which are also the two answers a pair can have. */
    private static final byte[] FOLLOWING = FollowingAnswer.bytes(true);
    private static final byte[] NOT_FOLLOWING = FollowingAnswer.bytes(false);

    /** What a slot holds once the caller went away: no answer is encoded. */
    private static final byte[] GONE = new byte[0];

    private final GraphReads reads;
    private final int batchMax;
    private final long pairTimeoutNanos;
    private final String timeoutDetail;
    private final Scheduler blockingReads;

    /**
     * @param reads         the single check's decision
     * @param batchMax      most pairs in one request ({@code graph.check.batch-max})
     * @param maxBodyBytes  the largest request body this service accepts ({@code graph.web.max-request-size})
     * @param pairTimeout   the deadline of the pairs memory cannot answer ({@code graph.check.pair-timeout}),
     *                      positive
     * @param blockingReads where the pairs that may wait for Redis or a shard are answered
     * @throws IllegalArgumentException when {@code batchMax} pairs as the gateway writes them
     *                                  ({@link FollowingPairs#requestBytes}) may not fit in {@code maxBodyBytes}:
     *                                  start-up stops rather than answer a full batch 413, which fails every caller
     *                                  in it
     */
    FollowingPairsHandler(GraphReads reads, int batchMax, long maxBodyBytes, Duration pairTimeout,
                          Scheduler blockingReads) {
        if (pairTimeout.isNegative() || pairTimeout.isZero()) {
            throw new IllegalArgumentException("graph.check.pair-timeout must be positive, was " + pairTimeout);
        }
        long largest = FollowingPairs.requestBytes(batchMax);
        if (largest > maxBodyBytes) {
            throw new IllegalArgumentException("graph.check.batch-max (" + batchMax + ") pairs take up to " + largest
                    + " bytes (" + FollowingPairs.MAX_PAIR_BYTES + " a pair), more than graph.web.max-request-size ("
                    + maxBodyBytes + " bytes): lower the one or raise the other");
        }
        this.reads = reads;
        this.batchMax = batchMax;
        this.pairTimeoutNanos = pairTimeout.toNanos();
        this.timeoutDetail = "the check of this pair did not finish within " + pairTimeout.toMillis()
                + " ms; retry later";
        this.blockingReads = blockingReads;
    }


    Mono<ServerResponse> check(ServerRequest request) {
        if (request.uri().getRawQuery() != null) {
            // No id in this answer, as in the single check's: only refuse bad values.
            UserIdJson.asStrings(request.queryParams().getFirst(UserIdJson.PARAMETER));
        }
        return request.bodyToMono(JsonNode.class)
                .switchIfEmpty(Mono.error(() -> new WireFormatException("body", "body must be a JSON object "
                        + "{\"pairs\": [{\"followerId\": …, \"followeeId\": …}, …]}")))
                .flatMap(body -> answer(parse(body)));
    }

    private Mono<ServerResponse> answer(FollowingPairs.Request pairs) {
        int n = pairs.followerIds().length;
        byte[][] results = new byte[n][];
        int waiting = 0;
        long[] writers = null; // each pair's follow token, verified once, where memory could not answer
        for (int i = 0; i < n; i++) {
            long writer = reads.writer(pairs.followTokens()[i]);
            long follower = pairs.followerIds()[i];
            int may = reads.maySeeFollows(pairs.viewerIds()[i], follower, writer, false);
            if (may == Answer.NO) {
                results[i] = hidden(follower, pairs.followeeIds()[i]);
                continue;
            }
            int answer = may == Answer.YES ? reads.isFollowing(follower, pairs.followeeIds()[i], writer, false)
                    : Answer.NEXT;
            if (Answer.isAnswer(answer)) {
                results[i] = answer == Answer.YES ? FOLLOWING : NOT_FOLLOWING;
            } else {
                if (writers == null) {
                    writers = new long[n];
                }
                writers[i] = writer;
                waiting++;
            }
        }
        if (waiting == 0) {
            return ok(FollowingPairs.encodeAnswer(results));
        }
        Blocking blocking = new Blocking(pairs, results, writers, waiting);
        return Mono.create(blocking::start).flatMap(FollowingPairsHandler::ok);
    }

    /**
     * The pairs of one request that memory could not answer, each a task of its own on the blocking scheduler, under
     * one deadline ({@code graph.check.pair-timeout} from when they are handed over).
     *
     * <p><b>What the deadline answers.</b> A pair whose read is under way gets the 503 {@code shard-unavailable} problem: after
     * a second inside a read the pair waits on a store (Redis's commands time out in 100 ms, so a database: a hung
     * one, or one refusing connections whose pool waits {@code graph.shards.connection-timeout}, 2 s, before the 503
     * {@code shard-unavailable} a store failure earlier than the deadline gets). A pair whose task has not started
     * yet waited for a blocking thread all that time, and gets the overload problem (503 {@code service-unavailable}),
     * as when the queue takes no task.
     *
     * <p><b>One writer per slot.</b> Each pair's slot of {@code results} is set once, by compare-and-set from
     * {@code null}: by its task's answer (or the overload problem when the scheduler takes no task), or, when the
     * deadline comes first, by the deadline's problem; whichever comes second is dropped. The one that sets
     * the last slot encodes the answer, after every slot is set and with no later write possible: a late task's answer
     * can neither change an encoded slot nor race with the encoding. A task that starts after its slot was set (past
     * the deadline, or after the caller went away) reads nothing. One already reading is not interrupted: an interrupt
     * inside a JDBC or Lettuce call can close a pooled connection, and the store's own timeouts end the read
     * ({@code graph.shards.connection-timeout}, {@code statement-timeout}, {@code graph.check.redis-timeout}); its
     * answer is then dropped.
     */
    private final class Blocking {

        private final FollowingPairs.Request pairs;
        private final AtomicReferenceArray<byte[]> results;
        /** Each waiting pair's follow token, as {@link GraphReads#writer} verified it. */
        private final long[] writers;
        /** 1 where the pair's task has begun its read. */
        private final AtomicIntegerArray reading;
        private final AtomicInteger unanswered;
        /** Set by {@link #start} before any task or the deadline can run, so read without a lock. */
        private MonoSink<byte[]> sink;
        private volatile Disposable deadline;

        Blocking(FollowingPairs.Request pairs, byte[][] results, long[] writers, int waiting) {
            this.pairs = pairs;
            this.results = new AtomicReferenceArray<>(results);
            this.writers = writers;
            this.reading = new AtomicIntegerArray(results.length);
            this.unanswered = new AtomicInteger(waiting);
        }

        void start(MonoSink<byte[]> sink) {
            this.sink = sink;
            sink.onCancel(this::cancel);
            deadline = Schedulers.parallel().schedule(this::expire, pairTimeoutNanos, TimeUnit.NANOSECONDS);
            for (int i = 0; i < results.length(); i++) {
                if (results.get(i) == null) {
                    int pair = i;
                    try {
                        blockingReads.schedule(() -> read(pair));
                    } catch (RejectedExecutionException e) {
                        answer(pair, overloaded(pairs.followerIds()[pair], pairs.followeeIds()[pair]));
                    }
                }
            }
        }

        /** The pair's task, on a blocking thread. */
        private void read(int i) {
            if (results.get(i) == null) { // else answered already: past the deadline, or the caller went away
                reading.set(i, 1);
                answer(i, result(pairs.followerIds()[i], pairs.followeeIds()[i], pairs.viewerIds()[i], writers[i]));
            }
        }

        /**
         * The deadline, on a timer thread: every pair not answered yet gets its own problem, 503 shard-unavailable while reading, the
         * overload 503 while still waiting for a thread.
         */
        private void expire() {
            for (int i = 0; i < results.length(); i++) {
                if (results.get(i) == null) {
                    long follower = pairs.followerIds()[i];
                    long followee = pairs.followeeIds()[i];
                    answer(i, reading.get(i) == 1 ? timedOut(follower, followee) : overloaded(follower, followee));
                }
            }
        }

        /** The caller went away: no answer is encoded, and tasks not started yet read nothing. */
        private void cancel() {
            Disposable timer = deadline;
            if (timer != null) {
                timer.dispose();
            }
            for (int i = 0; i < results.length(); i++) {
                results.compareAndSet(i, null, GONE);
            }
        }

        /** Sets slot {@code i} unless it is set; the last slot set encodes the answer. */
        private void answer(int i, byte[] result) {
            if (results.compareAndSet(i, null, result) && unanswered.decrementAndGet() == 0) {
                Disposable timer = deadline;
                if (timer != null) {
                    timer.dispose(); // null only when the deadline fired before start() stored it
                }
                byte[][] all = new byte[results.length()][];
                for (int j = 0; j < all.length; j++) {
                    all[j] = results.get(j);
                }
                sink.success(FollowingPairs.encodeAnswer(all));
            }
        }
    }

    private byte[] result(long follower, long followee, long viewer, long writer) {
        try {
            if (reads.maySeeFollows(viewer, follower, writer, true) == Answer.NO) {
                return hidden(follower, followee);
            }
            return reads.isFollowing(follower, followee, writer, true) == Answer.YES ? FOLLOWING : NOT_FOLLOWING;
        } catch (RuntimeException e) {
            return problem(e, follower, followee);
        }
    }

    /**
     * The single check's answer to a viewer who may not see a protected follower's follows: 403
     * {@code protected-account} naming {@code id}.
     */
    private static byte[] hidden(long follower, long followee) {
        return problem(new ProtectedAccountException(follower, "id"), follower, followee);
    }

    /**
     * The problem document the pair's single check would carry for {@code e}: graph-web's mapping of the graph's
     * own exceptions ({@link ProblemMapping}), else the 500 its exception handler answers for a bug.
     */
    private static byte[] problem(RuntimeException e, long follower, long followee) {
        ResponseEntity<ProblemDetail> mapped = ProblemMapping.of(e);
        return document((mapped != null ? mapped : ProblemMapping.unexpected(e, log)).getBody(), follower, followee);
    }

    /**
     * A pair not answered within {@code graph.check.pair-timeout}: 503 {@code shard-unavailable}, what its single
     * check answers while the follower's database is down, for this pair alone (the gateway adds {@code Retry-After}).
     * Not 504: the caller is to retry later, as for any store outage, and a client tells an outage by 503.
     */
    private byte[] timedOut(long follower, long followee) {
        return document(ProblemMapping.problem(ProblemType.SHARD_UNAVAILABLE, timeoutDetail, null), follower, followee);
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
        String path = InternalApi.CHECK.path(follower, followee);
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

    private static Mono<ServerResponse> ok(byte[] body) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }

    /**
     * The pairs of a body ({@link FollowingPairs#decodeRequest}).
     *
     * @throws WireFormatException naming {@code body}, {@code pairs} or the bad member
     * @throws dev.socialgraph.common.id.InvalidUserIdException naming the member of an id that is not a positive
     *                                                         64-bit id
     */
    FollowingPairs.Request parse(JsonNode body) {
        return FollowingPairs.decodeRequest(body, batchMax);
    }
}
