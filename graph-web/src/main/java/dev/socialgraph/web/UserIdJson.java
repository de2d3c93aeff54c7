package dev.socialgraph.web;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * User ids in JSON answers as numbers (the default) or, on request, as strings: JavaScript's numbers are IEEE doubles,
 * exact only up to 2^53, and user ids are positive 64-bit numbers, so a browser reading {@code 9007199254740993} as a
 * number gets another user. A caller asks for strings with the query parameter {@value #PARAMETER}{@code =true} (the
 * name Twitter's API gave the same switch); then every user id of the answer is a JSON string of its decimal digits,
 * and every other number (counts, times, versions) stays a number.
 *
 * <p>Response types mark their id members with {@link Id} (a {@code long}) or {@link Ids} (a {@code long[]}); an
 * answer is written with {@link #write} when strings were asked for, and by the service's ordinary codec otherwise.
 */
public final class UserIdJson {

    /** The query parameter that asks for string ids: {@code true} or {@code false} (the default). */
    public static final String PARAMETER = "stringify_ids";

    /** The writer attribute the id serializers read. */
    private static final String STRINGS = UserIdJson.class.getName() + ".strings";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private UserIdJson() {
    }

    /**
     * Reads the {@value #PARAMETER} query parameter.
     *
     * @param value the parameter's value, or {@code null} when absent
     * @return whether ids are to be written as strings
     * @throws BadParameterException naming {@value #PARAMETER} for any value but {@code true} or {@code false}
     */
    public static boolean asStrings(String value) {
        if (value == null || value.equals("false")) {
            return false;
        }
        if (value.equals("true")) {
            return true;
        }
        throw new BadParameterException(PARAMETER, PARAMETER + " must be true or false, was '" + value + "'");
    }

    /**
     * An answer as JSON with every id marked {@link Id} or {@link Ids} written as a string.
     *
     * @param body a response record
     * @return its UTF-8 JSON
     */
    public static byte[] write(Object body) {
        return write(body, true);
    }

    /**
     * An answer as JSON, its ids as {@link #asStrings} said.
     *
     * @param body    a response record
     * @param strings whether every id marked {@link Id} or {@link Ids} is written as a string
     * @return its UTF-8 JSON, as the service's codec writes it when {@code strings} is false
     */
    public static byte[] write(Object body, boolean strings) {
        return JSON.writer().withAttribute(STRINGS, strings).writeValueAsBytes(body);
    }

    /**
     * A servlet answer: the record for the service's JSON converter, or its JSON with string ids.
     *
     * @param body    a response record
     * @param strings what {@link #asStrings} said
     * @return the 200 answer
     */
    public static ResponseEntity<Object> ok(Object body, boolean strings) {
        return strings ? ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(write(body))
                : ResponseEntity.ok(body);
    }

    private static boolean strings(SerializationContext context) {
        return Boolean.TRUE.equals(context.getAttribute(STRINGS));
    }

    /** One user id: a number, or its decimal digits as a string when {@link #write} asked for strings. */
    public static final class Id extends ValueSerializer<Long> {
        @Override
        public void serialize(Long id, JsonGenerator json, SerializationContext context) {
            if (strings(context)) {
                json.writeString(Long.toString(id));
            } else {
                json.writeNumber(id);
            }
        }
    }

    /** An array of user ids, each as {@link Id} writes it. */
    public static final class Ids extends ValueSerializer<long[]> {
        @Override
        public void serialize(long[] ids, JsonGenerator json, SerializationContext context) {
            boolean strings = strings(context);
            json.writeStartArray(ids, ids.length);
            for (long id : ids) {
                if (strings) {
                    json.writeString(Long.toString(id));
                } else {
                    json.writeNumber(id);
                }
            }
            json.writeEndArray();
        }
    }
}
