package dev.socialgraph.gateway;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The public GET reads served by the gateway's own handler ({@link LeanReads}), {@code graph.gateway.lean-reads.*}.
 *
 * @param enabled     {@code true} (default): the reads of {@link LeanReads#ENDPOINTS} are authenticated from the
 *                    token cache where they can be ({@link SingleCheckEntry}) and forwarded by
 *                    {@link LeanReadHandler}, with the routes' own filters, to the check instance owning the path's
 *                    user; {@code false}: Spring Cloud Gateway's routes ({@code reads}, {@code relationship},
 *                    {@code own-relations}, {@code private-relations}) proxy them and Spring Security's whole chain
 *                    authenticates each, as before, for comparison and as a fallback
 * @param coalesce    {@code true} (default): the forwarded reads are coalesced into batch calls per check instance
 *                    ({@link Coalescer}, {@link ReadBatchClient}: {@code POST /internal/v1/reads}), as the single
 *                    check is; {@code false}: each is its own {@code GET}
 * @param aloneAsGet  {@code true} (default): a read the coalescer would send alone (no other read waiting for its
 *                    instance) goes as its own {@code GET}, one hop whether memory or a store answers it, where a
 *                    batch of one defers a read memory does not hold to a second call; {@code false}: in a batch of
 *                    one. Only with {@code coalesce}
 * @param maxInFlight batch calls of reads outstanding per check instance (default 2, at least 1); see
 *                    {@link CheckCoalescingProperties#maxInFlight()}
 * @param maxBatch    reads per batch call (default 32, 1 to 1,000): at most the check service's
 *                    {@code graph.check.read-batch-max} (32), which refuses a larger batch whole. Reads cost more
 *                    than checks in the service (tens of µs from memory, a millisecond or more from a shard), so
 *                    batches are smaller than the checks' 64
 * @param maxQueued   reads waiting per check instance (default 1,024); one more is answered 503 at once
 * @param maxWait     longest wait of a read for the batch calls ahead of it; unset (the default): the response
 *                    timeout, {@code graph.gateway.response-timeout}; a read found waiting longer is answered 504
 */
@Validated
@ConfigurationProperties("graph.gateway.lean-reads")
public record LeanReadsProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("true") boolean coalesce,
        @DefaultValue("true") boolean aloneAsGet,
        @DefaultValue("2") @Min(1) int maxInFlight,
        @DefaultValue("32") @Min(1) @Max(1000) int maxBatch,
        @DefaultValue("1024") @Min(1) int maxQueued,
        @DurationMin(millis = 1) Duration maxWait) {
}
