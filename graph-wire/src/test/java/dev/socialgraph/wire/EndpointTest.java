package dev.socialgraph.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class EndpointTest {

    @Test
    void variables_areThePathsSegmentsAtTheTemplatesVariables_raw() {
        assertThat(InternalApi.COMMON_FOLLOWING.variables("/internal/v1/users/7/common-following/8"))
                .containsExactly(java.util.Map.entry("id", "7"), java.util.Map.entry("otherId", "8"));
        assertThat(InternalApi.FOLLOWING.variables("/internal/v1/users/%37/following"))
                .containsExactly(java.util.Map.entry("id", "%37"));
        assertThat(PublicApi.LIST_OWN_BLOCKS.variables("/v1/me/blocking")).isEmpty();
        assertThatThrownBy(() -> InternalApi.FOLLOWING.variables("/internal/v1/users/7/followers"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void path_fillsTheVariablesInOrder() {
        assertThat(InternalApi.CHECK.path(12, 13)).isEqualTo("/internal/v1/users/12/following/13");
        assertThat(InternalApi.JOB.path("42-1")).isEqualTo("/internal/v1/admin/jobs/42-1");
        assertThat(InternalApi.PAIRS.path()).isEqualTo("/internal/v1/following/pairs");
        assertThat(InternalApi.CHECK.variables()).containsExactly("id", "targetId");
        assertThat(InternalApi.COUNTS.path(12L)).isEqualTo("/internal/v1/users/12/counts");
        assertThat(InternalApi.CHECK.path(Long.MAX_VALUE, 1L)).isEqualTo("/internal/v1/users/" + Long.MAX_VALUE
                + "/following/1");
        assertThatThrownBy(() -> InternalApi.CHECK.path(12L)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void path_withTheWrongNumberOfValuesOrAValueNeedingEncoding_isRefused() {
        assertThatThrownBy(() -> InternalApi.CHECK.path(12)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InternalApi.CHECK.path(12, 13, 14)).isInstanceOf(IllegalArgumentException.class);
        for (String bad : new String[] {"", "a/b", "a?b", "a#b", "%2F", "a b"}) {
            assertThatThrownBy(() -> InternalApi.JOB.path(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void matches_exactlyThePathsOfTheTemplate() {
        Endpoint check = InternalApi.CHECK;
        assertThat(check.matches(Method.GET, "/internal/v1/users/12/following/13")).isTrue();
        assertThat(check.matches(Method.GET, "/internal/v1/users/abc/following/x_y")).isTrue();
        assertThat(check.matches(Method.POST, "/internal/v1/users/12/following/13")).isFalse();
        for (String other : new String[] {"/internal/v1/users/12/following", "/internal/v1/users/12/following/",
                "/internal/v1/users//following/13", "/internal/v1/users/12/following/13/x",
                "/internal/v1/users/12/followers/13", "internal/v1/users/12/following/13", "", "/",
                "/internal/v1/users/12/following/13?x=1"}) {
            assertThat(check.matches(Method.GET, other)).as(other).isFalse();
        }
        assertThat(InternalApi.PAIRS.matches("/internal/v1/following/pairs")).isTrue();
        assertThat(InternalApi.PAIRS.matches("/internal/v1/following/pairs/x")).isFalse();
    }

    @Test
    void aTemplate_isAnAbsolutePathOfWholeSegmentVariables() {
        for (String bad : new String[] {"relative/{id}", "/trailing/", "/with?query", "/a{id}", "/{id}x", "/a//b"}) {
            assertThatThrownBy(() -> Endpoint.of("bad", Method.GET, bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theCatalogues_holdEachMethodAndTemplateOnce_andInternalPathsUnderTheirPrefixes() {
        List<Endpoint> internal = Stream.of(InternalApi.CHECK_SERVICE, InternalApi.WRITE_SERVICE,
                InternalApi.RECONCILER).flatMap(List::stream).toList();
        assertThat(new HashSet<>(internal)).hasSameSizeAs(internal);
        assertThat(new HashSet<>(PublicApi.ALL)).hasSameSizeAs(PublicApi.ALL);
        Set<String> names = new HashSet<>();
        internal.forEach(e -> assertThat(names.add("internal " + e.name())).as(e.name()).isTrue());
        PublicApi.ALL.forEach(e -> assertThat(names.add("public " + e.name())).as(e.name()).isTrue());
        assertThat(InternalApi.CHECK_SERVICE).allMatch(e -> e.template().startsWith(InternalApi.PREFIX + "/"));
        assertThat(InternalApi.WRITE_SERVICE).allMatch(e -> e.template().startsWith(InternalApi.PREFIX + "/"));
        // The reads of /v1/users mirror /internal/v1/users: the gateway prepends the mirror prefix.
        assertThat(InternalApi.MIRROR_PREFIX + PublicApi.USERS).isEqualTo(InternalApi.USERS);
        assertThat(InternalApi.MIRROR_PREFIX + PublicApi.LIST_FOLLOWERS.template())
                .isEqualTo(InternalApi.FOLLOWERS.template());
    }
}
