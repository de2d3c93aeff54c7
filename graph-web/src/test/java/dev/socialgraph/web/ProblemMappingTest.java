package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.common.shard.ShardUnavailableException;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.json.JsonMapper;

/** The one decision of what a problem says, as both stacks' adapters receive it. */
class ProblemMappingTest {

    record Range(int first, int last) {
    }

    @Test
    void unreadableBody_aValueOfTheWrongType_namesItsProperty() {
        Throwable wrongType = catchThrowable(() -> JsonMapper.builder().build()
                .readValue("{\"first\":\"x\",\"last\":1}", Range.class));

        ResponseEntity<ProblemDetail> answer = ProblemMapping.unreadableBody(new IllegalStateException("read", wrongType));

        assertThat(answer.getStatusCode().value()).isEqualTo(400);
        assertThat(answer.getBody().getDetail()).isEqualTo("first: has the wrong type");
        assertThat(answer.getBody().getProperties()).containsEntry(ProblemType.PARAMETER, "first");
        assertThat(answer.getBody().getType()).isEqualTo(ProblemType.INVALID_PARAMETER.uri());
    }

    @Test
    void unreadableBody_notJson_namesTheBody() {
        Throwable notJson = catchThrowable(() -> JsonMapper.builder().build().readValue("not json", Range.class));

        ResponseEntity<ProblemDetail> answer = ProblemMapping.unreadableBody(notJson);

        assertThat(answer.getStatusCode().value()).isEqualTo(400);
        assertThat(answer.getBody().getDetail()).isEqualTo("request body is missing or not valid JSON");
        assertThat(answer.getBody().getProperties()).containsEntry(ProblemType.PARAMETER, "body");
    }

    @Test
    void unsupportedMediaType_is415NamingContentType() {
        ResponseEntity<ProblemDetail> answer = ProblemMapping.unsupportedMediaType();

        assertThat(answer.getStatusCode().value()).isEqualTo(415);
        assertThat(answer.getBody().getType()).isEqualTo(ProblemType.UNSUPPORTED_MEDIA_TYPE.uri());
        assertThat(answer.getBody().getProperties()).containsEntry(ProblemType.PARAMETER, "Content-Type");
    }

    @Test
    void unexpected_is500WithoutTheExceptionsMessage() {
        ResponseEntity<ProblemDetail> answer = ProblemMapping.unexpected(new IllegalStateException("secret internals"),
                org.slf4j.LoggerFactory.getLogger(ProblemMappingTest.class));

        assertThat(answer.getStatusCode().value()).isEqualTo(500);
        assertThat(answer.getBody().getTitle()).isEqualTo("Internal error");
        assertThat(answer.getBody().getDetail()).isEqualTo("An unexpected error occurred.").doesNotContain("secret");
    }

    @Test
    void shardUnavailable_is503WithRetryAfter_andItsOwnTitle() {
        ResponseEntity<ProblemDetail> answer = ProblemMapping.of(new ShardUnavailableException("graph_following_0 down", null));

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
        assertThat(answer.getBody().getType()).isEqualTo(ProblemType.SHARD_UNAVAILABLE.uri());
        assertThat(answer.getBody().getTitle()).isEqualTo("Shard unavailable");
        assertThat(answer.getBody().getDetail()).doesNotContain("graph_following_0");
    }

    @Test
    void retryLater_keepsTheProblemsStatusAndAddsRetryAfter() {
        ResponseEntity<ProblemDetail> answer = ProblemMapping.retryLater(
                ProblemMapping.problem(ProblemType.SERVICE_UNAVAILABLE, "database unavailable", null));

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo(ProblemMapping.RETRY_AFTER_SECONDS);
        assertThat(answer.getBody().getTitle()).isEqualTo("Service Unavailable");
    }

    @Test
    void problem_withATitle_takesTheTypesStatusAndTheGivenTitle() {
        ProblemDetail problem = ProblemMapping.problem(ProblemType.LIMIT_REACHED, "Following limit reached",
                "user 7 follows 10000 users", "followerId");

        assertThat(problem.getStatus()).isEqualTo(409);
        assertThat(problem.getType()).isEqualTo(URI.create("https://socialgraph.dev/problems/limit-reached"));
        assertThat(problem.getTitle()).isEqualTo("Following limit reached");
        assertThat(problem.getProperties()).containsEntry(ProblemType.PARAMETER, "followerId");
    }
}
