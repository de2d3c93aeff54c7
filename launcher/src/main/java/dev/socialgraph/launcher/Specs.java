package dev.socialgraph.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The five services of a local fleet and the settings that tie them to its stores, in start order: the write
 * service first (it creates and migrates the shard databases), then cdc-consumer, the check instance(s), the
 * reconciler and the gateway. Property names are the services' own ({@code graph.*}, see each service's README).
 * With a Redis Cluster, every Redis client is told the cluster's seeds and mode; with several PostgreSQL servers,
 * every service is told where each shard database lives ({@code graph.postgres.servers.<database>}).
 * Every one of them, the gateway included, listens on 127.0.0.1 only ({@code server.address}); the service
 * credential goes to each of them as the environment variable {@code GRAPH_SERVICE_TOKEN} ({@link Secrets}), not
 * here, so it does not show in {@code ps}.
 */
final class Specs {

    /** The services' {@code redis-mode} (the write service's {@code redis.mode}) for a Redis Cluster. */
    static final String CLUSTER = "cluster";

    /** The address every process of a local fleet listens on: nothing of it is reachable from the network. */
    static final String LOOPBACK = "127.0.0.1";

    /**
     * The gateway's JVM flags, the ones gateway/README.md recommends: the throughput collector (its heap is mostly
     * short-lived request garbage, and G1's concurrent marking of a small heap ran almost continuously), compact
     * object headers, and two event loops rather than Reactor Netty's minimum of four on a machine it shares with
     * the whole fleet. Measured on a warm gateway's bare route at one connection (docs/benchmarks.md): 42 % less CPU
     * per proxied request than the same build with default flags (median of six interleaved pairs).
     */
    static final List<String> GATEWAY_JVM_OPTIONS = List.of("-XX:+UseParallelGC", "-XX:+UseCompactObjectHeaders",
            "-Dreactor.netty.ioWorkerCount=2");

    private Specs() {
    }

    static List<ServiceFleet.Spec> of(PortPlan ports, Stores.Endpoints stores, FleetDir dir, long celebrityThreshold,
                                      int pageSize, int checkInstances) {
        String bloomDir = dir.bloom().toAbsolutePath().toString();
        List<ServiceFleet.Spec> specs = new ArrayList<>();

        Map<String, String> write = shards(stores);
        write.put("graph.write.redis.uri", stores.redisUri());
        if (stores.isRedisCluster()) {
            write.put("graph.write.redis.mode", CLUSTER);
        }
        write.put("graph.write.relay.bootstrap-servers", stores.kafkaBootstrap());
        specs.add(new ServiceFleet.Spec(PortPlan.WRITE, "follow-write-service", ports.port(PortPlan.WRITE), "384m", write));

        Map<String, String> cdc = shards(stores);
        cdc.put("spring.kafka.bootstrap-servers", stores.kafkaBootstrap());
        cdc.put("graph.cdc.redis-uri", stores.redisUri());
        if (stores.isRedisCluster()) {
            cdc.put("graph.cdc.redis-mode", CLUSTER);
        }
        cdc.put("graph.cdc.celebrity-threshold", Long.toString(celebrityThreshold));
        cdc.put("graph.cdc.page-size", Integer.toString(pageSize));
        specs.add(new ServiceFleet.Spec(PortPlan.CDC, "cdc-consumer", ports.port(PortPlan.CDC), "384m", cdc));

        List<String> checkNames = checkInstances == 2 ? List.of(PortPlan.CHECK, PortPlan.CHECK_2) : List.of(PortPlan.CHECK);
        // With two instances each owns the logical shards ShardAffinity gives its id (check-0, check-1), loads only
        // their edges into its bloom filter, and the gateway routes each user's reads to the owner.
        String instances = checkInstances == 2 ? "check-0,check-1" : "";
        for (int i = 0; i < checkNames.size(); i++) {
            String name = checkNames.get(i);
            Map<String, String> check = shards(stores);
            check.put("graph.check.affinity.instance-id", "check-" + i);
            check.put("graph.check.affinity.instances", instances);
            check.put("graph.check.redis-uri", stores.redisUri());
            if (stores.isRedisCluster()) {
                check.put("graph.check.redis-mode", CLUSTER);
            }
            check.put("graph.check.bloom.kafka-bootstrap", stores.kafkaBootstrap());
            check.put("graph.check.bloom.snapshot-dir", bloomDir);
            // Five JVMs start at once on a small machine: give the bloom filter's Kafka consumer time to connect
            // (the service default of 10 s left it off on a loaded 2-core machine; checks stay correct without it).
            check.put("graph.check.bloom.start-timeout", "60s");
            specs.add(new ServiceFleet.Spec(name, "follow-check-service", ports.port(name), "768m", check));
        }

        Map<String, String> reconciler = shards(stores);
        reconciler.put("graph.reconciler.bloom.kafka-bootstrap", stores.kafkaBootstrap());
        reconciler.put("graph.reconciler.bloom.snapshot-dir", bloomDir);
        specs.add(new ServiceFleet.Spec(PortPlan.RECONCILER, "reconciler", ports.port(PortPlan.RECONCILER), "384m",
                reconciler));

        Map<String, String> gateway = new LinkedHashMap<>();
        if (stores.isRedisCluster()) {
            // Spring Data Redis' Lettuce cluster client: it discovers the topology from these seeds, and refreshes it
            // every second and on MOVED/ASK redirects or lost connections, so a failover costs the rate limiter about
            // the cluster's own failover time (it fails open meanwhile).
            gateway.put("spring.data.redis.cluster.nodes", stores.redisNodes());
            gateway.put("spring.data.redis.lettuce.cluster.refresh.adaptive", "true");
            gateway.put("spring.data.redis.lettuce.cluster.refresh.period", "1s");
        } else {
            gateway.put("spring.data.redis.host", stores.redisHost());
            gateway.put("spring.data.redis.port", Integer.toString(stores.redisPort()));
        }
        gateway.put("graph.gateway.check-uri", "http://127.0.0.1:" + ports.port(PortPlan.CHECK));
        gateway.put("graph.gateway.write-uri", "http://127.0.0.1:" + ports.port(PortPlan.WRITE));
        String list = "spring.cloud.discovery.client.simple.instances.follow-check-service";
        for (int i = 0; i < checkNames.size(); i++) {
            gateway.put(list + "[" + i + "].instance-id", "check-" + i);
            gateway.put(list + "[" + i + "].uri", "http://127.0.0.1:" + ports.port(checkNames.get(i)));
        }
        specs.add(new ServiceFleet.Spec(PortPlan.GATEWAY, "gateway", ports.port(PortPlan.GATEWAY), "384m", gateway,
                GATEWAY_JVM_OPTIONS));
        List<ServiceFleet.Spec> loopback = new ArrayList<>();
        for (ServiceFleet.Spec spec : specs) {
            Map<String, String> properties = new LinkedHashMap<>(spec.properties());
            properties.put("server.address", LOOPBACK);
            loopback.add(new ServiceFleet.Spec(spec.name(), spec.module(), spec.port(), spec.heap(), properties,
                    spec.jvmOptions()));
        }
        return loopback;
    }

    private static Map<String, String> shards(Stores.Endpoints stores) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("graph.postgres.host", stores.postgresHost());
        m.put("graph.postgres.port", Integer.toString(stores.postgresPort()));
        m.put("graph.shards.username", stores.postgresUser());
        // graph-shards-local.yml puts a database on graph.postgres.host:port unless this names another server.
        stores.databaseServers().forEach((database, server) ->
                m.put("graph.postgres.servers." + database, server.toString()));
        return m;
    }
}
