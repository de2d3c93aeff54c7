package dev.socialgraph.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The change stream's event JSON: an edge names its target, an account change has none. */
class ChangesTest {

    @Test
    void anEdgeEvent_roundTrips_withItsTarget() {
        Changes.Event follow = new Changes.Event("12-3", "c1", "follow", 12, 13, 1_700_000_000_000L, 3);

        String json = Changes.eventJson(follow);

        assertThat(json).isEqualTo("{\"eventId\":\"12-3\",\"cursor\":\"c1\",\"kind\":\"follow\",\"actorId\":12,"
                + "\"targetId\":13,\"occurredAt\":1700000000000,\"version\":3}");
        assertThat(Changes.readEvent(json)).isEqualTo(follow);
    }

    @Test
    void anAccountEvent_hasNoTargetId_andReadsBackWithTargetZero() {
        Changes.Event erase = new Changes.Event("12-account-2", "c2", "erase", 12, 0, 1_700_000_000_000L, 2);

        String json = Changes.eventJson(erase);

        assertThat(json).doesNotContain("targetId");
        assertThat(Changes.readEvent(json)).isEqualTo(erase);
        assertThat(Changes.readPage(new String(Changes.pageJson(new Changes.Page(List.of(erase), "c3")),
                StandardCharsets.UTF_8)).events()).containsExactly(erase);
    }

    @Test
    void aTargetIdThatIsNoInteger_isRefusedNamingIt() {
        assertThatThrownBy(() -> Changes.readEvent("{\"eventId\":\"1-1\",\"cursor\":\"c\",\"kind\":\"follow\","
                + "\"actorId\":1,\"targetId\":\"2\",\"occurredAt\":1,\"version\":1}"))
                .isInstanceOf(WireFormatException.class).hasMessageContaining("targetId");
    }

    @Test
    void followRequests_areServedKinds_beforeTheAccountKinds() {
        assertThat(Changes.KINDS_SERVED).containsSubsequence("unmute", "request", "unrequest", "deactivate");
    }

    @Test
    void theAccountKinds_areServedKinds() {
        assertThat(Changes.KINDS_SERVED).containsAll(Changes.ACCOUNT_KINDS).endsWith("deactivate", "reactivate",
                "erase", "protect", "unprotect");
    }
}
