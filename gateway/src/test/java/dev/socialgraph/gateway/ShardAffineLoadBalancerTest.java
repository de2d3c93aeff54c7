package dev.socialgraph.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.client.FollowCheckClient;
import dev.socialgraph.common.shard.ShardAffinity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.client.DefaultServiceInstance;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.DefaultRequest;
import org.springframework.cloud.client.loadbalancer.RequestData;
import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.loadbalancer.support.ServiceInstanceListSuppliers;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.util.LinkedMultiValueMap;
import reactor.core.publisher.Flux;

class ShardAffineLoadBalancerTest {

    private static final List<ServiceInstance> THREE = List.of(instance("check-0", 8001), instance("check-1", 8002),
            instance("check-2", 8003));

    private static ServiceInstance instance(String id, int port) {
        return new DefaultServiceInstance(id, "follow-check-service", "127.0.0.1", port, false);
    }

    private static ShardAffineLoadBalancer balancer(List<ServiceInstance> instances) {
        return new ShardAffineLoadBalancer(ServiceInstanceListSuppliers.toProvider("follow-check-service",
                instances.toArray(ServiceInstance[]::new)), "follow-check-service", 256);
    }

    private static String chosen(ShardAffineLoadBalancer lb, String path) {
        RequestData data = new RequestData(HttpMethod.GET, java.net.URI.create("http://gateway" + path),
                new HttpHeaders(), new LinkedMultiValueMap<>(), java.util.Map.of());
        Response<ServiceInstance> r = lb.choose(new DefaultRequest<>(new RequestDataContext(data))).block();
        return r.hasServer() ? r.getServer().getInstanceId() : null;
    }

    @Test
    void choose_sendsEachUserToTheOwnerOfItsLogicalShard() {
        ShardAffineLoadBalancer lb = balancer(THREE);
        List<String> ids = List.of("check-0", "check-1", "check-2");
        Set<String> used = new HashSet<>();
        for (long user = 1; user <= 600; user++) {
            String expected = ShardAffinity.owner((int) (user % 256), ids);
            for (String suffix : new String[] {"/following/7", "/counts", "/followers?limit=5"}) {
                assertThat(chosen(lb, "/internal/v1/users/" + user + suffix)).as("user %d%s", user, suffix)
                        .isEqualTo(expected);
            }
            assertThat(chosen(lb, "/v1/users/" + user + "/suggestions")).isEqualTo(expected);
            used.add(expected);
        }
        assertThat(used).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void choose_withoutAUserIdInThePath_goesRoundRobin() {
        ShardAffineLoadBalancer lb = balancer(THREE);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            seen.add(chosen(lb, "/internal/v1/users/abc/counts"));
        }
        assertThat(seen).containsExactlyInAnyOrder("check-0", "check-1", "check-2");
    }

    @Test
    void choose_withoutInstances_hasNoServer() {
        assertThat(chosen(balancer(List.of()), "/internal/v1/users/5/counts")).isNull();
    }

    @Test
    void choose_whenAnInstanceIsGone_movesOnlyItsUsers() {
        ShardAffineLoadBalancer all = balancer(THREE);
        ShardAffineLoadBalancer two = balancer(List.of(THREE.get(0), THREE.get(2)));
        for (long user = 1; user <= 512; user++) {
            String before = chosen(all, "/v1/users/" + user + "/counts");
            String after = chosen(two, "/v1/users/" + user + "/counts");
            if (!before.equals("check-1")) {
                assertThat(after).as("user %d", user).isEqualTo(before);
            } else {
                assertThat(after).isIn("check-0", "check-2");
            }
        }
    }

    /**
     * The backend client ({@code graph-client}) sends every logical shard where this balancer does, and
     * fails over to where this balancer sends the shard once its owner has left the list.
     */
    @Test
    void choose_matchesTheBackendClient_forEveryShard_andItsFailOver() {
        List<ServiceInstance> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            all.add(instance("check-" + i, 8001 + i));
        }
        for (int n = 1; n <= all.size(); n++) {
            List<ServiceInstance> instances = all.subList(0, n);
            ShardAffineLoadBalancer lb = balancer(instances);
            FollowCheckClient.Builder b = FollowCheckClient.builder();
            instances.forEach(i -> b.instance(i.getInstanceId(), i.getUri()));
            try (FollowCheckClient client = b.build()) {
                for (int shard = 0; shard < 256; shard++) {
                    long user = shard + 256L * (1 + shard % 3);
                    String gateway = lb.choose(instances, user).getServer().getInstanceId();
                    assertThat(client.instanceFor(user, 0)).as("shard %d of %d instances", shard, n)
                            .isEqualTo(gateway);
                    if (n > 1) {
                        List<ServiceInstance> rest = new ArrayList<>(instances);
                        rest.removeIf(i -> i.getInstanceId().equals(gateway));
                        assertThat(client.instanceFor(user, 1)).as("fail-over of shard %d of %d", shard, n)
                                .isEqualTo(balancer(rest).choose(rest, user).getServer().getInstanceId());
                    }
                }
            }
        }
    }

    @Test
    void choose_refusesTwoInstancesWithOneId() {
        ShardAffineLoadBalancer lb = balancer(List.of(instance("check-0", 8001), instance("check-0", 8002)));
        assertThatThrownBy(() -> chosen(lb, "/v1/users/5/counts")).hasMessageContaining("'check-0' appears twice");
    }

    @Test
    void userId_readsThePathsUserIdAndNothingElse() {
        assertThat(ShardAffineLoadBalancer.userId("/internal/v1/users/42/following/7")).isEqualTo(42);
        assertThat(ShardAffineLoadBalancer.userId("/v1/users/9223372036854775807/counts")).isEqualTo(Long.MAX_VALUE);
        assertThat(ShardAffineLoadBalancer.userId("/v1/users/42")).isEqualTo(42);
        for (String bad : new String[] {"/v1/users/0/counts", "/v1/users/-1/counts", "/v1/users/9223372036854775808/x",
                "/v1/users/abc/counts", "/v1/users//counts", "/v1/me/following/5", "/x/v1/users/5/counts", null}) {
            assertThat(ShardAffineLoadBalancer.userId(bad)).as(bad).isEqualTo(-1);
        }
    }

    @Test
    void idOf_fallsBackToHostAndPort() {
        assertThat(ShardAffineLoadBalancer.idOf(new DefaultServiceInstance(null, "s", "10.0.0.7", 8081, false)))
                .isEqualTo("10.0.0.7:8081");
    }
}
