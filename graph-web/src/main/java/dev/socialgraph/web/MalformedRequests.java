package dev.socialgraph.web;

import dev.socialgraph.common.problem.ProblemType;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpStatusClass;
import java.net.URI;
import java.net.URISyntaxException;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.http.MediaType;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Gives a problem+json body to every 4xx a Reactor Netty server (the gateway, a reactive service) would otherwise
 * send empty, whichever layer below the application refused the request:
 * <ul>
 *   <li>Netty's HTTP decoder, through Reactor Netty, which answers with an empty response and closes the
 *       connection: a request line over 4096 bytes (414, e.g. an id of thousands of digits), headers over 8192
 *       bytes (431), a request line or header it cannot parse, a broken chunked body (400);</li>
 *   <li>Spring's HTTP adapter, which answers an empty 400 for a request target that is not a valid URI (bad
 *       percent-encoding such as {@code %zz}) before any filter runs.</li>
 * </ul>
 * A Netty handler right after the HTTP codec sees each such response on its way out (an empty
 * {@link FullHttpResponse} with a 4xx status and no {@code Content-Type}) and fills in the body
 * ({@link ProblemJson}), naming the part of the request at fault from the decoder's failure. Everything the
 * application answers already has a body and passes untouched, as do all other responses. Registered as a bean by
 * {@link ReactiveServiceGuardAutoConfiguration} and by the gateway.
 */
public final class MalformedRequests implements NettyServerCustomizer {

    /** Name of the handler in each connection's pipeline. */
    static final String HANDLER = "graph.problemBodies";

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remoteAddress) -> {
            ChannelPipeline pipeline = channel.pipeline();
            if (pipeline.get(NettyPipeline.HttpCodec) != null) { // HTTP/1.1, the only protocol served
                pipeline.addAfter(NettyPipeline.HttpCodec, HANDLER, new ProblemBodies());
            }
        });
    }

    /** One per connection: remembers how the latest request was decoded, and fills in empty 4xx answers. */
    static final class ProblemBodies extends ChannelDuplexHandler {

        private Throwable decoderFailure;
        private String uri;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                decoderFailure = null;
                uri = request.uri();
            }
            if (msg instanceof DecoderResultProvider provider) {
                DecoderResult result = provider.decoderResult();
                if (result.isFailure()) {
                    decoderFailure = result.cause().getCause() != null ? result.cause().getCause() : result.cause();
                }
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof FullHttpResponse response && response.status().codeClass() == HttpStatusClass.CLIENT_ERROR
                    && !response.content().isReadable() && !response.headers().contains(HttpHeaderNames.CONTENT_TYPE)) {
                byte[] body = problem(response.status().code(), response.status().reasonPhrase());
                FullHttpResponse filled = response.replace(Unpooled.wrappedBuffer(body));
                response.release();
                filled.headers().set(HttpHeaderNames.CONTENT_TYPE, MediaType.APPLICATION_PROBLEM_JSON_VALUE)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
                ctx.write(filled, promise);
                return;
            }
            ctx.write(msg, promise);
        }

        /** The problem document for a refusal with {@code status}, from what is known of the request. */
        private byte[] problem(int status, String title) {
            Throwable failure = decoderFailure;
            String path = failure == null ? pathOf(uri) : null; // a failed decode leaves a placeholder request
            String detail;
            String parameter;
            if (status == 414) {
                detail = "the request line (method, target, version) is too long";
                parameter = "uri";
            } else if (status == 431) {
                detail = "the request headers are too large";
                parameter = "headers";
            } else if (failure != null) {
                detail = "the request could not be parsed";
                parameter = "request";
            } else if (path != null && !isUri(uri)) {
                detail = "the request target is not a valid URI (bad percent-encoding or a character that must be encoded)";
                parameter = "path";
            } else {
                detail = "the request was refused before it could be processed";
                parameter = "request";
            }
            if (failure != null && failure.getMessage() != null) {
                detail = detail + ": " + failure.getMessage();
            }
            // A 400 here is a request that could not be parsed; 414 and 431 have types of their own.
            ProblemType type = status == 400 ? ProblemType.MALFORMED_REQUEST : ProblemType.forStatus(status);
            return ProblemJson.of(type, detail, path, parameter);
        }

        private static String pathOf(String uri) {
            if (uri == null) {
                return null;
            }
            int query = uri.indexOf('?');
            return query < 0 ? uri : uri.substring(0, query);
        }

        private static boolean isUri(String uri) {
            try {
                new URI(uri);
                return true;
            } catch (URISyntaxException e) {
                return false;
            }
        }
    }
}
