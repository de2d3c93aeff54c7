package dev.socialgraph.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.socialgraph.faults.Op.Kind;
import dev.socialgraph.faults.Op.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckerTest {

    private static final Op.Pair PAIR = new Op.Pair(1, 2);

    private static Op write(Kind kind, long start, long end, Outcome outcome) {
        return new Op(kind, 1, 2, start, end, outcome, outcome == Outcome.OK ? 200 : 503, false);
    }

    private static Op check(long start, long end, boolean value) {
        return new Op(Kind.CHECK, 1, 2, start, end, Outcome.OK, 200, value);
    }

    @Test
    void aReadPastTheBoundMustSeeTheAcknowledgedFollow() {
        Op follow = write(Kind.FOLLOW, 0, 10, Outcome.OK);
        Checker.Report fresh = Checker.check(List.of(follow, check(2_010, 2_011, true)), Map.of(), 2_000);
        Checker.Report stale = Checker.check(List.of(follow, check(2_010, 2_011, false)), Map.of(), 2_000);

        assertThat(fresh.staleReads()).isZero();
        assertThat(stale.staleReads()).isEqualTo(1);
        assertThat(stale.examples()).singleElement().asString().startsWith("stale read");
    }

    @Test
    void aReadWithinTheBoundMayStillSeeTheOldState() {
        Op follow = write(Kind.FOLLOW, 0, 10, Outcome.OK);

        assertThat(Checker.check(List.of(follow, check(1_500, 1_501, false)), Map.of(), 2_000).staleReads()).isZero();
    }

    @Test
    void aWriteOverlappingTheReadAllowsItsState() {
        Op follow = write(Kind.FOLLOW, 0, 10, Outcome.OK);
        Op unfollow = write(Kind.UNFOLLOW, 5_000, 5_020, Outcome.OK);

        assertThat(Checker.check(List.of(follow, unfollow, check(5_010, 5_030, false)), Map.of(), 2_000).staleReads())
                .isZero();
        assertThat(Checker.check(List.of(follow, unfollow, check(5_010, 5_030, true)), Map.of(), 2_000).staleReads())
                .isZero();
        assertThat(Checker.check(List.of(follow, unfollow, check(8_000, 8_001, true)), Map.of(), 2_000).staleReads())
                .isEqualTo(1);
    }

    @Test
    void aWriteWithoutAClearAnswerAllowsBothStatesUntilAnAcknowledgedOne() {
        Op unknown = write(Kind.FOLLOW, 0, 10, Outcome.UNREACHABLE);
        Op rejected = write(Kind.FOLLOW, 0, 10, Outcome.REJECTED);

        assertThat(Checker.check(List.of(unknown, check(9_000, 9_001, true)), Map.of(), 2_000).staleReads()).isZero();
        assertThat(Checker.check(List.of(unknown, check(9_000, 9_001, false)), Map.of(), 2_000).staleReads()).isZero();
        assertThat(Checker.check(List.of(rejected, check(9_000, 9_001, true)), Map.of(), 2_000).staleReads())
                .as("a 4xx changes nothing").isEqualTo(1);
        Op unfollow = write(Kind.UNFOLLOW, 20, 30, Outcome.OK);
        assertThat(Checker.check(List.of(unknown, unfollow, check(9_000, 9_001, true)), Map.of(), 2_000).staleReads())
                .as("the acknowledged unfollow settles it").isEqualTo(1);
    }

    @Test
    void theStoreMustHoldEveryAcknowledgedFollowAndNothingElse() {
        Op follow = write(Kind.FOLLOW, 0, 10, Outcome.OK);
        Op.Pair other = new Op.Pair(3, 4);

        Checker.Report ok = Checker.check(List.of(follow), Map.of(PAIR, true, other, false), 2_000);
        Checker.Report lost = Checker.check(List.of(follow), Map.of(PAIR, false), 2_000);
        Checker.Report phantom = Checker.check(List.of(follow), Map.of(PAIR, true, other, true), 2_000);

        assertThat(ok.lostAcks() + ok.phantoms()).isZero();
        assertThat(lost.lostAcks()).isEqualTo(1);
        assertThat(phantom.phantoms()).isEqualTo(1);
        assertThat(phantom.lostAcks()).isZero();
    }

    @Test
    void outcomesAreCountedByKind() {
        List<Op> history = List.of(write(Kind.FOLLOW, 0, 1, Outcome.ERROR), write(Kind.UNFOLLOW, 2, 3, Outcome.UNAVAILABLE),
                new Op(Kind.CHECK, 1, 2, 4, 5, Outcome.UNREACHABLE, 0, false), write(Kind.FOLLOW, 6, 7, Outcome.OK));

        Checker.Report report = Checker.check(history, Map.of(), 2_000);

        assertThat(report.errors()).containsExactly(Map.entry(Kind.FOLLOW, 1L));
        assertThat(report.unavailable()).containsExactly(Map.entry(Kind.UNFOLLOW, 1L));
        assertThat(report.unreachable()).containsExactly(Map.entry(Kind.CHECK, 1L));
        assertThat(report.writesAcknowledged()).isEqualTo(1);
        assertThat(report.checksAnswered()).isZero();
    }

    @Test
    void aNegativeBoundIsRefused() {
        assertThatThrownBy(() -> Checker.check(List.of(), Map.of(), -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("boundMs");
    }
}
