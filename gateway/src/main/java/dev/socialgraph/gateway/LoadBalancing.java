package dev.socialgraph.gateway;

import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClient;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Cloud LoadBalancer for the {@code lb://} routes. Instances come from Spring Cloud's static
 * list, {@code spring.cloud.discovery.client.simple.instances.<service>[i].uri} and {@code .instance-id}
 * (application.yml defaults to one local instance of each service at {@code graph.gateway.check-uri} /
 * {@code write-uri}); in Kubernetes the list names the check service's StatefulSet pods by their DNS names.
 * Each service's list is read once ({@link StaticInstanceListConfiguration}), not per request.
 * {@value #CHECK_SERVICE} gets the {@link ShardAffineLoadBalancer}; {@value #WRITE_SERVICE} keeps Spring Cloud's
 * default round-robin.
 */
@Configuration(proxyBeanMethods = false)
@LoadBalancerClients(value = @LoadBalancerClient(name = LoadBalancing.CHECK_SERVICE,
        configuration = ShardAffineLoadBalancerConfiguration.class),
        defaultConfiguration = StaticInstanceListConfiguration.class)
class LoadBalancing {

    /** Service id of the read service, the host of its {@code lb://} route. */
    static final String CHECK_SERVICE = "follow-check-service";
    /** Service id of the write service. */
    static final String WRITE_SERVICE = "follow-write-service";
}
