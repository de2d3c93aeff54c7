package dev.socialgraph.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver in the test's JVM: the services export to {@code POST /v1/traces} (protobuf,
 * {@code application/x-protobuf}, optionally gzip), and it keeps every span it decoded, with the exporting
 * service's {@code service.name}. Answers 200 with an empty {@link ExportTraceServiceResponse}.
 */
final class OtlpReceiver implements AutoCloseable {

    /**
     * One received span.
     *
     * @param service     the resource's {@code service.name} (the service's {@code spring.application.name})
     * @param name        the span's name
     * @param kind        {@code SERVER}, {@code CLIENT}, {@code PRODUCER}, {@code CONSUMER} or {@code INTERNAL}
     * @param traceId     32 lower-case hex digits
     * @param spanId      16 lower-case hex digits
     * @param parentId    16 lower-case hex digits, empty for a root span
     * @param startNanos  epoch nanoseconds
     * @param endNanos    epoch nanoseconds
     */
    record ReceivedSpan(String service, String name, String kind, String traceId, String spanId, String parentId,
                        long startNanos, long endNanos) {

        /** Duration in milliseconds. */
        double millis() {
            return (endNanos - startNanos) / 1e6;
        }
    }

    private static final HexFormat HEX = HexFormat.of();

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    /** Listens on a free port of 127.0.0.1. */
    static OtlpReceiver start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        OtlpReceiver receiver = new OtlpReceiver(server);
        server.createContext("/v1/traces", receiver::handle);
        server.start();
        return receiver;
    }

    /** The URL to configure as the exporters' endpoint. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
    }

    /** Every span of {@code traceId} received so far. */
    List<ReceivedSpan> trace(String traceId) {
        return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            for (ResourceSpans resource : request.getResourceSpansList()) {
                String service = resource.getResource().getAttributesList().stream()
                        .filter(a -> a.getKey().equals("service.name")).map(KeyValue::getValue)
                        .map(v -> v.getStringValue()).findFirst().orElse("?");
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    for (io.opentelemetry.proto.trace.v1.Span s : scope.getSpansList()) {
                        spans.add(new ReceivedSpan(service, s.getName(), s.getKind().name().replace("SPAN_KIND_", ""),
                                HEX.formatHex(s.getTraceId().toByteArray()), HEX.formatHex(s.getSpanId().toByteArray()),
                                HEX.formatHex(s.getParentSpanId().toByteArray()), s.getStartTimeUnixNano(),
                                s.getEndTimeUnixNano()));
                    }
                }
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
