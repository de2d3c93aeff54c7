package dev.socialgraph.common.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiPathsTest {

    @Test
    void paths_areTheInternalApisOnTheWire() {
        // Literal on purpose: every deployed caller and service agrees on these, so a change must be seen here.
        assertThat(ApiPaths.INTERNAL).isEqualTo("/internal/v1");
        assertThat(ApiPaths.USERS).isEqualTo("/internal/v1/users");
        assertThat(ApiPaths.ADMIN).isEqualTo("/internal/v1/admin");
        assertThat(ApiPaths.BLOOM).isEqualTo("/internal/v1/bloom");
        assertThat(ApiPaths.BLOOM_SWAP).isEqualTo("/internal/v1/bloom/swap");
    }
}
