package dev.socialgraph.gateway;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.common.shard.ShardAffineRouter;
import dev.socialgraph.common.shard.ShardAffinity;
import dev.socialgraph.wire.InternalApi;
import dev.socialgraph.wire.PublicApi;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.DefaultResponse;
import org.springframework.cloud.client.loadbalancer.EmptyResponse;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.loadbalancer.core.NoopServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.core.ReactorServiceInstanceLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import reactor.core.publisher.Mono;

/**
 * Shard-affine choice of a follow-check-service instance: a request about user {@code id}
 * ({@code /v1/users/{id}/...}, or its rewritten {@code /internal/v1/users/{id}/...}) goes to the owner of
 * {@code id}'s logical shard, {@code floorMod(id, logicalShardCount)}, by rendezvous hashing over the instances'
 * ids ({@link ShardAffinity}, the same function the check instances use to decide which shards they load), through
 * {@link ShardAffineRouter}, which the backend client ({@code graph-client}) uses too. So all requests about one
 * follower reach one instance, whose bloom filter and caches hold that follower's slice.
 *
 * <p>Instance ids are {@link ServiceInstance#getInstanceId()} (the {@code instance-id} of the static list), or
 * {@code host:port} when an instance has none; they must be the check instances'
 * {@code graph.check.affinity.instance-id}s, and the list their {@code graph.check.affinity.instances}. When the
 * supplier lists fewer instances (one taken out), only the missing instance's shards move (to the instance of the
 * next-highest weight), which answers them correctly without its bloom filter. A path without a parsable user id
 * (the service rejects it anyway) goes round-robin. No instance: an empty response, which the gateway turns into
 * 503.
 *
 * <p>The router of an instance list is built once and reused while the list's ids stay the same; for the same list
 * object (the gateway's static list) without looking at the ids.
 */
final class ShardAffineLoadBalancer implements ReactorServiceInstanceLoadBalancer {

    private static final String USERS = PublicApi.USERS + "/";
    private static final String INTERNAL_USERS = InternalApi.USERS + "/";

    private final ObjectProvider<ServiceInstanceListSupplier> suppliers;
    private final String serviceId;
    private final int logicalShardCount;
    private final AtomicInteger roundRobin = new AtomicInteger();
    private volatile Routing routing;

    /**
     * @param suppliers         the instance list of {@code serviceId}
     * @param serviceId         the load-balanced service, {@code follow-check-service}
     * @param logicalShardCount the deployment's logical shard count (the check service's
     *                          {@code graph.shards.logical-shard-count})
     */
    ShardAffineLoadBalancer(ObjectProvider<ServiceInstanceListSupplier> suppliers, String serviceId,
                            int logicalShardCount) {
        this.suppliers = suppliers;
        this.serviceId = serviceId;
        this.logicalShardCount = logicalShardCount;
    }

    @Override
    public Mono<Response<ServiceInstance>> choose(Request request) {
        ServiceInstanceListSupplier supplier = suppliers.getIfAvailable(NoopServiceInstanceListSupplier::new);
        return supplier.get(request).next().map(instances -> choose(instances, userId(request)));
    }

    /**
     * The instance for a request about {@code userId}, as {@link #choose(Request)} chooses it for a request whose
     * path names that user: for the single checks the gateway coalesces itself ({@link CoalescedCheckHandler}), which
     * go through no route and so through no {@code Request}.
     *
     * @param userId a positive user id
     * @return the owner of its logical shard among the instances up now; an empty response when there is none
     */
    Mono<Response<ServiceInstance>> choose(long userId) {
        ServiceInstanceListSupplier supplier = suppliers.getIfAvailable(NoopServiceInstanceListSupplier::new);
        return supplier.get().next().map(instances -> choose(instances, userId));
    }

    /**
     * The instance for a request about {@code userId}.
     *
     * @param instances the instances up now
     * @param userId    the path's user id, or {@code -1} when it has none
     */
    Response<ServiceInstance> choose(List<ServiceInstance> instances, long userId) {
        if (instances.isEmpty()) {
            return new EmptyResponse();
        }
        if (userId < 0 || instances.size() == 1) {
            return new DefaultResponse(instances.get(Math.floorMod(roundRobin.getAndIncrement(), instances.size())));
        }
        return new DefaultResponse(instances.get(router(instances).owner(userId)));
    }

    private ShardAffineRouter router(List<ServiceInstance> instances) {
        Routing current = routing;
        if (current != null && current.instances() == instances) {
            return current.router(); // the static list's one object (StaticInstanceListConfiguration)
        }
        List<String> ids = new ArrayList<>(instances.size());
        for (ServiceInstance instance : instances) {
            ids.add(idOf(instance));
        }
        ShardAffineRouter r = current != null && current.router().instanceIds().equals(ids) ? current.router()
                : new ShardAffineRouter(ids, logicalShardCount); // refuses two instances with one id
        routing = new Routing(instances, r);
        return r;
    }

    /** A router and the instance list it was built for or checked against, published together. */
    private record Routing(List<ServiceInstance> instances, ShardAffineRouter router) {
    }

    /** The id the check instance is configured with: its {@code instance-id}, else {@code host:port}. */
    static String idOf(ServiceInstance instance) {
        String id = instance.getInstanceId();
        return id == null || id.isBlank() ? instance.getHost() + ":" + instance.getPort() : id;
    }

    /** The user id of {@code /v1/users/{id}/...} or {@code /internal/v1/users/{id}/...}; -1 when there is none. */
    static long userId(Request<?> request) {
        if (!(request.getContext() instanceof RequestDataContext context) || context.getClientRequest() == null) {
            return -1;
        }
        URI url = context.getClientRequest().getUrl();
        return url == null ? -1 : userId(url.getRawPath());
    }

    static long userId(String path) {
        if (path == null) {
            return -1;
        }
        int from;
        if (path.startsWith(USERS)) {
            from = USERS.length();
        } else if (path.startsWith(INTERNAL_USERS)) {
            from = INTERNAL_USERS.length();
        } else {
            return -1;
        }
        int to = path.indexOf('/', from);
        try {
            return UserIds.parse(to < 0 ? path.substring(from) : path.substring(from, to), "id");
        } catch (InvalidUserIdException e) {
            return -1; // the check service answers 400 naming it, whichever instance gets it
        }
    }

    @Override
    public String toString() {
        return "ShardAffineLoadBalancer[" + serviceId + "]";
    }
}
