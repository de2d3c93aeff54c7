package dev.socialgraph.gateway;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The single follow check served by the gateway itself and coalesced into batch calls per check instance
 * ({@link CheckCoalescing}, {@link Coalescer}), {@code graph.gateway.check-coalescing.*}.
 *
 * @param enabled     {@code true} (default): {@code GET /v1/users/{id}/following/{targetId}} is answered through a
 *                    {@link Coalescer} per check instance; {@code false}: by Spring Cloud Gateway's {@code check}
 *                    route, one proxied request per check, for comparison and as a fallback
 * @param maxInFlight batch calls outstanding per check instance (default 2, at least 1): while fewer are out, a
 *                    check is sent on its event loop's next turn ({@link Coalescer}); otherwise it waits for one to
 *                    complete. Two keep a check pod's two cores answering while the waiting checks gather into one
 *                    batch; more would split them into smaller batches, more calls and more gateway CPU per check,
 *                    without more service cores to use
 * @param maxBatch    checks per batch call (default 64, 1 to 1,000: the check service's {@code batch-max} for pairs,
 *                    which must be at least this). At a few µs per check in the service, a full batch is answered
 *                    well under a millisecond, which bounds what a check waits behind one. Its body fits the check
 *                    service's body limit whatever the callers sent: a token is at most 64 characters
 *                    ({@link FollowTokenGuard}), so a pair at most 499 bytes and 1,000 pairs at most 500,011
 *                    ({@link dev.socialgraph.wire.FollowingPairs#requestBytes}), under the 1 MB
 *                    {@code graph.web.max-request-size}; the check service refuses to start when its own
 *                    {@code batch-max} pairs would not fit its limit
 * @param maxQueued   checks waiting per check instance (default 1,024, as many as may wait for a pooled connection,
 *                    {@code graph.gateway.service-pool.pending-acquire-max}); one more is answered 503 at once, as a
 *                    request past a full pool's queue is
 * @param maxWait     longest wait of a check for the batch calls ahead of it; unset (the default): the response
 *                    timeout, {@code graph.gateway.response-timeout}, so a check waits for the calls ahead as long as
 *                    for its own answer. A check found waiting longer when a batch completes is answered 504, as one
 *                    whose answer did not come in time, instead of sent
 */
@Validated
@ConfigurationProperties("graph.gateway.check-coalescing")
public record CheckCoalescingProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("2") @Min(1) int maxInFlight,
        @DefaultValue("64") @Min(1) @Max(1000) int maxBatch,
        @DefaultValue("1024") @Min(1) int maxQueued,
        @DurationMin(millis = 1) Duration maxWait) {
}
