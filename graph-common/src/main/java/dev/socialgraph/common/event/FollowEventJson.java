package dev.socialgraph.common.event;

import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON form of a {@link FollowEvent}, the value of a {@code follow-events} record (DESIGN.md 2.4):
 *
 * <pre>{@code
 * {"eventId":"42-7","type":"follow","followerId":42,"followeeId":9,
 *  "followedAt":1700000000000,"version":7,"occurredAt":1700000000001}
 * }</pre>
 *
 * Ids, times (epoch ms) and the version are JSON integers; {@code type} is one of {@link FollowEvent.Type}'s wire
 * names ({@code "follow"}, {@code "unfollow"}, {@code "block"}, {@code "unblock"}, {@code "mute"}, {@code "unmute"},
 * {@code "request"}, {@code "unrequest"}).
 *
 * <p>The same topic carries {@link AccountEvent}s, in a shape of their own:
 *
 * <pre>{@code
 * {"eventId":"42-account-3","type":"erase","userId":42,"version":3,"occurredAt":1700000000001}
 * }</pre>
 *
 * and so does an account job's {@link RecountEvent}:
 *
 * <pre>{@code
 * {"eventId":"42-account-3-recount-9","type":"recount","userId":42,"version":3,"followeeIds":[9,12],
 *  "occurredAt":1700000000001}
 * }</pre>
 *
 * {@link #parse} reads each by its {@code type}; a consumer of edges skips what is not a {@link FollowEvent}.
 * Parsing is strict about the fields of the type (present, right type, valid values, no duplicates, nothing after the
 * object) and ignores unknown fields, so a producer may add fields before the consumers know them. UTF-8. Thread-safe.
 */
public final class FollowEventJson {

    /** Built once: a mapper is thread-safe and costly to configure. */
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private FollowEventJson() {
    }

    /**
     * Serialises an event, fields in the order shown above.
     *
     * @param event the event, not {@code null}
     * @return UTF-8 JSON
     * @throws NullPointerException if {@code event} is {@code null}
     */
    public static byte[] toJson(FollowEvent event) {
        ObjectNode node = MAPPER.createObjectNode()
                .put("eventId", event.eventId())
                .put("type", event.type().wireName())
                .put("followerId", event.followerId())
                .put("followeeId", event.followeeId())
                .put("followedAt", event.followedAt())
                .put("version", event.version())
                .put("occurredAt", event.occurredAt());
        return MAPPER.writeValueAsBytes(node);
    }

    /**
     * Serialises an account event: {@code eventId, type, userId, version, occurredAt}.
     *
     * @param event the event, not {@code null}
     * @return UTF-8 JSON
     * @throws NullPointerException if {@code event} is {@code null}
     */
    public static byte[] toJson(AccountEvent event) {
        ObjectNode node = MAPPER.createObjectNode()
                .put("eventId", event.eventId())
                .put("type", event.type().wireName())
                .put("userId", event.userId())
                .put("version", event.version())
                .put("occurredAt", event.occurredAt());
        return MAPPER.writeValueAsBytes(node);
    }

    /**
     * Serialises a recount: {@code eventId, type, userId, version, followeeIds, occurredAt}.
     *
     * @param event the event, not {@code null}
     * @return UTF-8 JSON
     * @throws NullPointerException if {@code event} is {@code null}
     */
    public static byte[] toJson(RecountEvent event) {
        ObjectNode node = MAPPER.createObjectNode()
                .put("eventId", event.eventId())
                .put("type", RecountEvent.KIND)
                .put("userId", event.userId())
                .put("version", event.version());
        ArrayNode ids = node.putArray("followeeIds");
        for (int i = 0; i < event.size(); i++) {
            ids.add(event.followeeId(i));
        }
        node.put("occurredAt", event.occurredAt());
        return MAPPER.writeValueAsBytes(node);
    }

    /**
     * Serialises any kind of event.
     *
     * @param event the event, not {@code null}
     * @return UTF-8 JSON
     */
    public static byte[] toJson(GraphEvent event) {
        return switch (event) {
            case FollowEvent e -> toJson(e);
            case AccountEvent e -> toJson(e);
            case RecountEvent e -> toJson(e);
        };
    }

    /**
     * Parses and validates an edge event.
     *
     * @param json UTF-8 JSON, may be {@code null}
     * @return the event
     * @throws MalformedEventException for any input that is not a valid edge event (an account event or a recount
     *                                 included), with a message that says why; never another exception
     */
    public static FollowEvent fromJson(byte[] json) {
        GraphEvent parsed = parse(json);
        if (parsed instanceof FollowEvent event) {
            return event;
        }
        throw new MalformedEventException(parsed instanceof RecountEvent ? "a recount, not a change of an edge"
                : "an account event, not a change of an edge", null);
    }

    /**
     * Parses and validates a record of {@code follow-events}, an edge event, an account event or a recount by its
     * {@code type}.
     *
     * @param json UTF-8 JSON, may be {@code null}
     * @return the event
     * @throws MalformedEventException for any input that is not a valid event, with a message that says
     *                                 why (unparseable JSON, not an object, missing field, wrong type,
     *                                 value out of range, impossible ids); never another exception
     */
    public static GraphEvent parse(byte[] json) {
        if (json == null) {
            throw new MalformedEventException("event is null", null);
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new MalformedEventException("unparseable JSON: " + e.getOriginalMessage(), e);
        } catch (RuntimeException e) {
            // Not expected from the parser, but the contract is: only MalformedEventException.
            throw new MalformedEventException("unparseable JSON: " + e, e);
        }
        if (root == null || root.isMissingNode()) {
            throw new MalformedEventException("unparseable JSON: no content", null);
        }
        if (!root.isObject()) {
            throw new MalformedEventException("event is not a JSON object", null);
        }
        String eventId = string(root, "eventId");
        String typeName = string(root, "type");
        Optional<AccountEvent.Type> account = AccountEvent.Type.byWireName(typeName);
        if (account.isPresent()) {
            long userId = integer(root, "userId");
            long version = integer(root, "version");
            long occurredAt = integer(root, "occurredAt");
            try {
                return new AccountEvent(eventId, account.get(), userId, version, occurredAt);
            } catch (IllegalArgumentException e) {
                throw new MalformedEventException("impossible event: " + e.getMessage(), e);
            }
        }
        if (RecountEvent.KIND.equals(typeName)) {
            long userId = integer(root, "userId");
            long version = integer(root, "version");
            long[] followeeIds = integers(root, "followeeIds", RecountEvent.MAX_USERS);
            long occurredAt = integer(root, "occurredAt");
            try {
                return new RecountEvent(eventId, userId, version, followeeIds, occurredAt);
            } catch (IllegalArgumentException e) {
                throw new MalformedEventException("impossible event: " + e.getMessage(), e);
            }
        }
        FollowEvent.Type type = type(typeName);
        long followerId = integer(root, "followerId");
        long followeeId = integer(root, "followeeId");
        long followedAt = integer(root, "followedAt");
        long version = integer(root, "version");
        long occurredAt = integer(root, "occurredAt");
        try {
            return new FollowEvent(eventId, type, followerId, followeeId, followedAt, version, occurredAt);
        } catch (IllegalArgumentException e) {
            throw new MalformedEventException("impossible event: " + e.getMessage(), e);
        }
    }

    private static JsonNode field(JsonNode root, String name) {
        JsonNode value = root.get(name);
        if (value == null || value.isNull()) {
            throw new MalformedEventException("missing field " + name, null);
        }
        return value;
    }

    private static String string(JsonNode root, String name) {
        JsonNode value = field(root, name);
        if (!value.isString()) {
            throw new MalformedEventException("field " + name + " must be a string, was " + value.getNodeType(), null);
        }
        return value.stringValue();
    }

    private static long integer(JsonNode root, String name) {
        JsonNode value = field(root, name);
        if (!value.isIntegralNumber()) {
            throw new MalformedEventException("field " + name + " must be an integer, was "
                    + (value.isNumber() ? "a fraction" : value.getNodeType()), null);
        }
        if (!value.canConvertToLong()) {
            throw new MalformedEventException("field " + name + " is out of the 64-bit range", null);
        }
        return value.longValue();
    }

    private static long[] integers(JsonNode root, String name, int max) {
        JsonNode value = field(root, name);
        if (!value.isArray()) {
            throw new MalformedEventException("field " + name + " must be an array, was " + value.getNodeType(), null);
        }
        if (value.size() > max) {
            throw new MalformedEventException("field " + name + " holds more than " + max + " values", null);
        }
        long[] out = new long[value.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode item = value.get(i);
            if (!item.isIntegralNumber() || !item.canConvertToLong()) {
                throw new MalformedEventException("field " + name + "[" + i + "] must be a 64-bit integer", null);
            }
            out[i] = item.longValue();
        }
        return out;
    }

    private static FollowEvent.Type type(String wireName) {
        return FollowEvent.Type.byWireName(wireName).orElseThrow(() -> new MalformedEventException(
                "field type must be one of follow, unfollow, block, unblock, mute, unmute, request, unrequest,"
                        + " deactivate, reactivate, erase, protect, unprotect, recount, was \""
                        + (wireName.length() > 32 ? wireName.substring(0, 32) + "…" : wireName) + "\"", null));
    }
}
