package dev.socialgraph.gateway;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The public GET reads served by the gateway's own handler ({@link LeanReads}), {@code graph.gateway.lean-reads.*}.
 *
 * @param enabled {@code true} (default): the reads of {@link LeanReads#ENDPOINTS} are authenticated from the token
 *                cache where they can be ({@link SingleCheckEntry}) and forwarded by {@link LeanReadHandler}, with
 *                the routes' own filters, to the check instance owning the path's user; {@code false}: Spring Cloud
 *                Gateway's routes ({@code reads}, {@code relationship}, {@code own-relations},
 *                {@code private-relations}) proxy them and Spring Security's whole chain authenticates each, as
 *                before, for comparison and as a fallback
 */
@Validated
@ConfigurationProperties("graph.gateway.lean-reads")
public record LeanReadsProperties(@DefaultValue("true") boolean enabled) {
}
