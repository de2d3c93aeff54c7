package dev.socialgraph.loadgen;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.socialgraph.common.event.FollowEvent;
import dev.socialgraph.common.event.FollowEventJson;
import dev.socialgraph.common.event.GraphEvent;
import dev.socialgraph.common.event.MalformedEventException;
import dev.socialgraph.common.keys.Topics;
import dev.socialgraph.loadgen.Target.ServerProcess;
import dev.socialgraph.wire.Changes;
import dev.socialgraph.wire.Headers;
import dev.socialgraph.wire.InternalApi;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The change stream on a running fleet (docs/decisions/0063-the-change-stream.md): follows at a fixed rate (the
 * {@code writes} workload of {@link OpenLoopRunner}) with no watcher, then with {@code --watchers} server-sent streams
 * open through the gateway ({@code GET /v1/changes}, a {@code graph:changes} token), each filtered to one probe user;
 * the probe follows and unfollows once every {@code --probe-interval} and each watcher times every probe event from
 * the write's acknowledgement to its arrival. Reports the follows' p50 and p99 without and with the watchers, the
 * probe's ack-to-delivery p50, p99 and max over every (event, watcher), the check service's resident memory and CPU
 * per watcher (the difference of the two windows over the watchers), and the gateway's.
 *
 * <p>With {@code --legs} (the default) the same probe events are also timed where they pass on the way: the relay's
 * send (the record's timestamp, set by the producer, in ms), a Kafka consumer of the topic in this process (the relay
 * and the broker), and one stream straight from the check service (everything but the gateway); and the services'
 * lag metrics ({@code graph_check_feed_lag_seconds}, {@code graph_outbox_backlog},
 * {@code graph_outbox_oldest_age_seconds}) are read from their management ports every second of the recorded windows.
 *
 * <p>Each arrival is kept with its event id and matched to the probe's acknowledgement at the end: an event that
 * arrives before the probe's thread has read its write's answer (a fast delivery) is timed too.
 *
 * <p>Run: {@code java -cp support/benchmarks/target/loadgen.jar dev.socialgraph.loadgen.WatchBench --fleet .graph
 * --dataset …}. Prints a Markdown table; exit status 0.
 */
@Command(name = "watch-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Server-sent change-stream watchers on a running fleet: delivery latency, follow latency, cost per watcher.")
public final class WatchBench implements Callable<Integer> {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Option(names = "--fleet", defaultValue = ".graph", description = "the launcher's data directory (default: ${DEFAULT-VALUE})")
    Path fleet;

    @Option(names = "--dataset", required = true, description = "edge list the fleet was loaded with, for the follow load")
    Path dataset;

    @Option(names = "--watchers", defaultValue = "1000", description = "server-sent streams to open (default: ${DEFAULT-VALUE})")
    int watchers;

    @Option(names = "--follow-rate", defaultValue = "100", description = "follows and unfollows per second of the load (default: ${DEFAULT-VALUE})")
    double followRate;

    @Option(names = "--window", defaultValue = "20s", converter = Loadgen.DurationConverter.class,
            description = "recording window of each phase (default: ${DEFAULT-VALUE})")
    Duration window;

    @Option(names = "--probe", defaultValue = "990000001:990000002", description = "ACTOR:TARGET of the probe follows (default: ${DEFAULT-VALUE})")
    String probe;

    @Option(names = "--probe-interval", defaultValue = "100ms", converter = Loadgen.DurationConverter.class,
            description = "time between two probe writes (default: ${DEFAULT-VALUE})")
    Duration probeInterval;

    @Option(names = "--legs", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "also time the probe at the relay's send, at a Kafka consumer of the topic and on one stream"
                    + " straight from the check service, and read the services' lag metrics (default: ${DEFAULT-VALUE})")
    boolean legs;

    @Option(names = "--via", defaultValue = "gateway", description = "where the watchers connect: gateway (GET /v1/changes"
            + " with a graph:changes token) or check (the check service's own GET /internal/v1/changes with the service"
            + " credential, to tell the gateway's part) (default: ${DEFAULT-VALUE})")
    String via;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** Probe event id → nanoTime of its acknowledgement. */
    private final Map<String, Long> acked = new ConcurrentHashMap<>();
    /** Probe event id → epoch ms of its acknowledgement (for the record's timestamp, which is epoch ms). */
    private final Map<String, Long> ackedMillis = new ConcurrentHashMap<>();
    /** Every (probe event, watcher) arrival through the gateway while {@link #recording}; matched at the end. */
    private final Queue<Arrival> arrivals = new ConcurrentLinkedQueue<>();
    /** The probe's arrivals on the stream straight from the check service. */
    private final Queue<Arrival> directArrivals = new ConcurrentLinkedQueue<>();
    /** The probe's arrivals at this process's consumer of the topic. */
    private final Queue<Arrival> topicArrivals = new ConcurrentLinkedQueue<>();
    /** The probe's records' timestamps (the relay's send, epoch ms), by event id. */
    private final Queue<Arrival> relaySends = new ConcurrentLinkedQueue<>();
    private volatile boolean recording;
    private volatile boolean stopping;
    private final AtomicInteger open = new AtomicInteger();
    private final List<String> failures = new CopyOnWriteArrayList<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new WatchBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Fleet f = Fleet.read(fleet, fleet.resolve("run"));
        String writeUrl = "http://127.0.0.1:" + f.port("follow-write-service", 8082);
        String checkUrl = "http://127.0.0.1:" + f.port("follow-check-service", 8081);
        String gatewayUrl = "http://127.0.0.1:" + f.port("gateway", 8080);
        String serviceToken = Loadgen.serviceToken(null, f);
        String backendToken = token(Loadgen.jwtSecret(null, f), "1", "graph:changes");
        long actor = Long.parseLong(probe.substring(0, probe.indexOf(':')));
        long target = Long.parseLong(probe.substring(probe.indexOf(':') + 1));
        System.out.printf("%s: gateway %s, write %s, check %s; %d watchers via the %s%n",
                ZonedDateTime.now(ZoneOffset.UTC), gatewayUrl, writeUrl, checkUrl, watchers, via);

        HttpTarget writes = HttpTarget.direct(URI.create(checkUrl), URI.create(writeUrl), serviceToken, f.processes());
        EdgeList graph = EdgeList.read(dataset);
        List<ServerProcess> check = f.processes().stream().filter(p -> p.name().startsWith("follow-check")).toList();
        List<ServerProcess> gateway = f.processes().stream().filter(p -> p.name().startsWith("gateway")).toList();

        Thread prober = Thread.ofVirtual().start(() -> probe(writeUrl, serviceToken, actor, target));
        Thread topic = null;
        List<String> metrics = List.of();
        if (legs) {
            String bootstrap = f.ports().getProperty("kafka.bootstrap", "127.0.0.1:9092");
            topic = Thread.ofPlatform().daemon().start(() -> consumeTopic(bootstrap, actor));
            metrics = List.of(prometheusUrl(f, "follow-check-service"), prometheusUrl(f, "follow-write-service"));
        }
        phase("warm-up (not recorded)", writes, graph, check, gateway, 3); // the JIT, and a fleet fresh from an import
        Phase quiet = phase("no watcher", writes, graph, check, gateway, 1);

        // Opened 50 at a time, each from the head as it connects: only what is written after a watcher opened is
        // timed by it, so a late opener does not count the catching up of older events as delivery time.
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        boolean viaCheck = via.equals("check");
        if (!viaCheck && !via.equals("gateway")) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--via is gateway or check, was " + via);
        }
        for (int i = 0; i < watchers && System.nanoTime() < deadline; i++) {
            if (viaCheck) {
                watch(checkUrl + InternalApi.CHANGES.path() + "?users=" + actor, Headers.SERVICE_TOKEN, serviceToken,
                        actor, arrivals, true);
            } else {
                watch(gatewayUrl, backendToken, actor);
            }
            if (i % 50 == 49) {
                while (open.get() < i + 1 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
            }
        }
        while (open.get() < watchers && System.nanoTime() < deadline && failures.isEmpty()) {
            Thread.sleep(100);
        }
        System.out.printf(Locale.ROOT, "%d of %d watchers open%s%n", open.get(), watchers,
                failures.isEmpty() ? "" : "; first failure: " + failures.get(0));
        if (legs) {
            watch(checkUrl + InternalApi.CHANGES.path() + "?users=" + actor, Headers.SERVICE_TOKEN, serviceToken, actor,
                    directArrivals, false);
        }
        Thread.sleep(2_000); // the streams' first checkpoints and the JIT settle
        recording = true;
        MetricMaxima maxima = new MetricMaxima(metrics);
        Thread sampler = Thread.ofVirtual().start(maxima::sampleEverySecond);
        Phase watched = phase(open.get() + " watchers", writes, graph, check, gateway, 2);
        recording = false;
        sampler.interrupt();
        stopping = true;
        prober.interrupt();
        if (topic != null) {
            topic.join(5_000);
        }

        System.out.println();
        System.out.println("| phase | follows p50 / p99 (ms), achieved/s | check service RSS | check CPU | gateway CPU |");
        System.out.println("|---|---|---:|---:|---:|");
        for (Phase p : List.of(quiet, watched)) {
            System.out.printf(Locale.ROOT, "| %s | %.2f / %.2f, %.0f/s%s | %,.0f MB | %.2f cores | %.2f cores |%n",
                    p.name, p.result.latencyMillis(50), p.result.latencyMillis(99), p.result.achievedRate(),
                    p.result.errors() > 0 ? ", " + p.result.errors() + " errors" : "", p.rssBytes / 1e6,
                    p.checkCores, p.gatewayCores);
        }
        int n = Math.max(1, open.get());
        System.out.println();
        System.out.printf(Locale.ROOT, "Per watcher: check service %.1f KB resident, %.0f µs CPU/s; gateway %.0f µs CPU/s%n",
                (watched.rssBytes - quiet.rssBytes) / 1e3 / n, (watched.checkCores - quiet.checkCores) * 1e6 / n,
                (watched.gatewayCores - quiet.gatewayCores) * 1e6 / n);
        Histogram delivery = histogram(arrivals, acked, 1);
        System.out.printf(Locale.ROOT, "Probe ack -> delivery over %,d deliveries: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                delivery.getTotalCount(), delivery.getValueAtPercentile(50) / 1e6,
                delivery.getValueAtPercentile(99) / 1e6, delivery.getMaxValue() / 1e6);
        if (legs) {
            System.out.println();
            System.out.println("| probe ack -> | events | p50 (ms) | p99 (ms) | max (ms) |");
            System.out.println("|---|---:|---:|---:|---:|");
            leg("the relay's send (record timestamp, ms; 0 = before the ack)", histogram(relaySends, ackedMillis,
                    1_000_000));
            leg("a consumer of the topic (relay + broker)", histogram(topicArrivals, acked, 1));
            leg("one stream straight from the check service", histogram(directArrivals, acked, 1));
            leg(viaCheck ? "the watchers, straight from the check service" : "the watchers through the gateway",
                    delivery);
            System.out.println();
            System.out.println("Lag metrics, highest of the per-second samples of the recorded window: "
                    + maxima.summary());
        }
        if (!failures.isEmpty()) {
            System.out.printf("%d watcher failures; first: %s%n", failures.size(), failures.get(0));
        }
        System.exit(0); // the streams' threads would keep the JVM
        return 0;
    }

    /** A recording window of the follow load, with the check service's and gateway's CPU and memory over it. */
    private Phase phase(String name, HttpTarget writes, EdgeList graph, List<ServerProcess> check,
                        List<ServerProcess> gateway, long seed) throws Exception {
        Map<String, Double> cpu0 = CpuTimes.sample(check);
        Map<String, Double> gw0 = CpuTimes.sample(gateway);
        long t0 = System.nanoTime();
        StepResult result = new OpenLoopRunner(32, Duration.ofSeconds(2), window, 0.9)
                .run(writes, Workload.WRITES, Workload.WRITES.source(graph, seed), followRate);
        double seconds = (System.nanoTime() - t0) / 1e9;
        double checkCores = (sum(CpuTimes.sample(check)) - sum(cpu0)) / seconds;
        double gatewayCores = (sum(CpuTimes.sample(gateway)) - sum(gw0)) / seconds;
        long rss = 0;
        for (ServerProcess p : check) {
            rss += rss(p.pid());
        }
        System.out.printf(Locale.ROOT, "%s: follows p50 %.2f ms, p99 %.2f ms; check %.2f cores, gateway %.2f cores%n",
                name, result.latencyMillis(50), result.latencyMillis(99), checkCores, gatewayCores);
        return new Phase(name, result, rss, checkCores, gatewayCores);
    }

    private record Phase(String name, StepResult result, long rssBytes, double checkCores, double gatewayCores) {
    }

    private static double sum(Map<String, Double> cpu) {
        return cpu.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Resident memory of a process, from {@code /proc/<pid>/status}. */
    private static long rss(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (java.io.IOException e) {
            // gone: counted as none
        }
        return 0;
    }

    /** Follows and unfollows {@code actor -> target} every probe interval, noting each write's ack by its event id. */
    private void probe(String writeUrl, String serviceToken, long actor, long target) {
        boolean follow = true;
        URI uri = URI.create(writeUrl + InternalApi.USERS + "/" + actor + "/following/" + target);
        while (!Thread.currentThread().isInterrupted()) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).header(Headers.SERVICE_TOKEN, serviceToken)
                        .method(follow ? "PUT" : "DELETE", HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
                long ackNanos = System.nanoTime();
                long ackMillis = System.currentTimeMillis();
                JsonNode state = JSON.readTree(r.body());
                if (r.statusCode() == 200 && state.has("version")) {
                    String eventId = actor + "-" + state.get("version").asLong();
                    acked.put(eventId, ackNanos);
                    ackedMillis.put(eventId, ackMillis);
                }
                follow = !follow;
                Thread.sleep(probeInterval);
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                failures.add("probe: " + e);
            }
        }
    }

    /**
     * Opens one server-sent stream filtered to the probe's actor, from the head, timing the arrival of each probe
     * event acknowledged after the stream's first line (its opening checkpoint).
     */
    private void watch(String gatewayUrl, String token, long actor) {
        watch(gatewayUrl + "/v1/changes?users=" + actor, "Authorization", "Bearer " + token, actor, arrivals, true);
    }

    /**
     * Opens one server-sent stream at {@code url} and keeps each probe event's arrival (with the time the stream
     * opened) in {@code into} while recording; {@code counted} streams count towards {@link #open}.
     */
    private void watch(String url, String header, String credential, long actor, Queue<Arrival> into,
                       boolean counted) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .header(header, credential).header("Accept", "text/event-stream").build();
        boolean countsAsWatcher = counted;
        http.sendAsync(request, HttpResponse.BodyHandlers.fromLineSubscriber(new Flow.Subscriber<String>() {
            private boolean counted;
            private long openedNanos;

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(String line) {
                if (!counted) {
                    counted = true;
                    openedNanos = System.nanoTime();
                    if (countsAsWatcher) {
                        open.incrementAndGet();
                    }
                }
                if (recording && line.startsWith("data:") && line.contains("\"eventId\"")) {
                    long now = System.nanoTime();
                    into.add(new Arrival(Changes.readEvent(line.substring(5).strip()).eventId(), now, openedNanos));
                }
            }

            @Override
            public void onError(Throwable throwable) {
                failures.add(throwable.toString());
            }

            @Override
            public void onComplete() {
                failures.add("a stream ended");
            }
        })).whenComplete((response, error) -> {
            if (error != null) {
                failures.add(error.toString());
            } else if (response.statusCode() != 200) {
                failures.add("status " + response.statusCode());
            }
        });
    }

    /** One probe event's arrival somewhere, and since when that observer watched (times in its own unit). */
    private record Arrival(String eventId, long at, long since) {
    }

    /**
     * The arrivals matched to their acknowledgements: only events acknowledged after the observer opened, each
     * {@code (at - ack) * scale} ns, at least 0.
     */
    private static Histogram histogram(Queue<Arrival> arrivals, Map<String, Long> acks, long scale) {
        Histogram h = new Histogram(3); // auto-resizing: a stalled fleet's minutes fit too
        for (Arrival a : arrivals) {
            Long ack = acks.get(a.eventId());
            if (ack != null && ack > a.since()) {
                h.recordValue(Math.max(0, (a.at() - ack) * scale));
            }
        }
        return h;
    }

    private static void leg(String name, Histogram h) {
        System.out.printf(Locale.ROOT, "| %s | %,d | %.1f | %.1f | %.1f |%n", name, h.getTotalCount(),
                h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6);
    }

    /**
     * Reads the topic from its end, as the check service's feed does (every partition assigned, no group), keeping
     * the probe's records' arrivals and their timestamps (the relay's producer sets them at its send).
     */
    private void consumeTopic(String bootstrap, long actor) {
        java.util.Properties config = new java.util.Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        long since = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config)) {
            List<TopicPartition> all = new ArrayList<>();
            for (PartitionInfo p : c.partitionsFor(Topics.FOLLOW_EVENTS, Duration.ofSeconds(10))) {
                all.add(new TopicPartition(p.topic(), p.partition()));
            }
            c.assign(all);
            c.seekToEnd(all);
            for (TopicPartition tp : all) {
                c.position(tp);
            }
            while (!stopping) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    if (!recording) {
                        continue;
                    }
                    GraphEvent parsed;
                    try {
                        parsed = FollowEventJson.parse(r.value());
                    } catch (MalformedEventException ex) {
                        continue;
                    }
                    if (parsed instanceof FollowEvent e && e.followerId() == actor) {
                        topicArrivals.add(new Arrival(e.eventId(), now, since));
                        relaySends.add(new Arrival(e.eventId(), r.timestamp(), 0));
                    }
                }
            }
        } catch (RuntimeException e) {
            failures.add("topic consumer: " + e);
        }
    }

    /**
     * A service's Prometheus endpoint on the management port the fleet's {@code run/ports.properties} names
     * ({@code <service>.management}); without one, port 0, which no scrape reaches (its metrics then read "absent").
     */
    private static String prometheusUrl(Fleet f, String service) {
        return "http://127.0.0.1:" + f.port(service + ".management", 0) + "/actuator/prometheus";
    }

    /** The highest value of each lag metric over per-second scrapes of the services' management ports. */
    private final class MetricMaxima {
        private static final List<String> NAMES = List.of("graph_check_feed_lag_seconds", "graph_outbox_backlog",
                "graph_outbox_oldest_age_seconds");
        private final List<String> urls;
        private final Map<String, Double> max = new LinkedHashMap<>();
        private int scrapes;

        MetricMaxima(List<String> urls) {
            this.urls = urls;
        }

        void sampleEverySecond() {
            while (!Thread.currentThread().isInterrupted()) {
                for (String url : urls) {
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                        synchronized (this) {
                            scrapes++;
                            for (String line : r.body().split("\n")) {
                                for (String name : NAMES) {
                                    if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                                        double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                                        max.merge(name, v, Math::max);
                                    }
                                }
                            }
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        // a scrape missed: the others count
                    }
                }
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        synchronized String summary() {
            StringBuilder sb = new StringBuilder();
            for (String name : NAMES) {
                sb.append(sb.isEmpty() ? "" : ", ").append(name).append(' ')
                        .append(max.containsKey(name) ? String.format(Locale.ROOT, "%.3f", max.get(name)) : "absent");
            }
            return sb.append(" (").append(scrapes).append(" scrapes)").toString();
        }
    }

    /** An HS256 token for {@code subject} with {@code scope}, valid for an hour. */
    private static String token(String secret, String subject, String scope) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).claim("scope", scope)
                .expirationTime(Date.from(Instant.now().plusSeconds(3600))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }
}
