package dev.socialgraph.common.event;

import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
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
 * names ({@code "follow"}, {@code "unfollow"}, {@code "block"}, {@code "unblock"}, {@code "mute"}, {@code "unmute"}). Parsing is strict about the seven fields (present, right type, valid values,
 * no duplicates, nothing after the object) and ignores unknown fields, so a producer may add fields
 * before the consumers know them. UTF-8. Thread-safe.
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
     * Parses and validates an event.
     *
     * @param json UTF-8 JSON, may be {@code null}
     * @return the event
     * @throws MalformedEventException for any input that is not a valid event, with a message that says
     *                                 why (unparseable JSON, not an object, missing field, wrong type,
     *                                 value out of range, impossible ids); never another exception
     */
    public static FollowEvent fromJson(byte[] json) {
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
        FollowEvent.Type type = type(string(root, "type"));
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

    private static FollowEvent.Type type(String wireName) {
        return FollowEvent.Type.byWireName(wireName).orElseThrow(() -> new MalformedEventException(
                "field type must be one of follow, unfollow, block, unblock, mute, unmute, was \""
                        + (wireName.length() > 32 ? wireName.substring(0, 32) + "…" : wireName) + "\"", null));
    }
}
