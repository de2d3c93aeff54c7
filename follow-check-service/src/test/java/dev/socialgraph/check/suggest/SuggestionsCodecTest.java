package dev.socialgraph.check.suggest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SuggestionsCodecTest {

    @Test
    void encodeThenDecode_returnsTheSameRanking() {
        SuggestionRanking.Ranked ranked = new SuggestionRanking.Ranked(new long[] {9, 3, Long.MAX_VALUE},
                new int[] {4, 2, 1});
        String text = Suggestions.encode(ranked);
        assertThat(text).isEqualTo("9:4,3:2,9223372036854775807:1");
        SuggestionRanking.Ranked back = Suggestions.decode(text);
        assertThat(back.ids()).containsExactly(9, 3, Long.MAX_VALUE);
        assertThat(back.mutualCounts()).containsExactly(4, 2, 1);
    }

    @Test
    void decode_ofNothingCached_isNull_andOfAnEmptyList_isEmpty() {
        assertThat(Suggestions.decode(null)).isNull();
        assertThat(Suggestions.decode("").size()).isZero();
        assertThat(Suggestions.encode(SuggestionRanking.Ranked.EMPTY)).isEmpty();
    }

    @Test
    void decode_ofAValueItDidNotWrite_isNull_soItIsRecomputed() {
        assertThat(Suggestions.decode("garbage")).isNull();
        assertThat(Suggestions.decode("1:2,")).isNull();
        assertThat(Suggestions.decode("1:x")).isNull();
    }
}
