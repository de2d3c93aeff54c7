package dev.socialgraph.check.api;

import dev.socialgraph.check.changes.ChangeArchive.ChangeArchiveUnavailableException;
import dev.socialgraph.check.changes.ChangeFilter;
import dev.socialgraph.check.changes.ChangeSignals;
import dev.socialgraph.check.changes.ChangeStream;
import dev.socialgraph.check.changes.ChangeStream.Batch;
import dev.socialgraph.check.reads.GraphReads;
import dev.socialgraph.common.cursor.InvalidCursorException;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.web.BadParameterException;
import dev.socialgraph.web.ProblemJson;
import dev.socialgraph.web.ProblemMapping;
import dev.socialgraph.wire.Changes;
import dev.socialgraph.wire.Headers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The change stream's HTTP side ({@link Changes}): {@code GET /internal/v1/changes} and
 * {@code GET /internal/v1/users/{id}/changes} as a page, long-polled up to {@code wait} seconds, or with
 * {@code Accept: text/event-stream} as server-sent events; {@code GET /internal/v1/changes/head}.
 *
 * <p><b>Parameters.</b> {@code cursor} (or, for a reconnecting event stream, {@code Last-Event-ID}, which wins: a
 * browser's {@code EventSource} keeps the URL it was opened with); absent, the stream starts at the head now.
 * {@code kinds}, {@code users} (at most {@value Changes#MAX_USERS}), {@code limit} and {@code wait} as {@link Changes}
 * says. Every bad value answers 400 naming it, and nothing else happens; a cursor older than the topic keeps 410
 * {@code cursor-expired}; a broker the topic cannot be read from in time, 503 {@code service-unavailable}.
 *
 * <p><b>Threads.</b> A read memory answers (the cursor within {@link dev.socialgraph.check.changes.ChangeLog}) runs on
 * the I/O thread that read the request; a read of the topic, and every read of a user's own stream (its privacy rule
 * may read a block row), on {@code blockingReads}. A waiting watcher holds no thread: it is a subscription to
 * {@link ChangeSignals} with a time-out.
 *
 * <p><b>Server-sent events.</b> Each event: {@code id:} its cursor, {@code event:} its kind, {@code data:} its JSON.
 * A {@value Changes#CHECKPOINT} event ({@code data: {"cursor":"…"}}) opens the stream when there is nothing to send
 * yet and follows whenever {@code checkpointInterval} passed without an event. The stream is read batch by batch as the
 * connection takes it (one batch in hand at a time), so a slow reader holds at most one batch here and falls behind
 * into the topic instead of into memory; its last cursor resumes it.
 */
final class ChangeHandlers {

    private static final Duration RETRY_ARCHIVE = Duration.ofSeconds(1);

    private final ChangeStream stream;
    private final ChangeSignals signals;
    private final GraphReads reads;
    private final Scheduler blockingReads;
    private final Duration checkpointInterval;

    /**
     * @param stream             the stream
     * @param signals            the wake-ups of waiting watchers
     * @param reads              the inactive users and blocks a filter consults
     * @param blockingReads      where reads that may block run
     * @param checkpointInterval most time without an event on a server-sent stream
     */
    ChangeHandlers(ChangeStream stream, ChangeSignals signals, GraphReads reads, Scheduler blockingReads,
                   Duration checkpointInterval) {
        this.stream = stream;
        this.signals = signals;
        this.reads = reads;
        this.blockingReads = blockingReads;
        this.checkpointInterval = checkpointInterval;
    }

    /** {@code GET /internal/v1/changes/head}: {@code {"cursor":"…"}}. */
    Mono<ServerResponse> head(ServerRequest request) {
        return Mono.fromSupplier(() -> Changes.cursorJson(stream.encode(stream.head())))
                .flatMap(json -> ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(json))
                .onErrorResume(ChangeStream.UnavailableException.class, ChangeHandlers::unavailable);
    }

    /** {@code GET /internal/v1/changes}: the whole stream. */
    Mono<ServerResponse> changes(ServerRequest request) {
        return serve(request, 0);
    }

    /** {@code GET /internal/v1/users/{id}/changes}: {@code id}'s own stream. */
    Mono<ServerResponse> userChanges(ServerRequest request) {
        return serve(request, UserIds.parse(request.pathVariable("id"), "id"));
    }

    private Mono<ServerResponse> serve(ServerRequest request, long owner) {
        return Mono.defer(() -> {
            Query query = query(request, owner); // bad input: the error, answered 400 by the problem mapping
            boolean events = request.headers().accept().stream() // named, not matched by a wildcard, nor refused
                    .anyMatch(m -> m.equalsTypeAndSubtype(MediaType.TEXT_EVENT_STREAM) && m.getQualityValue() > 0);
            return events ? eventStream(query) : page(query);
        }).onErrorResume(ChangeStream.UnavailableException.class, ChangeHandlers::unavailable)
                .onErrorResume(ChangeArchiveUnavailableException.class, ChangeHandlers::unavailable);
    }

    /** A page, after waiting up to {@code wait} for an event when there is none. */
    private Mono<ServerResponse> page(Query query) {
        long deadline = System.nanoTime() + Duration.ofSeconds(query.waitSeconds).toNanos();
        return poll(query.start, query, deadline).flatMap(batch -> ServerResponse.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Changes.pageJson(new Changes.Page(batch.events(), stream.encode(batch.next())))));
    }

    private Mono<Batch> poll(long[] position, Query query, long deadline) {
        return Mono.defer(() -> {
            long seen = signals.generation();
            return read(position, query).flatMap(batch -> {
                long left = deadline - System.nanoTime();
                if (!batch.events().isEmpty() || left <= 0 || signals.isClosed()) {
                    return Mono.just(batch); // stopping: answer now, the client polls again elsewhere
                }
                if (!batch.caughtUp()) {
                    return poll(batch.next(), query, deadline); // the scan bound, or the topic: read on
                }
                return signals.after(seen, Duration.ofNanos(left)).then(poll(batch.next(), query, deadline));
            });
        });
    }

    /** Server-sent events until the client goes away; the first read answers errors as problems, before any event. */
    private Mono<ServerResponse> eventStream(Query query) {
        return read(query.start, query).flatMap(first -> {
            AtomicReference<long[]> position = new AtomicReference<>(first.next());
            AtomicLong lastSent = new AtomicLong(System.nanoTime());
            List<ServerSentEvent<String>> opening = sse(first);
            if (opening.isEmpty()) {
                opening = List.of(checkpoint(first.next()));
            }
            Mono<List<ServerSentEvent<String>>> step = Mono.defer(() -> next(query, position, lastSent));
            Flux<ServerSentEvent<String>> body = Flux.concat(Flux.fromIterable(opening),
                    step.repeat().concatMapIterable(batch -> batch, 1))
                    .takeUntilOther(signals.closed()); // stopping: the client resumes elsewhere from its last id
            return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM)
                    .body(BodyInserters.fromServerSentEvents(body));
        });
    }

    /** The next events of a server-sent stream, a checkpoint when one is due, or nothing after a wait. */
    private Mono<List<ServerSentEvent<String>>> next(Query query, AtomicReference<long[]> position,
                                                     AtomicLong lastSent) {
        long seen = signals.generation();
        return read(position.get(), query).flatMap(batch -> {
            position.set(batch.next());
            long now = System.nanoTime();
            if (!batch.events().isEmpty()) {
                lastSent.set(now);
                return Mono.just(sse(batch));
            }
            long quiet = now - lastSent.get();
            if (quiet >= checkpointInterval.toNanos()) {
                lastSent.set(now);
                return Mono.just(List.of(checkpoint(batch.next())));
            }
            if (!batch.caughtUp()) {
                return Mono.just(List.<ServerSentEvent<String>>of());
            }
            return signals.after(seen, Duration.ofNanos(checkpointInterval.toNanos() - quiet))
                    .thenReturn(List.<ServerSentEvent<String>>of());
        }).onErrorResume(ChangeArchiveUnavailableException.class, e -> Mono.delay(RETRY_ARCHIVE)
                .thenReturn(List.of())); // the topic is unreachable: try again, the cursor stays
    }

    /**
     * One read: from memory on this thread when memory holds the position (decided with the read itself), else where
     * blocking is allowed.
     */
    private Mono<Batch> read(long[] position, Query query) {
        Mono<Batch> blocking = Mono.fromCallable(() -> visible(stream.read(position, query.filter, query.limit),
                query.filter)).subscribeOn(blockingReads);
        if (query.filter.owner() != 0) {
            return blocking; // the own stream's block rows may be read
        }
        return Mono.defer(() -> {
            Batch batch = stream.readInMemory(position, query.filter, query.limit);
            return batch != null ? Mono.just(batch) : blocking;
        });
    }

    /** A user's own stream shows nothing from or about a user who blocks its owner. */
    private Batch visible(Batch batch, ChangeFilter filter) {
        if (filter.owner() == 0 || batch.events().isEmpty()) {
            return batch;
        }
        List<Changes.Event> shown = new ArrayList<>(batch.events().size());
        for (Changes.Event e : batch.events()) {
            long other = e.actorId() == filter.owner() ? e.targetId() : e.actorId();
            if (other == 0 || !reads.blocks(other, filter.owner())) { // 0: the owner's own account change
                shown.add(e);
            }
        }
        return new Batch(shown, batch.next(), batch.caughtUp());
    }

    private static List<ServerSentEvent<String>> sse(Batch batch) {
        List<ServerSentEvent<String>> out = new ArrayList<>(batch.events().size());
        for (Changes.Event e : batch.events()) {
            out.add(ServerSentEvent.builder(Changes.eventJson(e)).id(e.cursor()).event(e.kind()).build());
        }
        return out;
    }

    private ServerSentEvent<String> checkpoint(long[] position) {
        String cursor = stream.encode(position);
        return ServerSentEvent.builder(Changes.cursorJson(cursor)).id(cursor).event(Changes.CHECKPOINT).build();
    }

    /** 503 {@code service-unavailable} with {@code Retry-After}: another instance, or this one shortly, will serve. */
    private static Mono<ServerResponse> unavailable(RuntimeException e) {
        ResponseEntity<ProblemDetail> answer = ProblemMapping.retryLater(
                ProblemMapping.problem(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage(), null));
        return ServerResponse.status(answer.getStatusCode())
                .headers(h -> h.addAll(answer.getHeaders()))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyValue(ProblemJson.of(answer.getBody()));
    }

    /** A request's parameters, parsed. */
    private record Query(long[] start, ChangeFilter filter, int limit, int waitSeconds) {
    }

    private Query query(ServerRequest request, long owner) {
        String lastEventId = request.headers().firstHeader(Headers.LAST_EVENT_ID);
        String cursor = request.queryParams().getFirst(Changes.CURSOR);
        long[] start;
        if (lastEventId != null) {
            start = decode(lastEventId, Headers.LAST_EVENT_ID);
        } else if (cursor != null) {
            start = decode(cursor, Changes.CURSOR);
        } else {
            start = stream.head();
        }
        Set<String> kinds = kinds(request.queryParams().getFirst(Changes.KINDS));
        long[] users = users(request.queryParams().getFirst(Changes.USERS));
        int limit = bounded(request.queryParams().getFirst(Changes.LIMIT), Changes.LIMIT, Changes.DEFAULT_LIMIT,
                Changes.MIN_LIMIT, Changes.MAX_LIMIT);
        int wait = bounded(request.queryParams().getFirst(Changes.WAIT), Changes.WAIT, 0, Changes.MIN_WAIT,
                Changes.MAX_WAIT);
        return new Query(start, new ChangeFilter(kinds, users, owner, reads::isInactive, reads::isErased), limit, wait);
    }

    private long[] decode(String cursor, String parameter) {
        try {
            return stream.decode(cursor);
        } catch (InvalidCursorException e) {
            if (parameter.equals(Changes.CURSOR)) {
                throw e; // answered 400 naming cursor, with its reason
            }
            throw new BadParameterException(parameter, "not a change cursor: " + e.getMessage());
        }
    }

    private static Set<String> kinds(String text) {
        Set<String> kinds = new HashSet<>();
        if (text == null) {
            return kinds;
        }
        for (String name : text.split(",", -1)) {
            String kind = name.strip();
            if (!Changes.KINDS_SERVED.contains(kind)) {
                throw new BadParameterException(Changes.KINDS, "unknown kind '" + Params.echo(name) + "'; kinds are "
                        + String.join(", ", Changes.KINDS_SERVED));
            }
            kinds.add(kind);
        }
        return kinds;
    }

    private static long[] users(String text) {
        if (text == null) {
            return new long[0];
        }
        String[] parts = text.split(",", -1);
        if (parts.length > Changes.MAX_USERS) {
            throw new BadParameterException(Changes.USERS, "at most " + Changes.MAX_USERS + " users, was "
                    + parts.length);
        }
        long[] ids = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            ids[i] = UserIds.parse(parts[i].strip(), Changes.USERS);
        }
        Arrays.sort(ids);
        return ids;
    }

    private static int bounded(String text, String parameter, int absent, int min, int max) {
        if (text == null) {
            return absent;
        }
        int value;
        try {
            value = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new BadParameterException(parameter, parameter + " must be an integer from " + min + " to " + max
                    + ", was '" + Params.echo(text) + "'");
        }
        if (value < min || value > max) {
            throw new BadParameterException(parameter, parameter + " must be from " + min + " to " + max + ", was "
                    + value);
        }
        return value;
    }
}
