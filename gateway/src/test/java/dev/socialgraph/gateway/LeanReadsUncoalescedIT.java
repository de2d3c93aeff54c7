package dev.socialgraph.gateway;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link LeanReadsIT}'s cases with {@code graph.gateway.lean-reads.coalesce=false}: each read forwarded as a
 * {@code GET} of its own, with the public path, and the instance's problem relayed byte for byte.
 */
class LeanReadsUncoalescedIT extends LeanReadsIT {

    @DynamicPropertySource
    static void uncoalesced(DynamicPropertyRegistry registry) {
        registry.add("graph.gateway.lean-reads.coalesce", () -> "false");
    }

    @Override
    boolean coalescing() {
        return false;
    }
}
