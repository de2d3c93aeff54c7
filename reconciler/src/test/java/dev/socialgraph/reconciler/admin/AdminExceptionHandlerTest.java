package dev.socialgraph.reconciler.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

class AdminExceptionHandlerTest {

    @Test
    void database_is503WithRetryAfter_withoutTheDatabasesMessage() {
        ResponseEntity<ProblemDetail> answer = new AdminExceptionHandler()
                .database(new SQLException("connection to graph_follower_0 refused"));

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
        assertThat(answer.getBody().getTitle()).isEqualTo("Service Unavailable");
        assertThat(answer.getBody().getDetail()).isEqualTo("reconciler database unavailable");
        assertThat(answer.getBody().getProperties()).isNull();
    }
}
