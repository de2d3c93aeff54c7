package dev.socialgraph.gateway;

import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The check service's load balancer, registered by {@link LoadBalancing}'s {@code @LoadBalancerClient} in that
 * client's own LoadBalancer child context. Deliberately a top-level class without {@code @Configuration}: neither
 * component scanning nor member-class processing of a configuration class may register it in the main context,
 * where its bean would become every service's balancer (Spring Cloud's default is
 * {@code @ConditionalOnMissingBean} across parent contexts), breaking the write route.
 */
class ShardAffineLoadBalancerConfiguration {

    @Bean
    ReactorLoadBalancer<ServiceInstance> shardAffineLoadBalancer(Environment environment,
                                                                 LoadBalancerClientFactory factory,
                                                                 RoutingProperties routing) {
        String name = environment.getProperty(LoadBalancerClientFactory.PROPERTY_NAME);
        return new ShardAffineLoadBalancer(factory.getLazyProvider(name, ServiceInstanceListSupplier.class), name,
                routing.logicalShardCount());
    }
}
