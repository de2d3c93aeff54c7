package dev.socialgraph.reconciler.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.problem.ProblemType;
import dev.socialgraph.reconciler.bloom.SnapshotBuilder;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

class AdminExceptionHandlerTest {

    @Test
    void database_is503WithRetryAfter_withoutTheDatabasesMessage() {
        // 08001: the SQLState pgjdbc gives a refused connection (PSQLState.CONNECTION_UNABLE_TO_CONNECT).
        ResponseEntity<ProblemDetail> answer = new AdminExceptionHandler()
                .database(new SQLException("connection to graph_follower_0 refused", "08001"));

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
        assertThat(answer.getBody().getTitle()).isEqualTo("Service Unavailable");
        assertThat(answer.getBody().getDetail()).isEqualTo("reconciler database unavailable");
        assertThat(answer.getBody().getProperties()).isNull();
    }

    @Test
    void database_whenThePoolHasNoConnection_is503WithRetryAfter() {
        ResponseEntity<ProblemDetail> answer = new AdminExceptionHandler()
                .database(new SQLTransientConnectionException("reconciler - Connection is not available"));

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
    }

    /** Classified as every service's database errors are (SqlErrors): only an outage is a 503. */
    @Test
    void database_whenNotAnOutage_is500WithoutInternals() {
        ResponseEntity<ProblemDetail> answer = new AdminExceptionHandler()
                .database(new SQLException("column \"nope\" does not exist", "42703"));

        assertThat(answer.getStatusCode().value()).isEqualTo(500);
        assertThat(answer.getHeaders().getFirst("Retry-After")).isNull();
        assertThat(answer.getBody().getDetail()).isEqualTo("An unexpected error occurred.");
    }

    @Test
    void buildRunning_is409OfTheConflictType() {
        ProblemDetail answer = new AdminExceptionHandler()
                .buildRunning(new SnapshotBuilder.BuildRunningException("a bloom snapshot is already being built"));

        assertThat(answer.getStatus()).isEqualTo(409);
        assertThat(answer.getType().toString()).isEqualTo(ProblemType.CONFLICT.uri().toString());
        assertThat(answer.getDetail()).isEqualTo("a bloom snapshot is already being built");
    }
}
