package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which token goes with an actor's read, on a clock the test moves. */
class FollowTokenMemoryTest {

    private static final long TTL = 5_000_000_000L; // 5 s in ns
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final FollowTokenMemory memory = new FollowTokenMemory(TTL, 4, clock::get);

    private static String token(long actor, long issuedAt) {
        return FakeCheckInstance.token(actor, issuedAt);
    }

    @Test
    void aWritersToken_goesWithItsReads_only() {
        String t = token(7, 1000);
        memory.remember(7, t);

        assertThat(memory.tokenFor(7, null)).isEqualTo(t);
        assertThat(memory.tokenFor(8, null)).isNull();
    }

    @Test
    void aTokenTheCallerPasses_wins() {
        memory.remember(7, token(7, 1000));
        assertThat(memory.tokenFor(7, "passed")).isEqualTo("passed");
        assertThat(memory.tokenFor(9, "passed")).isEqualTo("passed");
    }

    @Test
    void theNewestTokenByIssueTime_isKept_whateverOrderTheRepliesCameIn() {
        String older = token(7, 1000);
        String newer = token(7, 2000);
        memory.remember(7, newer);
        memory.remember(7, older);
        assertThat(memory.tokenFor(7, null)).isEqualTo(newer);

        String newest = token(7, 3000);
        memory.remember(7, newest);
        assertThat(memory.tokenFor(7, null)).isEqualTo(newest);
    }

    @Test
    void aTokenThatDoesNotDecode_replacesTheRemembered() {
        memory.remember(7, token(7, 1000));
        memory.remember(7, "opaque");
        assertThat(memory.tokenFor(7, null)).isEqualTo("opaque");
        assertThat(FollowTokenMemory.issuedAt("opaque")).isEqualTo(Long.MIN_VALUE);
        assertThat(FollowTokenMemory.issuedAt("!!")).isEqualTo(Long.MIN_VALUE);
        assertThat(FollowTokenMemory.issuedAt(token(7, 1234))).isEqualTo(1234);
    }

    @Test
    void aTokenPastItsTtl_isNoLongerSent_andForgotten() {
        memory.remember(7, token(7, 1000));
        clock.addAndGet(TTL - 1);
        assertThat(memory.tokenFor(7, null)).isNotNull();
        clock.addAndGet(1);
        assertThat(memory.tokenFor(7, null)).isNull();
        assertThat(memory.size()).isZero();
    }

    @Test
    void anExpiredToken_isReplacedEvenByAnOlderIssue() {
        memory.remember(7, token(7, 2000));
        clock.addAndGet(TTL);
        String later = token(7, 1000); // another write instance's clock behind
        memory.remember(7, later);
        assertThat(memory.tokenFor(7, null)).isEqualTo(later);
    }

    @Test
    void pastTheSweepSize_expiredEntriesAreDropped() {
        for (long actor = 1; actor <= 4; actor++) {
            memory.remember(actor, token(actor, 1000));
        }
        clock.addAndGet(TTL);
        memory.remember(5, token(5, 1000));
        assertThat(memory.size()).isEqualTo(1);
        assertThat(memory.tokenFor(5, null)).isNotNull();
    }

    @Test
    void noToken_isNothingRemembered() {
        memory.remember(7, null);
        memory.remember(7, "");
        assertThat(memory.size()).isZero();
    }
}
