package dev.socialgraph.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The recorded workload: writer threads that follow and unfollow through the gateway as their own users (each
 * writer owns its actors, so the writes of a pair never overlap), and reader threads that check random pairs as a
 * third party (no follow token, so an answer comes from the bloom filter, the caches or the shards, never from the
 * actor's own read-your-writes path). Every request is logged as an {@link Op} with its start, end and outcome.
 */
public final class Workload implements AutoCloseable {

    /** The user the readers act as; never an actor or a target. */
    static final long READER = 9_000_000L;

    private final URI gateway;
    private final Tokens tokens;
    private final long[] actors;
    private final long[] targets;
    private final int writers;
    private final int readers;
    private final Duration pause;
    private final long origin = System.nanoTime();
    private final Queue<Op> history = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    /** Bearer tokens by user id. */
    @FunctionalInterface
    public interface Tokens {
        /**
         * @param userId a positive 64-bit user id
         * @return {@code Bearer <jwt>} for it
         * @throws IOException when the token cannot be made
         */
        String bearer(long userId) throws IOException;
    }

    /**
     * @param gateway the gateway's base URI
     * @param tokens  makes bearer tokens
     * @param actors  the followers of the workload's pairs, split evenly among the writers
     * @param targets the followees of the workload's pairs
     * @param writers writer threads, at least 1 and at most {@code actors.length}
     * @param readers reader threads, at least 0
     * @param pause   each thread's pause between requests, to keep the load below saturation
     * @throws IllegalArgumentException when the writers do not fit the actors
     */
    public Workload(URI gateway, Tokens tokens, long[] actors, long[] targets, int writers, int readers, Duration pause) {
        if (writers < 1 || writers > actors.length || readers < 0 || targets.length == 0) {
            throw new IllegalArgumentException("writers must be within 1.." + actors.length + ", readers >= 0 and "
                    + "targets non-empty; were " + writers + ", " + readers + ", " + targets.length);
        }
        this.gateway = gateway;
        this.tokens = tokens;
        this.actors = actors.clone();
        this.targets = targets.clone();
        this.writers = writers;
        this.readers = readers;
        this.pause = pause;
    }

    /** Starts the threads. */
    public void start() {
        running.set(true);
        for (int w = 0; w < writers; w++) {
            List<Long> own = new ArrayList<>();
            for (int i = w; i < actors.length; i += writers) {
                own.add(actors[i]);
            }
            threads.add(Thread.ofPlatform().name("writer-" + w).start(() -> write(own)));
        }
        for (int r = 0; r < readers; r++) {
            threads.add(Thread.ofPlatform().name("reader-" + r).start(this::read));
        }
    }

    /** Stops the threads and waits for their last requests. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join();
        }
        threads.clear();
    }

    /** Milliseconds since this workload's origin, the clock of its {@link Op}s. */
    public long now() {
        return (System.nanoTime() - origin) / 1_000_000;
    }

    /** The requests so far. */
    public List<Op> history() {
        return List.copyOf(history);
    }

    private void write(List<Long> own) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running.get()) {
            long actor = own.get(random.nextInt(own.size()));
            long target = targets[random.nextInt(targets.length)];
            Op.Kind kind = random.nextInt(5) < 3 ? Op.Kind.FOLLOW : Op.Kind.UNFOLLOW;
            try {
                // A fresh token per request: a long run outlives any one token's lifetime.
                String bearer = tokens.bearer(actor);
                HttpRequest.Builder request = HttpRequest.newBuilder(gateway.resolve("/v1/me/following/" + target))
                        .header("Authorization", bearer);
                request = kind == Op.Kind.FOLLOW ? request.PUT(HttpRequest.BodyPublishers.noBody()) : request.DELETE();
                history.add(send(kind, actor, target, request));
            } catch (IOException | RuntimeException e) {
                history.add(new Op(kind, actor, target, now(), now(), Op.Outcome.UNREACHABLE, 0, false));
            }
            sleep();
        }
    }

    private void read() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running.get()) {
            String bearer;
            try {
                bearer = tokens.bearer(READER);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            long actor = actors[random.nextInt(actors.length)];
            long target = targets[random.nextInt(targets.length)];
            HttpRequest.Builder request = HttpRequest.newBuilder(
                    gateway.resolve("/v1/users/" + actor + "/following/" + target)).header("Authorization", bearer).GET();
            history.add(send(Op.Kind.CHECK, actor, target, request));
            sleep();
        }
    }

    private Op send(Op.Kind kind, long actor, long target, HttpRequest.Builder request) {
        long start = now();
        try {
            HttpResponse<String> r = http.send(request.timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            int status = r.statusCode();
            Op.Outcome outcome = outcome(status, r.headers().firstValue("Retry-After").isPresent());
            boolean value = kind == Op.Kind.CHECK && outcome == Op.Outcome.OK && r.body().contains("\"following\":true");
            return new Op(kind, actor, target, start, now(), outcome, status, value);
        } catch (IOException e) {
            return new Op(kind, actor, target, start, now(), Op.Outcome.UNREACHABLE, 0, false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Op(kind, actor, target, start, now(), Op.Outcome.UNREACHABLE, 0, false);
        }
    }

    /**
     * How a status reads from the client's side.
     *
     * @param status     an HTTP status
     * @param retryAfter whether the answer carried {@code Retry-After}
     * @return the outcome
     */
    static Op.Outcome outcome(int status, boolean retryAfter) {
        if (status >= 200 && status < 300) {
            return Op.Outcome.OK;
        }
        if (status >= 400 && status < 500) {
            return Op.Outcome.REJECTED;
        }
        return status == 503 && retryAfter ? Op.Outcome.UNAVAILABLE : Op.Outcome.ERROR;
    }

    private void sleep() {
        try {
            Thread.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }
}
