package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.propagation.Propagator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

/** The headers of a proxied request, and of a batch call as far as its first caller's headers reach into them. */
class ServiceHeadersTest {

    private static final String SERVICE_TOKEN = "service-headers-test-token-0123456789";

    /** The W3C fields, as Micrometer's propagator names them; nothing else of it is used without a server span. */
    private static final Propagator W3C = new Propagator() {
        @Override
        public List<String> fields() {
            return List.of("traceparent", "tracestate", "baggage");
        }

        @Override
        public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
            throw new AssertionError("no server span: nothing to inject");
        }

        @Override
        public <C> io.micrometer.tracing.Span.Builder extract(C carrier, Getter<C> getter) {
            throw new AssertionError("not used");
        }
    };

    private final ServiceHeaders headers;

    ServiceHeadersTest() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("propagator", W3C);
        headers = new ServiceHeaders(new ServiceCredential(SERVICE_TOKEN), beans.getBeanProvider(Propagator.class));
    }

    /** A caller's trace headers ride on the batch's call only as long as no caller can use them to fail the call. */
    @Test
    void aBatchCall_carriesTheFirstCallersTraceHeaders_upToTheirBound() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        MockServerWebExchange first = MockServerWebExchange.from(MockServerHttpRequest.get("/v1/users/1/following/2")
                .header("traceparent", traceparent)
                .header("tracestate", "v=" + "x".repeat(ServiceHeaders.MAX_COPIED_TRACE_FIELD - 2))
                .header("baggage", "k=" + "x".repeat(ServiceHeaders.MAX_COPIED_TRACE_FIELD - 1)));
        first.getAttributes().put(RequestIds.ATTRIBUTE, "id-1");
        Map<String, String> call = new HashMap<>();

        headers.writeBatchHeaders(first, call, Map::put);

        assertThat(call).containsEntry("traceparent", traceparent)
                .containsEntry("tracestate", "v=" + "x".repeat(ServiceHeaders.MAX_COPIED_TRACE_FIELD - 2))
                .doesNotContainKey("baggage")
                .containsEntry(ServiceHeaders.HEADER, SERVICE_TOKEN)
                .containsEntry(RequestIds.HEADER, "id-1");
    }

    /** The viewer a service sees is the one the read's filter set from the token, or none: never the client's. */
    @Test
    void aProxiedRequest_carriesTheViewerItsFilterSet_andNeverTheClients() {
        MockServerWebExchange read = MockServerWebExchange.from(MockServerHttpRequest.get("/v1/users/1/followers")
                .header("X-Viewer-Id", "999"));
        HttpHeaders incoming = read.getRequest().getHeaders();

        assertThat(headers.filter(incoming, read).get("X-Viewer-Id")).as("no viewer set").isNull();

        read.getAttributes().put(ServiceHeaders.VIEWER_ATTRIBUTE, "42");
        HttpHeaders out = headers.filter(incoming, read);

        assertThat(out.get("X-Viewer-Id")).containsExactly("42");
        assertThat(out.getFirst(ServiceHeaders.HEADER)).isEqualTo(SERVICE_TOKEN);
        assertThat(incoming.getFirst("X-Viewer-Id")).as("the incoming request unchanged").isEqualTo("999");
    }
}
