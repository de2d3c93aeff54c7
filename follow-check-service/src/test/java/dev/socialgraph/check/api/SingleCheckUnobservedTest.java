package dev.socialgraph.check.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.Observation;
import java.util.HashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

class SingleCheckUnobservedTest {

    private final SingleCheckUnobserved predicate = new SingleCheckUnobserved();

    private boolean observed(HttpMethod method, String path) {
        MockServerHttpRequest request = MockServerHttpRequest.method(method, path).build();
        return predicate.test("http.server.requests",
                new ServerRequestObservationContext(request, new MockServerHttpResponse(), new HashMap<>()));
    }

    @Test
    void theSingleCheck_isNotObserved() {
        assertThat(observed(HttpMethod.GET, "/internal/v1/users/12/following/13")).isFalse();
        assertThat(observed(HttpMethod.GET, "/internal/v1/users/12/following/13?x=1")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/internal/v1/users/12/following", "/internal/v1/users/12/followers",
            "/internal/v1/users/12/counts", "/internal/v1/users/12/relationship/13", "/internal/v1/users/12/suggestions",
            "/internal/v1/users/12/common-following/13", "/internal/v1/users/12/following/13/x",
            "/internal/v1/users//following/13", "/internal/v1/users/12/following/", "/internal/v1/bloom",
            "/actuator/prometheus"})
    void everyOtherRead_isObserved(String path) {
        assertThat(observed(HttpMethod.GET, path)).isTrue();
    }

    @Test
    void theBatchCheck_andOtherMethodsOnTheCheckPath_areObserved() {
        assertThat(observed(HttpMethod.POST, "/internal/v1/users/12/following/contains")).isTrue();
        assertThat(observed(HttpMethod.DELETE, "/internal/v1/users/12/following/13")).isTrue();
    }

    @Test
    void otherObservations_areLeftAlone() {
        assertThat(predicate.test("lettuce", new Observation.Context())).isTrue();
    }
}
