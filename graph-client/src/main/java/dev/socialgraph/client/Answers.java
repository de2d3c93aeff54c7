package dev.socialgraph.client;

import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reading the services' 2xx JSON answers: a body that is not a JSON object, or lacks a member the resource needs, is
 * a {@link Problems#unreadable} {@link GraphClientException} (status 200, {@code internal-error}), a fault between
 * the client and the service rather than the caller's. Pure.
 */
final class Answers {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private Answers() {
    }

    /** The body as a JSON object. */
    static JsonNode parse(byte[] body) {
        try {
            JsonNode node = JSON.readTree(body);
            if (node == null || !node.isObject()) {
                throw Problems.unreadable("answer is not a JSON object", null);
            }
            return node;
        } catch (JacksonException e) {
            throw Problems.unreadable("unreadable answer: " + e.getOriginalMessage(), e);
        }
    }

    /** Member {@code name}, present and not {@code null}. */
    static JsonNode required(JsonNode node, String name) {
        JsonNode v = node == null ? null : node.get(name);
        if (v == null || v.isNull()) {
            throw Problems.unreadable("answer without '" + name + "'", null);
        }
        return v;
    }

    /** A page's {@code items}, an array. */
    static JsonNode items(JsonNode body) {
        JsonNode items = required(body, "items");
        if (!items.isArray()) {
            throw Problems.unreadable("'items' is not an array", null);
        }
        return items;
    }

    /** A page's {@code nextCursor}, {@code null} on the last page. */
    static String nextCursor(JsonNode body) {
        return text(body, "nextCursor");
    }

    /** A boolean member, empty when absent or {@code null} (hidden from the viewer). */
    static Optional<Boolean> optionalBoolean(JsonNode body, String name) {
        JsonNode v = body.get(name);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v.asBoolean());
    }

    /** An epoch-ms member as an instant, {@code null} when absent or {@code null}. */
    static Instant instant(JsonNode body, String name) {
        JsonNode v = body.get(name);
        return v == null || v.isNull() ? null : Instant.ofEpochMilli(v.asLong());
    }

    /** A string member, {@code null} when absent or {@code null}. */
    static String text(JsonNode body, String name) {
        JsonNode v = body.get(name);
        return v == null || v.isNull() ? null : v.asString();
    }

    /** Member {@code name}, an array of ids, sorted ascending (the service sends them so; sorting again is cheap). */
    static long[] ids(JsonNode body, String name) {
        JsonNode array = required(body, name);
        if (!array.isArray()) {
            throw Problems.unreadable("'" + name + "' is not an array", null);
        }
        long[] ids = new long[array.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = array.get(i).asLong();
        }
        Arrays.sort(ids);
        return ids;
    }
}
