package dev.socialgraph.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The five services of a local fleet and the settings that tie them to its stores, in start order: the write
 * service first (it creates and migrates the shard databases; further write instances do not), then the
 * cdc-consumer(s), the check instance(s), the reconciler and the gateway, which lists every check and write
 * instance. Property names are the services' own ({@code graph.*}, see each service's README).
 * With a Redis Cluster, every Redis client is told the cluster's seeds and mode; with several PostgreSQL servers,
 * every service is told where each shard database lives ({@code graph.postgres.servers.<database>}). Every service
 * but the gateway is told the shard directory ({@code graph.shards.directory.jdbc-url}, {@link
 * Stores.Endpoints#directoryUrl()}) and follows shard moves while it runs.
 * Every one of them, the gateway included, listens on 127.0.0.1 only ({@code server.address}), its API on its port
 * and its actuator on its management port ({@code management.server.port}, {@link PortPlan#managementPort}); the service
 * credential goes to each of them as the environment variable {@code GRAPH_SERVICE_TOKEN} ({@link Secrets}), not
 * here, so it does not show in {@code ps}.
 */
final class Specs {

    /** The services' {@code redis-mode} (the write service's {@code redis.mode}) for a Redis Cluster. */
    static final String CLUSTER = "cluster";

    /** The address every process of a local fleet listens on: nothing of it is reachable from the network. */
    static final String LOOPBACK = "127.0.0.1";

    /**
     * The first JDK whose JVM knows {@code -XX:+UseCompactObjectHeaders} as a product flag (JEP 519). JDK 24 has it
     * only as an experimental flag (JEP 450, behind {@code -XX:+UnlockExperimentalVMOptions}) and JDK 21 not at all:
     * either refuses to start with it.
     */
    static final int COMPACT_HEADERS_SINCE = 25;

    /** The feature version of the JVM the services run on: the launcher's own ({@link ServiceFleet#command}). */
    static final int RUNTIME_FEATURE = Runtime.version().feature();

    /** The check service's heap: its in-process layers (bloom slice, following cache, views) and their churn. */
    static final String CHECK_HEAP = "768m";

    /**
     * The check service's JVM flags: G1 with the whole heap from the start ({@code -Xms} = {@code -Xmx}, touched at
     * start-up). Started at 64 MB, the heap grew around a ~55 MB live set whose share of it kept G1's concurrent
     * marking running almost all the time under load; sized from the start, G1 ran no concurrent cycle under load.
     * Measured against generational ZGC with the same heap (docs/benchmarks.md, "The check service's collector"): the
     * same p99.9 at one connection, 0.85× the checks per second at 32 connections, more CPU per check.
     */
    static final List<String> CHECK_JVM_OPTIONS = List.of("-Xms" + CHECK_HEAP, "-XX:+AlwaysPreTouch");

    /** The prefix of Spring Cloud's static instance lists, which the gateway's load balancer reads. */
    static final String SIMPLE_DISCOVERY = "spring.cloud.discovery.client.simple.instances.";

    private Specs() {
    }

    /**
     * The affinity id of the {@code i}th check instance ({@code graph.check.affinity.instance-id}, the gateway list's
     * {@code instance-id}, the {@code X-Served-By} answer).
     *
     * @return {@code check-<i>}
     */
    static String checkId(int i) {
        return "check-" + i;
    }

    /**
     * The gateway's JVM flags for a JVM of the given feature version: the throughput collector (its heap is mostly
     * short-lived request garbage, and G1's concurrent marking of a small heap ran almost continuously), compact
     * object headers where the JVM has them as a product flag (from {@link #COMPACT_HEADERS_SINCE}), and one event
     * loop. With two, a request arriving on one loop was often proxied over a pooled connection that lives on the
     * other, a thread hand-off each way; on a machine whose two cores the whole fleet shares, the gateway gets about
     * one core anyway. Measured on the bare route at one connection (docs/benchmarks.md, "One event loop for the local
     * gateway"): p50 about 380 against 560–940 µs, 321 against 414 µs of gateway CPU per request, and no less
     * throughput at 32 connections.
     *
     * @param javaFeature the JVM's feature version ({@link Runtime.Version#feature()}), 21 or more
     * @return the flags, each one the JVM of that version accepts
     */
    static List<String> gatewayJvmOptions(int javaFeature) {
        List<String> options = new ArrayList<>();
        options.add("-XX:+UseParallelGC");
        if (javaFeature >= COMPACT_HEADERS_SINCE) {
            options.add("-XX:+UseCompactObjectHeaders");
        }
        options.add("-Dreactor.netty.ioWorkerCount=1");
        return List.copyOf(options);
    }

    /**
     * The fleet's services with their settings, for services run on this JVM's version ({@link #RUNTIME_FEATURE}).
     *
     * @param instances how many of each scaled-out service
     * @return the services in start order (see the other overload)
     */
    static List<ServiceFleet.Spec> of(PortPlan ports, Stores.Endpoints stores, FleetDir dir, long celebrityThreshold,
                                      int pageSize, Instances instances) {
        return of(ports, stores, dir, celebrityThreshold, pageSize, instances, RUNTIME_FEATURE);
    }

    /**
     * The fleet's services with their settings.
     *
     * @param instances   how many of each scaled-out service
     * @param javaFeature the feature version of the JVM the services will run on: JVM flags newer JDKs alone know are
     *                    passed only to JVMs that know them
     * @return the services in start order: the write instances (the first alone migrates the shard schema and must
     *     be ready before the rest start), the cdc-consumers, the check instances, the reconciler, the gateway
     */
    static List<ServiceFleet.Spec> of(PortPlan ports, Stores.Endpoints stores, FleetDir dir, long celebrityThreshold,
                                      int pageSize, Instances instances, int javaFeature) {
        String bloomDir = dir.bloom().toAbsolutePath().toString();
        List<ServiceFleet.Spec> specs = new ArrayList<>();

        List<String> writeNames = instances.writeNames();
        for (int i = 0; i < writeNames.size(); i++) {
            Map<String, String> write = shards(stores);
            if (i > 0) {
                // The first instance creates and migrates the shard databases and is ready before the others start
                // (GraphLauncher.Fleet); they find the schema current. Every instance runs the outbox relays: per
                // database the one holding its advisory lock publishes, the others stand by.
                write.put("graph.shards.create-databases", "false");
                write.put("graph.shards.migrate-on-startup", "false");
            }
            write.put("graph.write.redis.uri", stores.redisUri());
            if (stores.isRedisCluster()) {
                write.put("graph.write.redis.mode", CLUSTER);
            }
            write.put("graph.write.relay.bootstrap-servers", stores.kafkaBootstrap());
            specs.add(new ServiceFleet.Spec(writeNames.get(i), "follow-write-service", ports.port(writeNames.get(i)),
                    "384m", write));
        }

        // One consumer group (the service's default graph.cdc.group-id): Kafka deals the topic's partitions out over
        // however many instances run.
        for (String name : instances.cdcNames()) {
            Map<String, String> cdc = shards(stores);
            cdc.put("spring.kafka.bootstrap-servers", stores.kafkaBootstrap());
            cdc.put("graph.cdc.redis-uri", stores.redisUri());
            if (stores.isRedisCluster()) {
                cdc.put("graph.cdc.redis-mode", CLUSTER);
            }
            cdc.put("graph.cdc.celebrity-threshold", Long.toString(celebrityThreshold));
            cdc.put("graph.cdc.page-size", Integer.toString(pageSize));
            specs.add(new ServiceFleet.Spec(name, "cdc-consumer", ports.port(name), "384m", cdc));
        }

        List<String> checkNames = instances.checkNames();
        // With several instances each owns the logical shards ShardAffinity gives its id (check-0, check-1, ...),
        // loads only their edges into its bloom filter, and the gateway routes each user's reads to the owner. One
        // instance owns every shard (an empty list) and keeps the bloom snapshot path.
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < checkNames.size(); i++) {
            ids.add(checkId(i));
        }
        String idList = checkNames.size() > 1 ? String.join(",", ids) : "";
        for (int i = 0; i < checkNames.size(); i++) {
            String name = checkNames.get(i);
            Map<String, String> check = shards(stores);
            check.put("graph.check.affinity.instance-id", ids.get(i));
            check.put("graph.check.affinity.instances", idList);
            check.put("graph.check.redis-uri", stores.redisUri());
            if (stores.isRedisCluster()) {
                check.put("graph.check.redis-mode", CLUSTER);
            }
            check.put("graph.check.bloom.kafka-bootstrap", stores.kafkaBootstrap());
            check.put("graph.check.bloom.snapshot-dir", bloomDir);
            // Five JVMs start at once on a small machine: give the bloom filter's Kafka consumer time to connect
            // (the service default of 10 s left it off on a loaded 2-core machine; checks stay correct without it).
            check.put("graph.check.bloom.start-timeout", "60s");
            specs.add(new ServiceFleet.Spec(name, "follow-check-service", ports.port(name), CHECK_HEAP, check,
                    CHECK_JVM_OPTIONS));
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
        String checkList = SIMPLE_DISCOVERY + "follow-check-service";
        for (int i = 0; i < checkNames.size(); i++) {
            gateway.put(checkList + "[" + i + "].instance-id", ids.get(i));
            gateway.put(checkList + "[" + i + "].uri", "http://127.0.0.1:" + ports.port(checkNames.get(i)));
        }
        if (writeNames.size() > 1) {
            // Replaces the gateway's default list (one instance at graph.gateway.write-uri) whole; Spring Cloud
            // LoadBalancer's round robin spreads the writes over it.
            String writeList = SIMPLE_DISCOVERY + "follow-write-service";
            for (int i = 0; i < writeNames.size(); i++) {
                gateway.put(writeList + "[" + i + "].instance-id", "write-" + i);
                gateway.put(writeList + "[" + i + "].uri", "http://127.0.0.1:" + ports.port(writeNames.get(i)));
            }
        }
        specs.add(new ServiceFleet.Spec(PortPlan.GATEWAY, "gateway", ports.port(PortPlan.GATEWAY), "384m", gateway,
                gatewayJvmOptions(javaFeature)));
        List<ServiceFleet.Spec> loopback = new ArrayList<>();
        for (ServiceFleet.Spec spec : specs) {
            Map<String, String> properties = new LinkedHashMap<>(spec.properties());
            properties.put("server.address", LOOPBACK);
            // The actuator on a port of its own, on the loopback interface too (the services bind it like the API).
            properties.put(ServiceFleet.MANAGEMENT_PORT, Integer.toString(ports.managementPort(spec.name())));
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
        // Every shard client routes by the directory's newest map, so shards can move while the fleet runs
        // (./graph shards move). The first write instance (graph.shards.create-databases=true, its local default)
        // creates the database and publishes the configured map as version 1 before the others start.
        m.put("graph.shards.directory.jdbc-url", stores.directoryUrl());
        return m;
    }
}
