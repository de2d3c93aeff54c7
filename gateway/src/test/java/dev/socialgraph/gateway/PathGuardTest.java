package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PathGuardTest {

    @Test
    void isPlain_acceptsTheApisPaths() {
        assertThat(PathGuard.isPlain("/v1/me/following/42")).isTrue();
        assertThat(PathGuard.isPlain("/v1/users/1/common-following/2")).isTrue();
        assertThat(PathGuard.isPlain("/v1/users/1/following/contains")).isTrue();
    }

    @Test
    void isPlain_refusesDotSegmentsEncodedSeparatorsAndEmptySegments() {
        assertThat(PathGuard.isPlain("/v1/me/following/..")).isFalse();
        assertThat(PathGuard.isPlain("/v1/me/following/%2e%2e")).isFalse();
        assertThat(PathGuard.isPlain("/v1/me/following/1%2F2")).isFalse();
        assertThat(PathGuard.isPlain("/v1/me/following/1%5C2")).isFalse();
        assertThat(PathGuard.isPlain("/v1//users")).isFalse();
        assertThat(PathGuard.isPlain("/v1/users/")).isFalse();
        assertThat(PathGuard.isPlain("/v1/users/1;x=2")).isFalse();
    }
}
