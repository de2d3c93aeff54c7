package dev.socialgraph.check.api;

import dev.socialgraph.web.ProblemJson;
import dev.socialgraph.web.ProblemMapping;
import dev.socialgraph.web.ProblemTypes;
import dev.socialgraph.wire.Endpoint;
import dev.socialgraph.wire.ReadBatch;
import dev.socialgraph.wire.WireFormatException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * {@code POST /internal/v1/reads} {@code {"reads":[{"path":"/internal/v1/users/7/following","query":"limit=20"},…]}}:
 * many GET reads of this service ({@link ReadBatch#SERVED}: following and followers lists, counts, common following,
 * relationship) in one call, for a caller that coalesces concurrent reads bound for this instance (the gateway). 1 to
 * {@code graph.check.read-batch-max} reads.
 *
 * <p>Answers 200 {@code {"results":[…]}}, one result per read, in order: what the read's own GET with that query and
 * those headers would answer now ({@link GraphReadHandlers#read}, the same code), {@code {"status":200,"body":…}} or
 * the problem its GET would carry ({@code {"status":400,"body":{problem}}}), when memory holds the answer; otherwise
 * {@code {"deferred":true}}, and the caller asks that read as its own GET. So the whole batch is answered on the I/O
 * thread that read it, in microseconds: no read waits for another's store, and a hung database or Redis holds no
 * batch. Bad input to the batch itself answers nothing: 400 problem+json naming {@code body}, {@code reads} or the
 * member ({@link ReadBatch#decodeRequest}).
 */
final class ReadBatchHandler {

    private static final Logger log = LoggerFactory.getLogger(ReadBatchHandler.class);

    /** The meter of the reads batches carried, by result: what share memory answered is the batch's hit rate. */
    static final String READS_METER = "graph.check.read-batch.reads";

    private final GraphReadHandlers reads;
    private final int batchMax;
    private final Counter answered;
    private final Counter deferred;
    private final Counter problems;

    /**
     * @param reads        each read, as its own GET answers it
     * @param batchMax     most reads in one request ({@code graph.check.read-batch-max})
     * @param maxBodyBytes the largest request body this service accepts ({@code graph.web.max-request-size})
     * @param meters       where {@value #READS_METER} counts each read by {@code result}: {@code answered} (a 200
     *                     from memory), {@code deferred} (memory did not hold it; its caller asks its own GET),
     *                     {@code problem} (any other status)
     * @throws IllegalArgumentException when {@code batchMax} reads as the gateway may write them
     *                                  ({@link ReadBatch#requestBytes}) may not fit in {@code maxBodyBytes}: start-up
     *                                  stops rather than answer a full batch 413, which fails every caller in it
     */
    ReadBatchHandler(GraphReadHandlers reads, int batchMax, long maxBodyBytes, MeterRegistry meters) {
        long largest = ReadBatch.requestBytes(batchMax);
        if (largest > maxBodyBytes) {
            throw new IllegalArgumentException("graph.check.read-batch-max (" + batchMax + ") reads take up to "
                    + largest + " bytes (" + ReadBatch.MAX_READ_BYTES + " a read), more than "
                    + "graph.web.max-request-size (" + maxBodyBytes + " bytes): lower the one or raise the other");
        }
        this.reads = reads;
        this.batchMax = batchMax;
        this.answered = counter(meters, "answered");
        this.deferred = counter(meters, "deferred");
        this.problems = counter(meters, "problem");
    }

    private static Counter counter(MeterRegistry meters, String result) {
        return Counter.builder(READS_METER).description("reads carried by read batches, by result")
                .tag("result", result).register(meters);
    }

    Mono<ServerResponse> read(ServerRequest request) {
        return request.bodyToMono(JsonNode.class)
                .switchIfEmpty(Mono.error(() -> new WireFormatException("body", "body must be a JSON object "
                        + "{\"reads\": [{\"path\": …, \"query\": …}, …]}")))
                .flatMap(body -> answer(ReadBatch.decodeRequest(body, batchMax)));
    }

    private Mono<ServerResponse> answer(List<ReadBatch.Read> batch) {
        List<Mono<ReadBatch.Result>> results = new ArrayList<>(batch.size());
        for (ReadBatch.Read read : batch) {
            results.add(result(read));
        }
        return Flux.mergeSequential(results).collectList()
                .doOnNext(this::count)
                .flatMap(all -> ServerResponse.ok().contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(ReadBatch.encodeAnswer(all)));
    }

    private void count(List<ReadBatch.Result> results) {
        for (ReadBatch.Result result : results) {
            (result.deferred() ? deferred : result.status() == 200 ? answered : problems).increment();
        }
    }

    /** One read's result from memory, or deferred; never an error. */
    private Mono<ReadBatch.Result> result(ReadBatch.Read read) {
        Endpoint endpoint = ReadBatch.endpoint(read.path()); // decodeRequest let only these through
        ReadRequest request = ReadRequest.of(endpoint, read);
        Mono<?> body;
        try {
            body = reads.read(endpoint, request);
        } catch (RuntimeException e) {
            return Mono.just(problem(e, read.path()));
        }
        return body.map(answer -> ok(answer, request, read.path()))
                .defaultIfEmpty(ReadBatch.DEFERRED_RESULT)
                .onErrorResume(RuntimeException.class, e -> Mono.just(problem(e, read.path())));
    }

    private static ReadBatch.Result ok(Object answer, ReadRequest request, String path) {
        byte[] json = GraphReadHandlers.json(answer, request);
        if (json.length > ReadBatch.MAX_BODY_BYTES) {
            return problem(new IllegalStateException("the answer to " + path + " is " + json.length
                    + " bytes, over " + ReadBatch.MAX_BODY_BYTES), path);
        }
        return new ReadBatch.Result(200, null, json);
    }

    /**
     * The problem the read's own GET would answer for {@code e}: graph-web's mapping of the graph's own exceptions
     * (bad input; a store's failure, should a read from memory ever meet one), else the 500 its exception handler
     * answers for a bug.
     */
    private static ReadBatch.Result problem(RuntimeException e, String path) {
        ResponseEntity<ProblemDetail> mapped = ProblemMapping.of(e);
        return result(mapped != null ? mapped : ProblemMapping.unexpected(e, log), path);
    }

    private static ReadBatch.Result result(ResponseEntity<ProblemDetail> answer, String path) {
        ProblemDetail problem = answer.getBody();
        ProblemTypes.complete(problem, null, path);
        return new ReadBatch.Result(answer.getStatusCode().value(),
                answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER), ProblemJson.of(problem));
    }
}
