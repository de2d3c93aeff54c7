package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.Method;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Requests as the resources build them: paths from graph-wire's descriptors, optional headers, the query. */
class RequestTest {

    @Test
    void to_buildsThePathFromTheEndpointsTemplate() {
        Request check = Request.to(InternalApi.CHECK, 12L, 13L);

        assertThat(check.path()).isEqualTo("/internal/v1/users/12/following/13");
        assertThat(check.method()).isEqualTo(Method.GET);
        assertThat(InternalApi.CHECK.matches(check.method(), check.path())).isTrue();
        assertThat(Request.to(InternalApi.JOB, "42-1").path()).isEqualTo("/internal/v1/admin/jobs/42-1");
        assertThat(Request.to(InternalApi.UNFOLLOW, 1L, 2L).method()).isEqualTo(Method.DELETE);
    }

    @Test
    void header_ofNull_leavesTheRequestAsItWas() {
        Request plain = Request.to(InternalApi.RELATIONSHIP, 1L, 2L);

        assertThat(plain.header(Headers.FOLLOW_TOKEN, null)).isSameAs(plain);
        assertThat(plain.header(Headers.FOLLOW_TOKEN, "t").header(Headers.VIEWER_ID, "3").headers())
                .isEqualTo(Map.of(Headers.FOLLOW_TOKEN, "t", Headers.VIEWER_ID, "3"));
        assertThat(plain.headers()).isEmpty();
    }

    @Test
    void target_isThePathWithItsQuery() {
        Request list = Request.to(InternalApi.FOLLOWING, 5L);

        assertThat(list.target()).isEqualTo("/internal/v1/users/5/following");
        assertThat(list.query("limit=2&cursor=x").target())
                .isEqualTo("/internal/v1/users/5/following?limit=2&cursor=x");
    }

    @Test
    void aValueThatIsNoPathSegment_isRefusedBeforeAnyRequest() {
        assertThatThrownBy(() -> Request.to(InternalApi.JOB, "42-1/../x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Request.to(InternalApi.CHECK, 1L)).isInstanceOf(IllegalArgumentException.class);
    }
}
