package dev.socialgraph.wire;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The change stream's wire contract ({@link PublicApi#LIST_CHANGES}, {@link PublicApi#LIST_OWN_CHANGES},
 * {@link InternalApi#CHANGES}): its parameters and their bounds, its event kinds, and the JSON of an event and of a
 * page, written and read here for the services and graph-client alike.
 *
 * <p>A page: {@code {"events":[…],"cursor":"…"}}; an event:
 * {@code {"eventId":"…","cursor":"…","kind":"follow","actorId":1,"targetId":2,"occurredAt":1700000000000,"version":3}}.
 * {@code eventId} is stable across redeliveries (a consumer drops repeats by it); {@code cursor} is the position just
 * after the event (resuming from it never repeats the event, nor skips one after it); the page's {@code cursor} is the
 * position after everything the read looked at, including what the filter left out. Times are epoch milliseconds;
 * ids positive 64-bit user ids; {@code version} is the version of the actor's row of that relation after the change,
 * or of the account's state after an account change. An account change ({@link #ACCOUNT_KINDS}) has the user as
 * {@code actorId} and no {@code targetId}.
 *
 * <p>With {@code Accept: text/event-stream} the same events are server-sent events: {@code id:} the event's cursor,
 * {@code event:} its kind, {@code data:} the event's JSON; a {@value #CHECKPOINT} event ({@code data:}
 * {@code {"cursor":"…"}}) comes at least every few seconds, whatever the filter passes.
 */
public final class Changes {

    /** Where to start: an opaque cursor from an earlier answer or event, or the head's; absent: the head now. */
    public static final String CURSOR = "cursor";
    /** Comma-separated kinds to keep ({@link #KINDS}); absent: every kind. */
    public static final String KINDS = "kinds";
    /** Comma-separated user ids: keep the events whose actor or target is one of them; absent: every user. */
    public static final String USERS = "users";
    /** Most events in a page, {@value #MIN_LIMIT} to {@value #MAX_LIMIT}, default {@value #DEFAULT_LIMIT}. */
    public static final String LIMIT = "limit";
    /** Seconds to wait for an event when there is none, {@value #MIN_WAIT} to {@value #MAX_WAIT}, default 0. */
    public static final String WAIT = "wait";

    /** Fewest events a page may be asked for. */
    public static final int MIN_LIMIT = 1;
    /** Most events a page may be asked for. */
    public static final int MAX_LIMIT = 1000;
    /** Events in a page when {@link #LIMIT} is absent. */
    public static final int DEFAULT_LIMIT = 100;
    /** Shortest wait (answer at once). */
    public static final int MIN_WAIT = 0;
    /** Longest wait, seconds: under every proxy's idle timeout this project knows of. */
    public static final int MAX_WAIT = 30;
    /** Most user ids in {@link #USERS}. */
    public static final int MAX_USERS = 1000;

    /** The server-sent event that carries only a cursor. */
    public static final String CHECKPOINT = "checkpoint";

    /** The kinds of account change, which name one user (the actor) and no target. */
    public static final List<String> ACCOUNT_KINDS = List.of("deactivate", "reactivate", "erase", "protect",
            "unprotect");

    /** The event kinds the stream carries, by their wire names, in the documented order. */
    public static final List<String> KINDS_SERVED = List.of("follow", "unfollow", "block", "unblock", "mute", "unmute",
            "request", "unrequest", "deactivate", "reactivate", "erase", "protect", "unprotect");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Changes() {
    }

    /**
     * One change.
     *
     * @param eventId    stable and unique id of the change
     * @param cursor     the position just after it
     * @param kind       one of {@link #KINDS_SERVED}
     * @param actorId    who made the change: the follower, blocker or muter, positive; an account change's user
     * @param targetId   whom it concerns: the followee, blocked or muted user, positive; {@code 0} for an account
     *                   change, whose JSON has no {@code targetId}
     * @param occurredAt when it was committed, epoch ms
     * @param version    the actor's row's (or account state's) version after it, {@code >= 1}
     */
    public record Event(String eventId, String cursor, String kind, long actorId, long targetId, long occurredAt,
                        long version) {
    }

    /**
     * A page of changes.
     *
     * @param events in stream order
     * @param cursor where the next read starts
     */
    public record Page(List<Event> events, String cursor) {

        /**
         * @param events copied
         * @param cursor not {@code null}
         */
        public Page {
            events = List.copyOf(events);
        }
    }

    /**
     * An event's JSON object.
     *
     * @param event the event
     * @return its JSON
     */
    public static ObjectNode toJson(Event event) {
        ObjectNode node = JSON.createObjectNode();
        node.put("eventId", event.eventId());
        node.put("cursor", event.cursor());
        node.put("kind", event.kind());
        node.put("actorId", event.actorId());
        if (event.targetId() != 0) {
            node.put("targetId", event.targetId());
        }
        node.put("occurredAt", event.occurredAt());
        node.put("version", event.version());
        return node;
    }

    /**
     * An event's JSON text, the {@code data:} of its server-sent event.
     *
     * @param event the event
     * @return compact JSON
     */
    public static String eventJson(Event event) {
        return toJson(event).toString();
    }

    /**
     * A page's JSON bytes.
     *
     * @param page the page
     * @return UTF-8 JSON
     */
    public static byte[] pageJson(Page page) {
        ObjectNode node = JSON.createObjectNode();
        ArrayNode events = node.putArray("events");
        for (Event event : page.events()) {
            events.add(toJson(event));
        }
        node.put("cursor", page.cursor());
        return JSON.writeValueAsBytes(node);
    }

    /**
     * A checkpoint's or the head's JSON text: {@code {"cursor":"…"}}.
     *
     * @param cursor the position
     * @return compact JSON
     */
    public static String cursorJson(String cursor) {
        return JSON.createObjectNode().put("cursor", cursor).toString();
    }

    /**
     * Reads a page.
     *
     * @param json the answer's body
     * @return the page
     * @throws WireFormatException naming the member that is missing or of the wrong type
     */
    public static Page readPage(String json) {
        JsonNode node = parse(json);
        JsonNode events = node.get("events");
        if (events == null || !events.isArray()) {
            throw new WireFormatException("events", "a page of changes has an array of events");
        }
        List<Event> out = new ArrayList<>(events.size());
        for (JsonNode event : events) {
            out.add(readEvent(event));
        }
        return new Page(Collections.unmodifiableList(out), text(node, "cursor"));
    }

    /**
     * Reads an event.
     *
     * @param json an event's JSON text (a server-sent event's {@code data:})
     * @return the event
     * @throws WireFormatException naming the member that is missing or of the wrong type
     */
    public static Event readEvent(String json) {
        return readEvent(parse(json));
    }

    /**
     * Reads the cursor of a checkpoint or of the head.
     *
     * @param json {@code {"cursor":"…"}}
     * @return the cursor
     * @throws WireFormatException naming {@code cursor}
     */
    public static String readCursor(String json) {
        return text(parse(json), "cursor");
    }

    private static Event readEvent(JsonNode node) {
        return new Event(text(node, "eventId"), text(node, "cursor"), text(node, "kind"), number(node, "actorId"),
                node.has("targetId") ? number(node, "targetId") : 0, number(node, "occurredAt"),
                number(node, "version"));
    }

    private static JsonNode parse(String json) {
        try {
            JsonNode node = JSON.readTree(json);
            if (node == null || !node.isObject()) {
                throw new WireFormatException("body", "a JSON object was expected");
            }
            return node;
        } catch (JacksonException e) {
            throw new WireFormatException("body", "not JSON: " + e.getOriginalMessage());
        }
    }

    private static String text(JsonNode node, String member) {
        JsonNode value = node.get(member);
        if (value == null || !value.isString()) {
            throw new WireFormatException(member, member + " must be a string");
        }
        return value.asString();
    }

    private static long number(JsonNode node, String member) {
        JsonNode value = node.get(member);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new WireFormatException(member, member + " must be an integer");
        }
        return value.longValue();
    }
}
