package dev.socialgraph.common.event;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.common.relation.Relation;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class FollowEventJsonTest {

    private static final String VALID = """
            {"eventId":"42-7","type":"follow","followerId":42,"followeeId":9,\
            "followedAt":1700000000000,"version":7,"occurredAt":1700000000001}""";

    @Test
    void toJson_writesFieldsInDocumentedShape() {
        FollowEvent event = FollowEvent.follow(42, 9, 1_700_000_000_000L, 7, 1_700_000_000_001L);

        assertThat(new String(FollowEventJson.toJson(event), UTF_8)).isEqualTo(VALID);
    }

    @Test
    void toJson_writesUnfollowType() {
        FollowEvent event = FollowEvent.unfollow(42, 9, 1, 8, 2);

        assertThat(new String(FollowEventJson.toJson(event), UTF_8)).contains("\"type\":\"unfollow\"");
    }

    @Test
    void fromJson_readsDocumentedShape() {
        FollowEvent event = FollowEventJson.fromJson(VALID.getBytes(UTF_8));

        assertThat(event).isEqualTo(FollowEvent.follow(42, 9, 1_700_000_000_000L, 7, 1_700_000_000_001L));
    }

    @Test
    void fromJson_ignoresUnknownFields_andAcceptsAnyFieldOrder() {
        String json = """
                {"occurredAt":2,"version":3,"followedAt":1,"followeeId":9,"followerId":42,\
                "type":"unfollow","eventId":"42-3","traceId":"abc","extra":{"nested":[1,2]}}""";

        assertThat(FollowEventJson.fromJson(json.getBytes(UTF_8))).isEqualTo(FollowEvent.unfollow(42, 9, 1, 3, 2));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(AccountEvent.Type.class)
    void everyAccountType_roundTripsThroughParse_inItsOwnShape(AccountEvent.Type type) {
        AccountEvent event = AccountEvent.of(type, 42, 3, 1_700_000_000_001L);

        String json = new String(FollowEventJson.toJson((GraphEvent) event), UTF_8);

        assertThat(json).isEqualTo("{\"eventId\":\"42-account-3\",\"type\":\"" + type.wireName()
                + "\",\"userId\":42,\"version\":3,\"occurredAt\":1700000000001}");
        assertThat(FollowEventJson.parse(json.getBytes(UTF_8))).isEqualTo(event);
        assertThat(event.kind()).isEqualTo(type.wireName());
        assertThat(event.actorId()).isEqualTo(42);
        assertThat(event.targetId()).isZero();
        assertThat(event.isChange()).as("the change stream serves it").isTrue();
    }

    @Test
    void fromJson_ofAnAccountEvent_throwsMalformed_soAConsumerOfEdgesNeverMistakesIt() {
        byte[] json = FollowEventJson.toJson(AccountEvent.of(AccountEvent.Type.ERASE, 42, 3, 1));

        assertThatThrownBy(() -> FollowEventJson.fromJson(json))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("an account event, not a change of an edge");
    }

    @Test
    void aRecount_roundTripsThroughParse_inItsOwnShape_andIsNoEdgeEvent() {
        RecountEvent event = RecountEvent.of(42, 3, new long[] {9, 12}, 1_700_000_000_001L);

        String json = new String(FollowEventJson.toJson((GraphEvent) event), UTF_8);

        assertThat(json).isEqualTo("{\"eventId\":\"42-account-3-recount-9\",\"type\":\"recount\",\"userId\":42,"
                + "\"version\":3,\"followeeIds\":[9,12],\"occurredAt\":1700000000001}");
        assertThat(FollowEventJson.parse(json.getBytes(UTF_8))).isEqualTo(event);
        assertThat(event.kind()).isEqualTo("recount");
        assertThat(event.partitionKey()).isEqualTo(42);
        assertThat(event.targetId()).isZero();
        assertThat(event.isChange()).as("only what counts show moved: not served as a change").isFalse();
        assertThatThrownBy(() -> FollowEventJson.fromJson(json.getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("a recount, not a change of an edge");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "\"followeeIds\":[]|impossible event: followeeIds must hold 1 to 1000 ids, held 0",
            "\"followeeIds\":[12,9]|impossible event: followeeIds must be ascending and distinct, were not at 1",
            "\"followeeIds\":[9,9]|impossible event: followeeIds must be ascending and distinct, were not at 1",
            "\"followeeIds\":[0]|impossible event: followeeIds[0] must be a positive user id, was 0",
            "\"followeeIds\":[\"9\"]|field followeeIds[0] must be a 64-bit integer",
            "\"followeeIds\":9|field followeeIds must be an array, was NUMBER",
            "\"other\":1|missing field followeeIds"})
    void aMalformedRecount_throwsMalformed_namingWhy(String caseAndMessage) {
        String[] parts = caseAndMessage.split("\\|");
        String json = "{\"eventId\":\"42-account-3-recount-9\",\"type\":\"recount\",\"userId\":42,\"version\":3,"
                + parts[0] + ",\"occurredAt\":1}";

        assertThatThrownBy(() -> FollowEventJson.parse(json.getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage(parts[1]);
    }

    @Test
    void parse_ofAnAccountEventWithoutItsUser_throwsMalformed() {
        String json = "{\"eventId\":\"42-account-3\",\"type\":\"erase\",\"version\":3,\"occurredAt\":1}";

        assertThatThrownBy(() -> FollowEventJson.parse(json.getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("missing field userId");
    }

    @Test
    void parse_ofAnEdgeEvent_isTheSameAsFromJson() {
        assertThat(FollowEventJson.parse(VALID.getBytes(UTF_8)))
                .isEqualTo(FollowEventJson.fromJson(VALID.getBytes(UTF_8)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FollowEvent.Type.class)
    void everyType_roundTrips_withItsRelationAndEventId(FollowEvent.Type type) {
        FollowEvent event = FollowEvent.of(type, 42, 9, 1_700_000_000_000L, 3, 1_700_000_000_001L);

        FollowEvent parsed = FollowEventJson.fromJson(FollowEventJson.toJson(event));

        assertThat(parsed).isEqualTo(event);
        assertThat(parsed.relation()).isEqualTo(type.relation());
        assertThat(parsed.eventId()).isEqualTo(type.relation() == Relation.FOLLOW ? "42-3"
                : "42-" + type.relation().wireName() + "-3");
        assertThat(parsed.isChange()).isTrue();
    }

    @Test
    void aBlock_isNeitherAFollowNorAnUnfollow_toAConsumerOfFollows() {
        FollowEvent block = FollowEventJson.fromJson("""
                {"eventId":"42-block-1","type":"block","followerId":42,"followeeId":9,\
                "followedAt":1,"version":1,"occurredAt":2}""".getBytes(UTF_8));

        assertThat(block.isFollow()).isFalse();
        assertThat(block.adds()).isTrue();
        assertThat(block.relation()).isEqualTo(Relation.BLOCK);
    }

    @Test
    void fromJson_whenNull_throwsMalformed() {
        assertThatThrownBy(() -> FollowEventJson.fromJson(null))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("event is null");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            empty                | ''                                                   | unparseable JSON
            truncated            | '{"eventId":"1-1","type":"fol'                       | unparseable JSON
            not JSON             | 'follow 42 -> 9'                                     | unparseable JSON
            trailing tokens      | VALID {}                                             | unparseable JSON
            duplicate field      | VALID-with-duplicate                                 | unparseable JSON
            array                | '[1,2,3]'                                            | event is not a JSON object
            string               | '"hello"'                                            | event is not a JSON object
            missing field        | VALID-without-version                                | missing field version
            null field           | VALID-with-null-followeeId                           | missing field followeeId
            id as string         | VALID-with-string-followerId                         | field followerId must be an integer, was STRING
            id as fraction       | VALID-with-fraction-followerId                       | field followerId must be an integer, was a fraction
            id too large         | VALID-with-huge-followerId                           | field followerId is out of the 64-bit range
            type unknown         | VALID-with-type-FOLLOW                               | field type must be one of follow, unfollow, block, unblock, mute, unmute, request, unrequest, deactivate, reactivate, erase, protect, unprotect, recount, was "FOLLOW"
            type not string      | VALID-with-type-number                               | field type must be a string, was NUMBER
            id zero              | VALID-with-zero-followerId                           | impossible event: followerId must be a positive user id, was 0
            self follow          | VALID-with-self-follow                               | impossible event: followerId and followeeId must differ, both are 9
            version zero         | VALID-with-zero-version                              | impossible event: version must be >= 1, was 0
            """)
    void fromJson_whenMalformed_throwsWithReason(String name, String input, String message) {
        byte[] json = malformation(input).getBytes(UTF_8);

        assertThatThrownBy(() -> FollowEventJson.fromJson(json))
                .isInstanceOf(MalformedEventException.class)
                .message().startsWith(message);
    }

    @Test
    void fromJson_whenInvalidUtf8_throwsMalformed() {
        byte[] json = {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};

        assertThatThrownBy(() -> FollowEventJson.fromJson(json)).isInstanceOf(MalformedEventException.class);
    }

    @Test
    void fromJson_whenDeeplyNested_throwsMalformed() {
        String json = "{\"extra\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";

        assertThatThrownBy(() -> FollowEventJson.fromJson(json.getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class);
    }

    @Provide
    Arbitrary<FollowEvent> events() {
        Arbitrary<Long> ids = Arbitraries.oneOf(Arbitraries.longs().between(1, 1_000),
                Arbitraries.longs().between(1, Long.MAX_VALUE));
        Arbitrary<Long> anyLong = Arbitraries.longs();
        return Combinators.combine(Arbitraries.of(FollowEvent.Type.class), ids, ids, anyLong,
                        Arbitraries.longs().between(1, Long.MAX_VALUE), anyLong)
                .filter((type, follower, followee, t, v, o) -> !follower.equals(followee))
                .as(FollowEvent::of);
    }

    @Property(tries = 300)
    void toJsonThenFromJson_roundTrips(@ForAll("events") FollowEvent event) {
        assertThat(FollowEventJson.fromJson(FollowEventJson.toJson(event))).isEqualTo(event);
    }

    @Property(tries = 300)
    void fromJson_whenAnyBytesChangedOrCut_throwsOnlyMalformed(@ForAll("events") FollowEvent event,
            @ForAll @IntRange(min = 0, max = 10_000) int position, @ForAll byte replacement,
            @ForAll boolean cut) {
        byte[] json = FollowEventJson.toJson(event);
        int at = position % json.length;
        byte[] changed = cut ? java.util.Arrays.copyOf(json, at) : json.clone();
        if (!cut) {
            changed[at] = replacement;
        }

        try {
            FollowEvent parsed = FollowEventJson.fromJson(changed);
            assertThat(parsed).isNotNull();
        } catch (MalformedEventException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Property(tries = 300)
    void fromJson_whenRandomText_throwsOnlyMalformed(@ForAll String text) {
        try {
            FollowEventJson.fromJson(text.getBytes(UTF_8));
        } catch (MalformedEventException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    /** Builds a malformed document from a short description in the table above. */
    private static String malformation(String input) {
        return switch (input) {
            case "VALID {}" -> VALID + " {}";
            case "VALID-with-duplicate" -> VALID.replace("\"version\":7", "\"version\":7,\"version\":8");
            case "VALID-without-version" -> VALID.replace(",\"version\":7", "");
            case "VALID-with-null-followeeId" -> VALID.replace("\"followeeId\":9", "\"followeeId\":null");
            case "VALID-with-string-followerId" -> VALID.replace("\"followerId\":42", "\"followerId\":\"42\"");
            case "VALID-with-fraction-followerId" -> VALID.replace("\"followerId\":42", "\"followerId\":42.5");
            case "VALID-with-huge-followerId" ->
                    VALID.replace("\"followerId\":42", "\"followerId\":9223372036854775808");
            case "VALID-with-type-FOLLOW" -> VALID.replace("\"follow\"", "\"FOLLOW\"");
            case "VALID-with-type-number" -> VALID.replace("\"follow\"", "1");
            case "VALID-with-zero-followerId" -> VALID.replace("\"followerId\":42", "\"followerId\":0");
            case "VALID-with-self-follow" -> VALID.replace("\"followerId\":42", "\"followerId\":9");
            case "VALID-with-zero-version" -> VALID.replace("\"version\":7", "\"version\":0");
            default -> input;
        };
    }
}
