package dev.socialgraph.gateway;

import dev.socialgraph.gateway.FollowPairsClient.BatchProblem;
import dev.socialgraph.gateway.FollowPairsClient.UnusableAnswer;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.ReadBatch;
import dev.socialgraph.wire.WireFormatException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * The batch read of one check instance, the transport of its read {@link Coalescer}: one call
 * {@code POST {instance}/internal/v1/reads} with body {@code {"reads":[{"path":…,"query":…,"headers":{…}},…]}}
 * ({@link ReadBatch}), answered {@code 200 {"results":[{"status":200,"body":…},…]}}: one result per read in order,
 * what the read's own GET would have answered.
 *
 * <p>Sent as {@link FollowPairsClient} sends the batch check: on the gateway's own Reactor Netty client
 * ({@link HttpClientTuning}: its bounded pool per instance, connect and response timeouts, keep-alive), with the
 * service credential and the request id and trace context of the batch's first read
 * ({@link ServiceHeaders#writeBatchHeaders}); the answer read up to {@link ReadBatch#answerBytes} of the batch.
 *
 * <p>What a caller of the coalescer gets: its read's {@link Answer}; or, failing the whole batch, the client's own
 * error (503 or 504 by {@link GatewayErrors}), a {@link BatchProblem} for an answer other than 200 (relayed to every
 * caller), or an {@link UnusableAnswer} (503) for a 200 that is not one result per read or is over the bound.
 */
final class ReadBatchClient implements Coalescer.Transport<ReadBatchClient.Query, ReadBatchClient.Answer> {

    /** The check service's batch read path. */
    static final String PATH = InternalApi.READS.template();

    /**
     * One read of a batch.
     *
     * @param read     the read: internal path, raw query, headers its endpoint declares
     * @param exchange the caller's request, whose id and trace context a batch it leads carries
     * @param alone    sends the read as its own {@code GET} and writes its answer to the caller, for a batch it would
     *                 be alone in; {@code null}: a read alone goes in a batch of one
     */
    record Query(ReadBatch.Read read, ServerWebExchange exchange, Supplier<Mono<Void>> alone) {
    }

    /**
     * One read's answer.
     *
     * @param result   its status, {@code Retry-After} and JSON body; {@code null} only in {@link #ANSWERED}
     * @param servedBy the instance that answered ({@value Headers#SERVED_BY}), or {@code null}
     */
    record Answer(ReadBatch.Result result, String servedBy) {

        /** The answer of a read sent alone: its own {@code GET} already answered the caller (compare by identity). */
        static final Answer ANSWERED = new Answer(null, null);
    }

    private static final List<Answer> ANSWERED_ALONE = List.of(Answer.ANSWERED);

    private final BatchPost post;

    /**
     * @param client   the gateway's proxying client
     * @param instance the check instance's base URI, e.g. {@code http://10.0.0.7:8081}
     * @param headers  the headers every call to a service carries
     */
    ReadBatchClient(HttpClient client, URI instance, ServiceHeaders headers) {
        this.post = new BatchPost(client, instance, PATH, headers);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A batch of one read that can go {@link Query#alone() alone} is its own {@code GET} instead, answered
     * {@link Answer#ANSWERED}: with no other read to share the call, one hop answers it whether memory or a store holds
     * it, where a batch of one would defer a read memory does not hold to a second call. It still holds the
     * coalescer's slot until answered, so reads that arrive meanwhile wait and go together.
     */
    @Override
    public Mono<List<Answer>> send(List<Query> batch) {
        if (batch.size() == 1 && batch.get(0).alone() != null) {
            return batch.get(0).alone().get().thenReturn(ANSWERED_ALONE);
        }
        List<ReadBatch.Read> reads = new ArrayList<>(batch.size());
        for (Query query : batch) {
            reads.add(query.read());
        }
        return post.send(batch.get(0).exchange(), ReadBatch.encodeRequest(reads), ReadBatch.answerBytes(batch.size()),
                (status, contentType, retryAfter, servedBy, body) ->
                        decode(status, contentType, retryAfter, servedBy, body, batch.size()));
    }

    /**
     * A batch's answer.
     *
     * @param status      the answer's HTTP status
     * @param contentType its {@code Content-Type}, or {@code null}
     * @param retryAfter  its {@code Retry-After}, or {@code null}
     * @param servedBy    its {@value Headers#SERVED_BY}, or {@code null}
     * @param body        its body
     * @param reads       the number of reads asked
     * @return one answer per read, in order
     * @throws BatchProblem for a status other than 200
     * @throws UnusableAnswer for a 200 that is not {@code reads} results
     */
    static List<Answer> decode(int status, String contentType, String retryAfter, String servedBy, byte[] body,
                               int reads) {
        if (status != 200) {
            throw new BatchProblem(status, contentType, body, retryAfter, servedBy);
        }
        List<ReadBatch.Result> results;
        try {
            results = ReadBatch.decodeAnswer(body, reads);
        } catch (WireFormatException e) {
            throw new UnusableAnswer(e.getMessage(), e);
        }
        List<Answer> answers = new ArrayList<>(reads);
        for (ReadBatch.Result result : results) {
            answers.add(new Answer(result, servedBy));
        }
        return answers;
    }
}
