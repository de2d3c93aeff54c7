package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

/**
 * A reactive service's error line about a request carries that request's id, as a servlet service's lines do; and
 * nothing of it stays in the thread's logging context afterwards.
 */
class ExchangeLogContextTest {

    private final Logger handlerLog = (Logger) LoggerFactory.getLogger(ProblemWebExceptionHandler.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void listen() {
        lines.start();
        handlerLog.addAppender(lines);
    }

    @AfterEach
    void stopListening() {
        handlerLog.detachAppender(lines);
    }

    @Test
    void anUnexpectedError_isLoggedWithTheRequestId_andTheContextIsClearedAfter() {
        MockServerWebExchange exchange = MockServerWebExchange.from(
                MockServerHttpRequest.get("/internal/v1/users/1/counts").header("X-Request-Id", "req-42"));

        new ProblemWebExceptionHandler().handle(exchange, new IllegalStateException("a bug")).block();

        assertThat(exchange.getResponse().getStatusCode().value()).isEqualTo(500);
        assertThat(lines.list).singleElement().satisfies(line -> {
            assertThat(line.getFormattedMessage()).isEqualTo("Unexpected error");
            assertThat(line.getMDCPropertyMap()).containsEntry("X-Request-Id", "req-42");
        });
        assertThat(MDC.getCopyOfContextMap()).satisfiesAnyOf(m -> assertThat(m).isNull(),
                m -> assertThat(m).doesNotContainKeys("X-Request-Id", "traceId", "spanId"));
    }

    @Test
    void withoutARequestId_nothingIsMadeUp() {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/internal/v1/x"));

        new ProblemWebExceptionHandler().handle(exchange, new IllegalStateException("a bug")).block();

        assertThat(lines.list).singleElement().satisfies(line ->
                assertThat(line.getMDCPropertyMap()).doesNotContainKeys("X-Request-Id", "traceId", "spanId"));
    }
}
