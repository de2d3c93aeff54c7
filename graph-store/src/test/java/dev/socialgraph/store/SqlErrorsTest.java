package dev.socialgraph.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class SqlErrorsTest {

    @Test
    void classify_serializationFailureAndDeadlock_retryTheTransaction() {
        assertThat(SqlErrors.classify("40001")).isEqualTo(SqlErrors.Kind.RETRY_TRANSACTION);
        assertThat(SqlErrors.classify("40P01")).isEqualTo(SqlErrors.Kind.RETRY_TRANSACTION);
    }

    @Test
    void classify_connectionLossAndShutdown_areUnavailable() {
        assertThat(SqlErrors.classify("08006")).isEqualTo(SqlErrors.Kind.UNAVAILABLE);
        assertThat(SqlErrors.classify("57P01")).isEqualTo(SqlErrors.Kind.UNAVAILABLE);
        assertThat(SqlErrors.classify(new SQLTransientConnectionException("pool timeout")))
                .isEqualTo(SqlErrors.Kind.UNAVAILABLE);
    }

    @Test
    void classify_authenticationIsFatalAndConstraintsAreConstraints() {
        assertThat(SqlErrors.classify("28P01")).isEqualTo(SqlErrors.Kind.FATAL);
        assertThat(SqlErrors.classify("23514")).isEqualTo(SqlErrors.Kind.CONSTRAINT);
        assertThat(SqlErrors.classify("22003")).isEqualTo(SqlErrors.Kind.OTHER);
    }

    @Test
    void classify_findsTheStateInACause() {
        SQLException wrapper = new SQLException("wrapper");
        wrapper.initCause(new SQLException("inner", "40P01"));
        assertThat(SqlErrors.classify(wrapper)).isEqualTo(SqlErrors.Kind.RETRY_TRANSACTION);
        assertThat(SqlErrors.classify(new SQLException("no state"))).isEqualTo(SqlErrors.Kind.OTHER);
    }
}
