package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/** Cursor iteration over a fake list of pages, recording which cursors were asked for. */
class PageWalkerTest {

    /** Pages by cursor ({@code ""} for the first); each names the next page's cursor or none. */
    private static final Map<String, Page<Integer>> PAGES = Map.of(
            "", new Page<>(List.of(1, 2), "c1"),
            "c1", new Page<>(List.of(), "c2"),
            "c2", new Page<>(List.of(3, 4), "c3"),
            "c3", new Page<>(List.of(5), null));

    private final List<String> asked = new ArrayList<>();

    private Page<Integer> fetch(String cursor) {
        asked.add(cursor);
        return PAGES.get(cursor == null ? "" : cursor);
    }

    @Test
    void stream_followsEveryCursor_inOrder_throughAnEmptyPage() {
        assertThat(PageWalker.stream(this::fetch).toList()).containsExactly(1, 2, 3, 4, 5);
        assertThat(asked).containsExactly(null, "c1", "c2", "c3");
    }

    @Test
    void stream_fetchesNothingBeforeItsTerminalOperation_andOnlyThePagesItNeeds() {
        var stream = PageWalker.stream(this::fetch).limit(3);
        assertThat(asked).isEmpty();

        assertThat(stream.toList()).containsExactly(1, 2, 3);
        assertThat(asked).containsExactly(null, "c1", "c2");
    }

    @Test
    void aSinglePage_isFetchedOnce() {
        PageWalker<Integer> walker = new PageWalker<>(cursor -> {
            asked.add(cursor);
            return new Page<>(List.of(7), null);
        });
        assertThat(walker.hasNext()).isTrue();
        assertThat(walker.next()).isEqualTo(7);
        assertThat(walker.hasNext()).isFalse();
        assertThat(walker.hasNext()).isFalse();
        assertThatThrownBy(walker::next).isInstanceOf(NoSuchElementException.class);
        assertThat(asked).containsExactly((String) null);
    }

    @Test
    void anEmptyList_isAnEmptyStream() {
        assertThat(PageWalker.stream(cursor -> new Page<Integer>(List.of(), null)).count()).isZero();
    }

    @Test
    void aFailedFetch_reachesTheConsumer_afterTheItemsBeforeIt() {
        List<Integer> seen = new ArrayList<>();
        PageWalker<Integer> walker = new PageWalker<>(cursor -> {
            if (cursor != null) {
                throw Problems.noResponse("down", null);
            }
            return new Page<>(List.of(1), "next");
        });
        seen.add(walker.next());
        assertThatThrownBy(walker::hasNext).isInstanceOf(UnavailableException.class);
        assertThat(seen).containsExactly(1);
    }
}
