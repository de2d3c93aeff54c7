package dev.socialgraph.gateway;

import dev.socialgraph.wire.Headers;
import java.net.URI;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * One batch call to one check instance, as both coalescers' transports make it ({@link FollowPairsClient},
 * {@link ReadBatchClient}): {@code POST} of a JSON body on the gateway's proxying client ({@link HttpClientTuning}: its
 * bounded pool per instance, connect and response timeouts, keep-alive), with the service credential and the request
 * id and trace context of the batch's first caller ({@link ServiceHeaders#writeBatchHeaders}); the answer read up to
 * a bound ({@link FollowPairsClient#read}) and handed with its status and headers to the transport's decoder.
 */
final class BatchPost {

    /** Turns a batch call's answer into the transport's answers. */
    @FunctionalInterface
    interface Decoder<T> {

        /**
         * @param status      the answer's HTTP status
         * @param contentType its {@code Content-Type}, or {@code null}
         * @param retryAfter  its {@code Retry-After}, or {@code null}
         * @param servedBy    its {@value Headers#SERVED_BY}, or {@code null}
         * @param body        its body, at most the call's bound
         * @return the decoded answer; a runtime exception fails the call
         */
        T decode(int status, String contentType, String retryAfter, String servedBy, byte[] body);
    }

    private final HttpClient client;
    private final String uri;
    private final ServiceHeaders headers;
    /**
     * {@code POST uri} on {@code client}, built on the first call and reused: Reactor Netty's client is immutable,
     * and each of {@code post()} and {@code uri(...)} copies its whole configuration, work every call repeated for
     * the same instance.
     */
    private volatile HttpClient.RequestSender post;

    /**
     * @param client   the gateway's proxying client
     * @param instance the check instance's base URI, e.g. {@code http://10.0.0.7:8081}
     * @param path     the batch endpoint's path
     * @param headers  the headers every call to a service carries
     */
    BatchPost(HttpClient client, URI instance, String path, ServiceHeaders headers) {
        this.client = client;
        this.uri = instance.resolve(path).toString();
        this.headers = headers;
    }

    /** The URI the batches are posted to. */
    String uri() {
        return uri;
    }

    /**
     * One call.
     *
     * @param first   the batch's first caller, whose request id and trace context the call carries
     * @param body    the JSON body
     * @param limit   the most answer bytes read
     * @param decoder what the answer becomes
     * @return the decoded answer, or the client's error (connection refused or closed, pool exhausted, response
     *         timeout), an answer over {@code limit}, or the decoder's
     */
    <T> Mono<T> send(ServerWebExchange first, byte[] body, long limit, Decoder<T> decoder) {
        HttpClient.RequestSender sender = post;
        if (sender == null) {
            post = sender = client.post().uri(uri); // callers racing here build equal senders
        }
        return sender.send((request, outbound) -> {
                    headers.writeBatchHeaders(first, request, (r, name, value) -> r.header(name, value));
                    request.header(HttpHeaders.CONTENT_TYPE, "application/json");
                    request.header(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length));
                    return outbound.sendByteArray(Mono.just(body));
                })
                .response((response, content) -> FollowPairsClient.read(content,
                        response.responseHeaders().getInt(HttpHeaders.CONTENT_LENGTH, -1), limit).map(bytes ->
                        decoder.decode(response.status().code(),
                                response.responseHeaders().get(HttpHeaders.CONTENT_TYPE),
                                response.responseHeaders().get(HttpHeaders.RETRY_AFTER),
                                response.responseHeaders().get(Headers.SERVED_BY), bytes)))
                .next();
    }
}
