package dev.socialgraph.gateway;

import java.util.List;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.simple.InstanceProperties;
import org.springframework.cloud.client.discovery.simple.reactive.SimpleReactiveDiscoveryProperties;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import reactor.core.publisher.Flux;

/**
 * The instance list of every {@code lb://} service, read once from the static list
 * ({@code spring.cloud.discovery.client.simple.instances.<service>}) when the service's LoadBalancer child context
 * starts, and handed to its balancer as the same list on every request.
 *
 * <p>Why not Spring Cloud's default supplier: it asks the discovery client on every request, behind a timeout, so
 * each proxied request scheduled and cancelled a timer on Reactor's parallel scheduler (a thread wake-up) and built
 * the list's instances anew; about 50 µs of gateway CPU per request, the largest single item of the full route over
 * Spring Cloud Gateway's bare route (the hop benchmark's floor) in the gateway's profile (docs/benchmarks.md). The list is configuration (the local defaults, or the
 * {@code check-instances} ConfigMap in Kubernetes) and changes only with a restart of the gateway, so a snapshot
 * is exact. An empty or missing list stays empty: the gateway answers 503.
 *
 * <p>Registered by {@link LoadBalancing} as the default configuration of every LoadBalancer client; like
 * {@link ShardAffineLoadBalancerConfiguration} it is deliberately not a {@code @Configuration}, so it is never
 * registered in the main context.
 */
class StaticInstanceListConfiguration {

    @Bean
    ServiceInstanceListSupplier staticInstanceList(Environment environment, SimpleReactiveDiscoveryProperties discovery) {
        String serviceId = environment.getProperty(LoadBalancerClientFactory.PROPERTY_NAME);
        // One list object for the gateway's lifetime, so a balancer may recognise it by identity.
        Flux<List<ServiceInstance>> list = Flux.just(instances(discovery, serviceId));
        return new ServiceInstanceListSupplier() {
            @Override
            public String getServiceId() {
                return serviceId;
            }

            @Override
            public Flux<List<ServiceInstance>> get() {
                return list;
            }
        };
    }

    /** The configured instances of {@code serviceId}, in list order; empty when none are configured. */
    static List<ServiceInstance> instances(SimpleReactiveDiscoveryProperties discovery, String serviceId) {
        List<InstanceProperties> configured = discovery.getInstances(serviceId);
        return configured == null ? List.of() : configured.stream().map(InstanceProperties::toServiceInstance).toList();
    }
}
