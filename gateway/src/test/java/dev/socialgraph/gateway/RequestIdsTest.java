package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

    @Test
    void randomId_isAVersion4VariantRfcUuid_andDistinct() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = RequestIds.randomId();
            UUID uuid = UUID.fromString(id);
            assertThat(uuid.version()).isEqualTo(4);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(id).hasSize(36);
            seen.add(id);
        }
        assertThat(seen).hasSize(10_000);
    }

    @Test
    void isSane_acceptsPrintableTokensUpTo128_only() {
        assertThat(RequestIds.isSane("abc-123_XYZ")).isTrue();
        assertThat(RequestIds.isSane("a".repeat(128))).isTrue();
        assertThat(RequestIds.isSane("a".repeat(129))).isFalse();
        assertThat(RequestIds.isSane(null)).isFalse();
        assertThat(RequestIds.isSane("")).isFalse();
        assertThat(RequestIds.isSane("has space")).isFalse();
        assertThat(RequestIds.isSane("line\nbreak")).isFalse();
        assertThat(RequestIds.isSane("caf\u00e9")).isFalse();
    }
}
