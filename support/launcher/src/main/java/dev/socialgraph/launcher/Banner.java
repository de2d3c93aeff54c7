package dev.socialgraph.launcher;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/** What {@code ./graph up} prints once the fleet is ready: where everything is, a token, and a curl per endpoint. */
final class Banner {

    private Banner() {
    }

    static String text(PortPlan ports, Instances instances, Stores.Endpoints stores, Secrets secrets,
                       Properties imported, double startupSeconds, FleetDir dir) {
        String a = imported.getProperty("sample-follower", "1");
        String b = imported.getProperty("sample-followee", "2");
        String token = DevTokens.mint(secrets.jwtSecret(), Long.parseLong(a), Duration.ofHours(24), Instant.now());
        String gw = "http://127.0.0.1:" + ports.port(PortPlan.GATEWAY);
        String auth = "-H \"Authorization: Bearer $TOKEN\"";
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("%nThe social graph fleet is ready (started in %.1f s).%n%n", startupSeconds));
        sb.append(String.format("  gateway     %s   (public API /v1, bearer JWT; OpenAPI at %s/openapi.yaml)%n", gw, gw));
        sb.append(String.format("  services    %s%n", services(ports, instances)));
        sb.append(String.format("  management  each service's API port + %d (gateway :%d): /actuator/health, /actuator/prometheus%n",
                PortPlan.MANAGEMENT_PORT_DISTANCE, ports.managementPort(PortPlan.GATEWAY)));
        sb.append(String.format("              internal API: -H \"X-Service-Token: $(cat %s)\"%n",
                dir.root().resolve("service-token")));
        sb.append(String.format("  stores      %s%n", stores(stores)));
        sb.append(String.format("  graph       %s (celebrity threshold %s, pages of %s)%n", imported.getProperty("dataset"),
                imported.getProperty("celebrity-threshold"), imported.getProperty("page-size")));
        sb.append(String.format("  data, logs  %s, %s%n%n", dir.root(), dir.logs()));
        sb.append(String.format("A token for user %s (24 h; './graph token USER_ID' mints others):%n%n", a));
        sb.append("  export TOKEN=").append(token).append("\n\n");
        sb.append("Try:\n\n");
        sb.append(String.format("  curl %s %s/v1/users/%s/following/%s%n", auth, gw, a, b));
        sb.append(String.format("  curl %s '%s/v1/users/%s/following?limit=10'%n", auth, gw, a));
        sb.append(String.format("  curl %s '%s/v1/users/%s/followers?limit=10'%n", auth, gw, b));
        sb.append(String.format("  curl %s %s/v1/users/%s/counts%n", auth, gw, a));
        sb.append(String.format("  curl %s -H 'Content-Type: application/json' -d '{\"ids\":[%s,1,2]}' %s/v1/users/%s/following/contains%n",
                auth, b, gw, a));
        sb.append(String.format("  curl %s %s/v1/users/%s/common-following/%s%n", auth, gw, a, b));
        sb.append(String.format("  curl %s %s/v1/users/%s/relationship/%s%n", auth, gw, a, b));
        sb.append(String.format("  curl %s %s/v1/users/%s/suggestions%n", auth, gw, a));
        sb.append(String.format("  curl %s -X PUT %s/v1/me/following/42      # follow 42 as user %s%n", auth, gw, a));
        sb.append(String.format("  curl %s -X DELETE %s/v1/me/following/42   # unfollow%n", auth, gw));
        sb.append(String.format("  curl %s -X PUT %s/v1/me/blocking/43       # block 43 (and stop following it)%n",
                auth, gw));
        sb.append(String.format("  curl %s -X PUT %s/v1/me/muting/44         # mute 44%n", auth, gw));
        sb.append(String.format("  curl %s -H 'Content-Type: application/json' -d '{\"ids\":[43,44,%s]}' %s/v1/me/hidden%n%n",
                auth, b, gw));
        sb.append("Stop with Ctrl-C (foreground) or ./graph down.\n");
        return sb.toString();
    }

    /**
     * The services' ports in one line, every instance's: {@code check :8081  write :8082  cdc-consumer :8083
     * reconciler :8084} for a standard fleet, {@code check :8081 :8085 :8086  write :8082 :8092 ...} with more.
     */
    static String services(PortPlan ports, Instances instances) {
        return "check " + ports(ports, instances.checkNames()) + "  write " + ports(ports, instances.writeNames())
                + "  cdc-consumer " + ports(ports, instances.cdcNames()) + "  reconciler :"
                + ports.port(PortPlan.RECONCILER);
    }

    private static String ports(PortPlan ports, List<String> names) {
        return names.stream().map(n -> ":" + ports.port(n)).collect(Collectors.joining(" "));
    }

    /**
     * The stores in one line, e.g. {@code PostgreSQL 127.0.0.1:15432  Redis 127.0.0.1:16379  Kafka 127.0.0.1:19092};
     * a Redis Cluster as its port range with its masters and replicas.
     */
    static String stores(Stores.Endpoints stores) {
        String postgres = stores.postgresServers().stream().map(Stores.HostPort::toString)
                .collect(Collectors.joining(" "));
        String redis = stores.isRedisCluster()
                ? "Redis Cluster " + stores.redisCluster().get(0) + "-"
                        + stores.redisCluster().get(stores.redisCluster().size() - 1).port() + " (3 masters + 3 replicas)"
                : "Redis " + stores.redisHost() + ":" + stores.redisPort();
        return "PostgreSQL " + postgres + "  " + redis + "  Kafka " + stores.kafkaBootstrap();
    }
}
