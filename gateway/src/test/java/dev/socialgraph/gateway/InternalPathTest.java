package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class InternalPathTest {

    @Test
    void internal_putsTheInternalPrefixInFrontOfThePath() {
        assertThat(InternalPath.internal(URI.create("lb://follow-check-service/v1/users/5/following/6")))
                .isEqualTo(URI.create("lb://follow-check-service/internal/v1/users/5/following/6"));
        assertThat(InternalPath.internal(URI.create("http://127.0.0.1:8081/v1/users/5/counts")))
                .isEqualTo(URI.create("http://127.0.0.1:8081/internal/v1/users/5/counts"));
    }

    @Test
    void internal_keepsTheQueryAndItsEncodingAsSent() {
        URI url = URI.create("lb://follow-check-service/v1/users/5/following?limit=10&cursor=a%2Bb%3D%3D");
        URI internal = InternalPath.internal(url);
        assertThat(internal.getRawPath()).isEqualTo("/internal/v1/users/5/following");
        assertThat(internal.getRawQuery()).isEqualTo("limit=10&cursor=a%2Bb%3D%3D");
        assertThat(internal.getQuery()).isEqualTo("limit=10&cursor=a+b==");
    }

    @Test
    void internal_refusesAPathOutsideThePublicApi() {
        assertThatThrownBy(() -> InternalPath.internal(URI.create("lb://follow-check-service/internal/v1/users/5")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InternalPath.internal(URI.create("lb://follow-check-service/v2/users/5")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void runsAfterTheLoadBalancerHasPutTheInstancesAddressIn() {
        assertThat(InternalPath.FILTER.getOrder()).isGreaterThan(10_150).isLessThan(Integer.MAX_VALUE - 1);
    }
}
