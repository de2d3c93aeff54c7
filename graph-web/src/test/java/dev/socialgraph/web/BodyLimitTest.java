package dev.socialgraph.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class BodyLimitTest {

    private final BodyLimit limit = new BodyLimit(1000);

    @Test
    void judge_refusesADeclaredLengthOverTheLimit_readsAChunkedBody_passesTheRest() {
        assertThat(limit.judge(1001, false)).isEqualTo(BodyLimit.Verdict.REFUSE);
        assertThat(limit.judge(1001, true)).isEqualTo(BodyLimit.Verdict.REFUSE);
        assertThat(limit.judge(1000, false)).isEqualTo(BodyLimit.Verdict.PASS);
        assertThat(limit.judge(0, false)).isEqualTo(BodyLimit.Verdict.PASS);
        assertThat(limit.judge(-1, false)).isEqualTo(BodyLimit.Verdict.PASS); // no body
        assertThat(limit.judge(-1, true)).isEqualTo(BodyLimit.Verdict.READ);
        assertThat(limit.judge(10, true)).isEqualTo(BodyLimit.Verdict.PASS); // the server holds it to its length
    }

    @Test
    void new_refusesALimitOutsideOneByteToOneGigabyte() {
        assertThatThrownBy(() -> new BodyLimit(0)).hasMessageContaining("between 1 and 1 GB");
        assertThatThrownBy(() -> new BodyLimit((1L << 30) + 1)).hasMessageContaining("between 1 and 1 GB");
        assertThat(new BodyLimit(1L << 30).maxBytes()).isEqualTo(1L << 30);
    }

    @Test
    void guardRefusal_is413AndCountsEachRefusal() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Supplier<Problems> refusal = BodyLimit.guardRefusal(1000, meters);

        assertThat(refusal.get().status()).isEqualTo(413);
        refusal.get();

        assertThat(meters.get(Rejections.METER).tag("reason", "body-too-large").counter().count()).isEqualTo(2);
    }
}
