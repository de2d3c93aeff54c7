package dev.socialgraph.gateway;

import org.springframework.cloud.gateway.config.HttpClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Settings of the Reactor Netty client that proxies to the services, beyond what
 * {@code spring.cloud.gateway.server.webflux.httpclient.*} sets (connect timeout, pool).
 *
 * <p>Response timeout: Spring Cloud Gateway's own {@code httpclient.response-timeout} wraps every proxied response in
 * {@code Flux.timeout}, which schedules and cancels a task on Reactor's shared {@code parallel} scheduler per
 * request; in the issue 5 profile those threads used about as much CPU as the gateway's event loops. Reactor Netty's
 * {@code HttpClient.responseTimeout} does the same job with a read-timeout handler on the connection's own event
 * loop. The one difference: it bounds the silence between reads of a response (and before its first byte) rather
 * than the whole response, which for the services' small JSON answers is the same thing. A timeout surfaces as
 * Netty's {@code ReadTimeoutException}, which {@link GatewayErrors} answers with 504 problem+json.
 */
@Configuration(proxyBeanMethods = false)
class HttpClientTuning {

    @Bean
    HttpClientCustomizer responseTimeout(GatewayProperties properties) {
        return client -> client.responseTimeout(properties.responseTimeout());
    }
}
