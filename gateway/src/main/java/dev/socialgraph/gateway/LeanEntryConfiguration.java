package dev.socialgraph.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationPredicate;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.firewall.HttpStatusExchangeRejectedHandler;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.security.web.server.firewall.ServerWebExchangeFirewall;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;
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

    /**
     * The entry, with what answers a request it authenticates: the firewall and rejected handler Spring Security's
     * {@code WebFilterChainProxy} is given (the same beans, or the same defaults), the main chain's own security
     * headers writer, and the handlers of what is on.
     */
    @Bean
    SingleCheckEntry singleCheckEntry(ReactiveJwtDecoder decoder, GatewayErrors errors, MeterRegistry meters,
                                      CheckCoalescingProperties coalescing, LeanReadsProperties lean,
                                      @Qualifier("securityWebFilterChain") SecurityWebFilterChain main,
                                      ObjectProvider<ServerWebExchangeFirewall> firewall,
                                      ObjectProvider<ServerExchangeRejectedHandler> rejected,
                                      ObjectProvider<CheckCoalescing.CoalescedCheckMapping> check,
                                      ObjectProvider<LeanReads.LeanReadMapping> reads, ApplicationContext context) {
        // A chain's filters are a fixed list (ServerHttpSecurity.build); its Flux completes at once.
        List<WebFilter> headers = main.getWebFilters().filter(HttpHeaderWriterWebFilter.class::isInstance)
                .collectList().block();
        if (headers == null || headers.size() != 1) {
            throw new IllegalStateException("the main security chain has no one headers writer: " + headers);
        }
        CheckCoalescing.CoalescedCheckMapping checkMapping = coalescing.enabled() ? check.getObject() : null;
        LeanReads.LeanReadMapping readMapping = lean.enabled() ? reads.getObject() : null;
        SingleCheckEntry.Direct direct = new SingleCheckEntry.Direct(
                firewall.getIfAvailable(StrictServerWebExchangeFirewall::new),
                rejected.getIfAvailable(HttpStatusExchangeRejectedHandler::new), headers.get(0),
                checkMapping == null ? null : checkMapping.handler(),
                readMapping == null ? null : readMapping.handler(), context);
        return new SingleCheckEntry(decoder instanceof CachingJwtDecoder cache ? cache : null, errors, meters,
                coalescing.enabled(), lean.enabled(), direct);
    }

    /** The reads the entry serves have no {@code http.server.requests}: it times them. */
    @Bean
    ObservationPredicate leanReadsUnobserved(CheckCoalescingProperties coalescing, LeanReadsProperties lean) {
        return SingleCheckEntry.observing(coalescing.enabled(), lean.enabled());
    }
}
