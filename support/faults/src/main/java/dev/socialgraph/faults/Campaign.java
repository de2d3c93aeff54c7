package dev.socialgraph.faults;

import dev.socialgraph.launcher.DevTokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A fault campaign on a running {@link Fleet}: the malformed-request corpus first (the graph must not change),
 * then the recorded {@link Workload} while every {@link Fault} runs {@code cycles} times, then, once the
 * workload stops and the staleness bound has passed, the stored graph read back through the gateway from both sides
 * (each actor's following list, each target's follower list, a check of every pair and the counts, again each second
 * until they agree or {@code convergence} has passed) and compared with the history
 * by the {@link Checker}.
 */
public final class Campaign {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** DESIGN.md 7: a follow reaches every reader within 2 s. */
    static final long BOUND_MS = 2_000;
    /** The canary of the malformed corpus: its following list must be the same before and after. */
    static final long CANARY = 8_000_001L;

    private Campaign() {
    }

    /**
     * How long and how hard to run.
     *
     * @param cycles      how many times every fault runs
     * @param hold        how long a pause, refusal or hang lasts
     * @param recovery    how long the fleet may take to be ready again after a fault
     * @param settle      how long the workload runs on the recovered fleet before the next fault
     * @param convergence how long after the last write the stored graph must have converged (30 s)
     * @param actors      users who follow and unfollow
     * @param targets     users they follow
     * @param writers     writer threads
     * @param readers     reader threads
     * @param pause       each thread's pause between requests
     * @param only        runs only the faults whose names contain one of these words; empty runs all
     */
    public record Settings(int cycles, Duration hold, Duration recovery, Duration settle, Duration convergence,
                           int actors, int targets, int writers, int readers, Duration pause, List<String> only) {

        /** Whether a fault runs in this campaign. */
        boolean runs(Fault fault) {
            return only.isEmpty() || only.stream().anyMatch(fault.name()::contains);
        }

        /**
         * One cycle of each fault, a few minutes: the run {@code ./mvnw verify} includes. The workload settles 2 s
         * between faults: it runs throughout, so the next fault's own seconds also read the recovered fleet.
         */
        public static Settings shortRun() {
            return new Settings(1, Duration.ofSeconds(5), Duration.ofSeconds(180), Duration.ofSeconds(2),
                    Duration.ofSeconds(30), 40, 30, 8, 4, Duration.ofMillis(20), List.of());
        }

        /**
         * The long run (docs/faults.md): {@code cycles} of each fault, 5 s of settling between faults.
         *
         * @param cycles at least 1
         * @return the settings
         */
        public static Settings longRun(int cycles) {
            Settings s = shortRun();
            return new Settings(cycles, s.hold(), s.recovery(), Duration.ofSeconds(5), s.convergence(), s.actors(),
                    s.targets(), s.writers(), s.readers(), s.pause(), s.only());
        }

        /**
         * These settings with another hold, e.g. 30 s to measure the consumer's catch-up after a long pause.
         *
         * @param newHold how long a pause, refusal or hang lasts, positive
         * @return the settings
         */
        public Settings holding(Duration newHold) {
            return new Settings(cycles, newHold, recovery, settle, convergence, actors, targets, writers, readers, pause,
                    only);
        }

        /**
         * These settings with another number of writer threads, each owning five actors (at least the usual 40), e.g.
         * to load the fleet to its write throughput.
         *
         * @param newWriters writer threads, positive
         * @return the settings
         */
        public Settings writing(int newWriters) {
            return new Settings(cycles, hold, recovery, settle, convergence, Math.max(actors, 5 * newWriters), targets,
                    newWriters, readers, pause, only);
        }

        /**
         * These settings running only some faults.
         *
         * @param words the faults whose names contain one of these run; empty runs all
         * @return the settings
         */
        public Settings only(List<String> words) {
            return new Settings(cycles, hold, recovery, settle, convergence, actors, targets, writers, readers, pause,
                    List.copyOf(words));
        }
    }

    /**
     * What the campaign found; every count must be 0 (see {@link #clean()}).
     *
     * @param report       the history against readers and the store
     * @param divergences  pairs on which the following side, the follower side and the check disagree after
     *                     convergence, plus users whose counts disagree with their lists
     * @param crashes      services that restarted although no fault killed them, with the fault they restarted in
     * @param notRecovered faults after which a service was not ready again within the recovery time
     * @param corpus       the malformed corpus's answers
     * @param canaryChanged whether a rejected request changed the canary's following list
     * @param faultLog     each fault with when it ran, on the workload's clock
     */
    public record Result(Checker.Report report, long divergences, List<String> crashes, List<String> notRecovered,
                         MalformedCorpus.Result corpus, boolean canaryChanged, List<String> faultLog,
                         List<String> otherDatabaseFailures) {

        /** Whether every count the fault suite demands to be 0 is 0. */
        public boolean clean() {
            return report.staleReads() == 0 && report.lostAcks() == 0 && report.phantoms() == 0
                    && Checker.Report.total(report.errors()) == 0 && divergences == 0 && crashes.isEmpty()
                    && notRecovered.isEmpty() && corpus.failures().isEmpty() && !canaryChanged
                    && otherDatabaseFailures.isEmpty();
        }

        /** The result as Markdown, for the run's {@code report.md}. */
        public String markdown(Settings settings) {
            StringBuilder sb = new StringBuilder("# Fault campaign\n\n");
            sb.append("Settings: ").append(settings).append("\n\n| what | count |\n|---|---:|\n");
            row(sb, "writes acknowledged", report.writesAcknowledged());
            row(sb, "checks answered", report.checksAnswered());
            row(sb, "lost acknowledged follows", report.lostAcks());
            row(sb, "phantom edges", report.phantoms());
            row(sb, "stale reads past " + BOUND_MS + " ms", report.staleReads());
            row(sb, "divergence after convergence", divergences);
            row(sb, "5xx other than 503 + Retry-After", Checker.Report.total(report.errors()));
            row(sb, "crashes (unplanned restarts)", crashes.size());
            row(sb, "faults not recovered from", notRecovered.size());
            row(sb, "malformed requests sent", corpus.sent());
            row(sb, "malformed requests not answered 4xx problem+json", corpus.failures().size());
            row(sb, "state changed by a rejected request", canaryChanged ? 1 : 0);
            row(sb, "requests of other databases' users failed while one database hung", otherDatabaseFailures.size());
            row(sb, "503 + Retry-After (announced outage)", Checker.Report.total(report.unavailable()));
            row(sb, "no answer (process down)", Checker.Report.total(report.unreachable()));
            sb.append("\nBy kind: errors ").append(report.errors()).append(", 503 ").append(report.unavailable())
                    .append(", no answer ").append(report.unreachable()).append("\n\n## Faults\n\n");
            faultLog.forEach(f -> sb.append("- ").append(f).append('\n'));
            section(sb, "Crashes", crashes);
            section(sb, "Not recovered", notRecovered);
            section(sb, "Violations (first 20)", report.examples());
            section(sb, "Malformed requests answered wrongly", corpus.failures());
            section(sb, "Other databases' users failed while one database hung (first 20)",
                    otherDatabaseFailures.subList(0, Math.min(20, otherDatabaseFailures.size())));
            return sb.toString();
        }

        private static void row(StringBuilder sb, String what, long count) {
            sb.append("| ").append(what).append(" | ").append(count).append(" |\n");
        }

        private static void section(StringBuilder sb, String title, List<String> lines) {
            if (!lines.isEmpty()) {
                sb.append("\n## ").append(title).append("\n\n");
                lines.forEach(l -> sb.append("- ").append(l.replace("\n", " ")).append('\n'));
            }
        }
    }

    /**
     * Runs a campaign.
     *
     * @param fleet    a running, ready fleet with an empty graph
     * @param settings how long and how hard
     * @param out      a directory for {@code history.jsonl} and {@code report.md}
     * @return the findings
     * @throws Exception when the fleet cannot be driven (not a finding: a broken harness)
     */
    public static Result run(Fleet fleet, Settings settings, Path out) throws Exception {
        Files.createDirectories(out);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI gateway = fleet.gateway();
        String reader = fleet.bearer(Workload.READER);

        // The malformed corpus, against a canary whose follows must survive it unchanged.
        for (long followee = 1; followee <= 5; followee++) {
            send(http, HttpRequest.newBuilder(gateway.resolve("/v1/me/following/" + followee))
                    .header("Authorization", fleet.bearer(CANARY)).PUT(HttpRequest.BodyPublishers.noBody()));
        }
        Set<Long> canaryBefore = list(http, gateway, reader, CANARY, "following");
        String canary = fleet.bearer(CANARY);
        String expired = "Bearer " + DevTokens.mint(
                Files.readString(fleet.dataDir().resolve("jwt-secret")).strip(), CANARY, Duration.ofSeconds(1),
                Instant.now().minus(Duration.ofHours(1)));
        MalformedCorpus.Result corpus = MalformedCorpus.send(gateway,
                MalformedCorpus.requests(canary, expired, Tokens.withoutExpiry(fleet, CANARY),
                        Tokens.numericSubject(fleet, CANARY)));
        boolean canaryChanged = !list(http, gateway, reader, CANARY, "following").equals(canaryBefore);

        long[] actors = ids(1_000_001L, settings.actors());
        // Actors on logical shards 65..104 (following database 0); targets on 114..143, so that some pairs are wholly
        // on database 0 and stay unaffected while database 1 (Fleet.PROXIED_DATABASE) hangs.
        long[] targets = ids(1_999_986L, settings.targets());
        List<String> crashes = new ArrayList<>();
        List<String> notRecovered = new ArrayList<>();
        List<String> faultLog = new ArrayList<>();
        List<HangTimings.Window> hangs = new ArrayList<>();
        List<Op> history;
        try (Workload workload = new Workload(gateway, fleet::bearer, actors, targets, settings.writers(),
                settings.readers(), settings.pause())) {
            workload.start();
            Thread.sleep(5_000);
            for (int cycle = 1; cycle <= settings.cycles(); cycle++) {
                for (Fault fault : Fault.all(settings.hold()).stream().filter(settings::runs).toList()) {
                    Map<String, OptionalLong> before = pids(fleet);
                    long start = workload.now();
                    fault.action().inject(fleet);
                    long injected = workload.now();
                    if (Fault.hangs(fault.name())) {
                        hangs.add(new HangTimings.Window("cycle " + cycle + ", " + fault.name(), start, injected));
                    }
                    List<String> down = fleet.awaitReady(settings.recovery());
                    long ready = workload.now();
                    if (!down.isEmpty()) {
                        notRecovered.add("cycle " + cycle + ", " + fault.name() + ": " + down);
                    }
                    // Let the workload run on the recovered fleet before the next fault.
                    Thread.sleep(settings.settle());
                    Map<String, OptionalLong> after = pids(fleet);
                    for (String service : Fleet.SUPERVISED) {
                        if (!fault.killed().contains(service) && !before.get(service).equals(after.get(service))) {
                            crashes.add("cycle " + cycle + ", " + fault.name() + ": " + service + " "
                                    + before.get(service) + " -> " + after.get(service));
                        }
                    }
                    faultLog.add("cycle %d: %s at %d ms, over at %d ms, ready at %d ms".formatted(cycle, fault.name(),
                            start, injected, ready));
                    for (String note : fleet.drainNotes()) {
                        faultLog.add("cycle %d: %s: %s".formatted(cycle, fault.name(), note));
                    }
                }
            }
            // The last fault's recovery is judged over HangTimings.AFTER_MS of workload after it, like every other's.
            Thread.sleep(Math.max(0, HangTimings.AFTER_MS - settings.settle().toMillis()));
            workload.close();
            history = workload.history();
        }
        // A write acknowledged just before the workload stopped may still be missing from every reader alike: the
        // sides then agree on the state before it, and that read would be judged. DESIGN.md 7 promises the write to
        // every reader within the bound, so the graph is read back only once the bound has passed.
        Thread.sleep(BOUND_MS);
        // Read the graph back until both sides, the counts and the checks agree, or until the convergence time is up;
        // the last read is the one judged. The workload has stopped, so a converged graph stays converged.
        long convergedBy = System.nanoTime() + settings.convergence().toNanos();
        ReadBack readBack;
        while (true) {
            // A long run outlives the first token's hour.
            readBack = readBack(http, gateway, fleet.bearer(Workload.READER), actors, targets);
            if (readBack.divergences() == 0 || System.nanoTime() - convergedBy >= 0) {
                break;
            }
            Thread.sleep(1_000);
        }
        Map<Op.Pair, Boolean> stored = readBack.stored();
        long divergences = readBack.divergences();
        List<String> divergent = readBack.divergent();
        Checker.Report report = Checker.check(history, stored, BOUND_MS);
        List<String> examples = new ArrayList<>(report.examples());
        examples.addAll(divergent.subList(0, Math.min(20, divergent.size())));
        report = new Checker.Report(report.writesAcknowledged(), report.checksAnswered(), report.staleReads(),
                report.lostAcks(), report.phantoms(), report.errors(), report.unavailable(), report.unreachable(), examples);
        List<String> otherDatabaseFailures = new ArrayList<>();
        for (HangTimings.Window hang : hangs) {
            faultLog.add(hang.name() + ": " + HangTimings.note(history, hang));
            if (hang.name().endsWith(Fault.DATABASE_HUNG)) {
                otherDatabaseFailures.addAll(HangTimings.otherDatabaseFailures(history, hang,
                        Fleet::onProxiedDatabase, 256));
            }
        }
        Result result = new Result(report, divergences, crashes, notRecovered, corpus, canaryChanged, faultLog,
                otherDatabaseFailures);
        writeHistory(out.resolve("history.jsonl"), history);
        Files.writeString(out.resolve("report.md"), result.markdown(settings));
        return result;
    }

    /**
     * The graph as read back through the gateway once the workload has stopped.
     *
     * @param stored       each (actor, target) pair: whether the actor's following list holds the target
     * @param divergences  pairs whose follower side or check disagrees with the following side, plus users whose
     *                     counts disagree with their lists
     * @param divergent    a description of each disagreeing pair
     */
    private record ReadBack(Map<Op.Pair, Boolean> stored, long divergences, List<String> divergent) {
    }

    private static ReadBack readBack(HttpClient http, URI gateway, String reader, long[] actors, long[] targets)
            throws IOException, InterruptedException {
        Map<Op.Pair, Boolean> stored = new HashMap<>();
        Map<Op.Pair, Boolean> followerSide = new HashMap<>();
        long divergences = 0;
        for (long actor : actors) {
            Set<Long> following = list(http, gateway, reader, actor, "following");
            for (long target : targets) {
                stored.put(new Op.Pair(actor, target), following.contains(target));
            }
            divergences += count(http, gateway, reader, actor, "following") == following.size() ? 0 : 1;
        }
        for (long target : targets) {
            Set<Long> followers = list(http, gateway, reader, target, "followers");
            for (long actor : actors) {
                followerSide.put(new Op.Pair(actor, target), followers.contains(actor));
            }
            divergences += count(http, gateway, reader, target, "followers") == followers.size() ? 0 : 1;
        }
        List<String> divergent = new ArrayList<>();
        for (Map.Entry<Op.Pair, Boolean> e : stored.entrySet()) {
            Op.Pair p = e.getKey();
            JsonNode check = get(http, gateway, reader, "/v1/users/" + p.follower() + "/following/" + p.followee());
            boolean checked = check.path("following").asBoolean();
            if (!e.getValue().equals(followerSide.get(p)) || checked != e.getValue()) {
                divergences++;
                divergent.add(p + ": following side " + e.getValue() + ", follower side " + followerSide.get(p)
                        + ", check " + checked);
            }
        }
        return new ReadBack(stored, divergences, divergent);
    }

    private static Map<String, OptionalLong> pids(Fleet fleet) {
        Map<String, OptionalLong> out = new LinkedHashMap<>();
        for (String s : Fleet.SUPERVISED) {
            out.put(s, fleet.pid(s));
        }
        return out;
    }

    private static long[] ids(long first, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = first + i;
        }
        return out;
    }

    private static Set<Long> list(HttpClient http, URI gateway, String bearer, long user, String which)
            throws IOException, InterruptedException {
        Set<Long> out = new HashSet<>();
        String cursor = null;
        do {
            JsonNode page = get(http, gateway, bearer, "/v1/users/" + user + "/" + which + "?limit=1000"
                    + (cursor == null ? "" : "&cursor=" + cursor));
            page.path("items").forEach(item -> out.add(item.path("userId").asLong()));
            JsonNode next = page.path("nextCursor");
            cursor = next.isNull() || next.isMissingNode() ? null : next.asString();
        } while (cursor != null);
        return out;
    }

    private static long count(HttpClient http, URI gateway, String bearer, long user, String which)
            throws IOException, InterruptedException {
        return get(http, gateway, bearer, "/v1/users/" + user + "/counts").path(which).asLong();
    }

    private static JsonNode get(HttpClient http, URI gateway, String bearer, String path)
            throws IOException, InterruptedException {
        HttpResponse<String> r = send(http, HttpRequest.newBuilder(gateway.resolve(path)).header("Authorization", bearer).GET());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder request)
            throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void writeHistory(Path file, List<Op> history) throws IOException {
        List<String> lines = new ArrayList<>(history.size());
        for (Op op : history) {
            lines.add(JSON.writeValueAsString(op));
        }
        Files.write(file, lines);
    }
}
