package dev.socialgraph.gateway;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link LeanReadsIT}'s cases with {@code graph.gateway.lean-reads.alone-as-get=false}: a read alone goes to the
 * instance in a batch of one ({@code POST /internal/v1/reads}), its problem is relayed as the caller's, and a read the
 * instance defers is then sent as its own {@code GET}.
 */
class LeanReadsBatchedIT extends LeanReadsIT {

    @DynamicPropertySource
    static void batchesOfOne(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.lean-reads.alone-as-get", () -> "false");
    }

    @Override
    boolean batched() {
        return true;
    }
}
