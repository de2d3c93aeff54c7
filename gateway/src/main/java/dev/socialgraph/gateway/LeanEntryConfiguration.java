package dev.socialgraph.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.MatcherSecurityWebFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.header.HttpHeaderWriterWebFilter;
import org.springframework.web.server.WebFilter;

/**
 * The lean entry ({@link SingleCheckEntry}) of the reads the gateway serves outside Spring Cloud Gateway's routes:
 * the single check when it is coalesced ({@link CheckCoalescing}), the other GET reads when they are lean
 * ({@link LeanReads}); there whenever either is on, built for what is on.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("${graph.gateway.check-coalescing.enabled:true} or ${graph.gateway.lean-reads.enabled:true}")
class LeanEntryConfiguration {

    @Bean
    SingleCheckEntry singleCheckEntry(ReactiveJwtDecoder decoder, GatewayErrors errors, MeterRegistry meters,
                                      CheckCoalescingProperties coalescing, LeanReadsProperties lean) {
        return new SingleCheckEntry(decoder instanceof CachingJwtDecoder cache ? cache : null, errors, meters,
                coalescing.enabled(), lean.enabled());
    }

    /**
     * Spring Security's chain for the requests {@link SingleCheckEntry} authenticated: the main chain's own security
     * headers writer and nothing else. First, so that such a request never reaches the main chain's authentication
     * and authorization; a request not marked so is matched by the main chain only.
     */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    SecurityWebFilterChain singleCheckSecurityWebFilterChain(
            @Qualifier("securityWebFilterChain") SecurityWebFilterChain main) {
        // A chain's filters are a fixed list (ServerHttpSecurity.build); its Flux completes at once.
        List<WebFilter> headers = main.getWebFilters().filter(HttpHeaderWriterWebFilter.class::isInstance)
                .collectList().block();
        if (headers == null || headers.size() != 1) {
            throw new IllegalStateException("the main security chain has no one headers writer: " + headers);
        }
        return new MatcherSecurityWebFilterChain(SingleCheckEntry.AUTHENTICATED_HERE, headers);
    }
}
