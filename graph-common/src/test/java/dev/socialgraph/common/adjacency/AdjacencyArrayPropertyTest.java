package dev.socialgraph.common.adjacency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.adjacency.Rows.Entry;
import dev.socialgraph.common.adjacency.Rows.Recipe;
import dev.socialgraph.common.adjacency.Rows.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** {@link AdjacencyArray} and {@link TimeOrder} against a {@code TreeMap<id, followedAt>} model. */
class AdjacencyArrayPropertyTest {

    private static final int TRIES = 200;

    @Provide
    Arbitrary<Recipe> recipes() {
        return Rows.recipes();
    }

    @Property(tries = TRIES)
    void contains_agreesWithModel(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followingRow(model);
        SplittableRandom random = new SplittableRandom(seed);

        for (int k = 0; k < 50; k++) {
            long probe = random.nextBoolean() && !model.isEmpty()
                    ? row.ids()[random.nextInt(row.ids().length)] : recipe.randomId(random);
            assertThat(AdjacencyArray.contains(row.ids(), probe)).isEqualTo(model.containsKey(probe));
        }
        assertThat(AdjacencyArray.contains(row.ids(), 0)).isFalse();
        assertThat(AdjacencyArray.contains(row.ids(), -1)).isFalse();
    }

    @Property(tries = TRIES)
    void insert_agreesWithModel_andIsIdempotent(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followingRow(model);
        Row before = copy(row);
        SplittableRandom random = new SplittableRandom(seed);
        long id = random.nextBoolean() && !model.isEmpty()
                ? row.ids()[random.nextInt(row.ids().length)] : recipe.randomId(random);
        long t = recipe.randomTime(random);

        Adjacency once = AdjacencyArray.insert(row.ids(), row.followedAt(), id, t);
        Adjacency twice = AdjacencyArray.insert(once.ids(), once.followedAt(), id, t + 1);

        boolean wasAbsent = model.putIfAbsent(id, t) == null;
        assertThat(once.changed()).isEqualTo(wasAbsent);
        assertRow(once, model);
        AdjacencyArray.requireWellFormed(once.ids(), once.followedAt());
        assertThat(twice.changed()).isFalse();
        assertThat(twice.ids()).isSameAs(once.ids());
        assertThat(twice.followedAt()).isSameAs(once.followedAt());
        if (!wasAbsent) {
            assertThat(once.ids()).isSameAs(row.ids());
        }
        assertUnmodified(row, before);
    }

    @Property(tries = TRIES)
    void remove_agreesWithModel_andIsIdempotent(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followingRow(model);
        Row before = copy(row);
        SplittableRandom random = new SplittableRandom(seed);
        long id = random.nextBoolean() && !model.isEmpty()
                ? row.ids()[random.nextInt(row.ids().length)] : recipe.randomId(random);

        Adjacency once = AdjacencyArray.remove(row.ids(), row.followedAt(), id);
        Adjacency twice = AdjacencyArray.remove(once.ids(), once.followedAt(), id);

        Long removedAt = model.remove(id);
        assertThat(once.changed()).isEqualTo(removedAt != null);
        assertThat(once.removedFollowedAt()).isEqualTo(removedAt != null ? removedAt : Adjacency.NO_TIME);
        assertRow(once, model);
        assertThat(twice.changed()).isFalse();
        assertThat(twice.ids()).isSameAs(once.ids());
        assertThat(twice.removedFollowedAt()).isEqualTo(Adjacency.NO_TIME);
        assertUnmodified(row, before);
    }

    @Property(tries = TRIES)
    void insertThenRemove_restoresRow(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        Row row = Rows.followingRow(recipe.model());
        SplittableRandom random = new SplittableRandom(seed);
        long id = recipe.randomId(random);
        long t = recipe.randomTime(random);
        if (AdjacencyArray.contains(row.ids(), id)) {
            return;
        }

        Adjacency inserted = AdjacencyArray.insert(row.ids(), row.followedAt(), id, t);
        Adjacency removed = AdjacencyArray.remove(inserted.ids(), inserted.followedAt(), id);

        assertThat(removed.ids()).isEqualTo(row.ids());
        assertThat(removed.followedAt()).isEqualTo(row.followedAt());
        assertThat(removed.removedFollowedAt()).isEqualTo(t);
    }

    @Property(tries = TRIES)
    void intersect_agreesWithRetainAll(@ForAll("recipes") Recipe first, @ForAll("recipes") Recipe second,
            @ForAll @IntRange(min = 0, max = 12_000) int limit, @ForAll long seed) {
        // Same domain and a shared seed-derived subset, so that the two lists overlap.
        Recipe aligned = new Recipe(second.size(), second.seed(), first.idDomain(), first.timeDomain());
        TreeSet<Long> a = new TreeSet<>(first.model().keySet());
        TreeSet<Long> b = new TreeSet<>(aligned.model().keySet());
        SplittableRandom random = new SplittableRandom(seed);
        for (Long id : a) {
            if (random.nextInt(3) == 0) {
                b.add(id);
            }
        }

        long[] result = AdjacencyArray.intersect(toArray(a), toArray(b), limit);

        TreeSet<Long> expected = new TreeSet<>(a);
        expected.retainAll(b);
        assertThat(result).containsExactly(toArray(first(expected, limit)));
        assertThat(AdjacencyArray.intersect(toArray(b), toArray(a), limit)).isEqualTo(result);
    }

    @Property(tries = TRIES)
    void intersect_afterId_returnsPageOfCommonIds(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 1, max = 64) int smallSize, @ForAll @IntRange(min = 0, max = 100) int limit,
            @ForAll long seed) {
        // A small list against a large one, mostly drawn from it: the galloping path.
        TreeSet<Long> large = new TreeSet<>(recipe.model().keySet());
        SplittableRandom random = new SplittableRandom(seed);
        TreeSet<Long> small = new TreeSet<>();
        List<Long> largeList = new ArrayList<>(large);
        for (int k = 0; k < smallSize; k++) {
            small.add(!largeList.isEmpty() && random.nextInt(4) > 0
                    ? largeList.get(random.nextInt(largeList.size())) : recipe.randomId(random));
        }
        long afterId = random.nextBoolean() || small.isEmpty() ? recipe.randomId(random)
                : new ArrayList<>(small).get(random.nextInt(small.size()));

        long[] result = AdjacencyArray.intersect(toArray(small), toArray(large), afterId, limit);

        TreeSet<Long> expected = new TreeSet<>(small.tailSet(afterId, false));
        expected.retainAll(large);
        assertThat(result).containsExactly(toArray(first(expected, limit)));
    }

    @Property(tries = TRIES)
    void lowerBound_agreesWithLinearScan(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        long[] sorted = Rows.followingRow(recipe.model()).ids();
        SplittableRandom random = new SplittableRandom(seed);
        for (int k = 0; k < 20; k++) {
            int from = random.nextInt(sorted.length + 1);
            long key = random.nextBoolean() && sorted.length > 0
                    ? sorted[random.nextInt(sorted.length)] + random.nextInt(3) - 1 : recipe.randomId(random);
            int expected = from;
            while (expected < sorted.length && sorted[expected] < key) {
                expected++;
            }
            assertThat(AdjacencyArray.lowerBound(sorted, from, key)).isEqualTo(expected);
        }
    }

    @Property(tries = TRIES)
    void newestFirst_fromAnyPosition_agreesWithModel(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 0, max = 200) int limit, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followingRow(model);
        Entry cursor = Rows.randomPosition(recipe, row, new SplittableRandom(seed));

        Page page = AdjacencyArray.newestFirst(row.ids(), row.followedAt(), cursor.followedAt(), cursor.id(), limit);

        List<Entry> after = Rows.newestFirst(model).stream()
                .filter(e -> Entry.NEWEST_FIRST.compare(e, cursor) > 0)
                .toList();
        assertPage(page, after, limit);
        assertThat(TimeOrder.of(row.ids(), row.followedAt()).page(cursor.followedAt(), cursor.id(), limit))
                .isEqualTo(page);
    }

    @Property(tries = TRIES)
    void newestFirst_pageWalk_visitsEveryEntryOnceInOrder(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 1, max = 40) int pages) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followingRow(model);
        int limit = Math.max(1, (model.size() + pages - 1) / pages);
        TimeOrder order = TimeOrder.of(row.ids(), row.followedAt());

        List<Entry> walked = walk(limit, (t, id) -> AdjacencyArray.newestFirst(row.ids(), row.followedAt(), t, id,
                limit));
        List<Entry> walkedCached = walk(limit, (t, id) -> order.page(t, id, limit));

        assertThat(walked).containsExactlyElementsOf(Rows.newestFirst(model));
        assertThat(walkedCached).isEqualTo(walked);
    }

    @Property(tries = TRIES)
    void mostRecent_agreesWithModel(@ForAll("recipes") Recipe recipe, @ForAll @IntRange(min = 0, max = 600) int k) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followingRow(model);

        long[] recent = AdjacencyArray.mostRecent(row.ids(), row.followedAt(), k);

        long[] expected = Rows.newestFirst(model).stream().limit(k).mapToLong(Entry::id).toArray();
        assertThat(recent).containsExactly(expected);
        assertThat(TimeOrder.of(row.ids(), row.followedAt()).mostRecent(k)).containsExactly(expected);
    }

    @Property(tries = TRIES)
    void timeOrder_isFollowerLayoutOfRow(@ForAll("recipes") Recipe recipe) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followingRow(model);
        Row before = copy(row);

        TimeOrder order = TimeOrder.of(row.ids(), row.followedAt());

        Page all = order.page(Integer.MAX_VALUE);
        assertThat(order.size()).isEqualTo(model.size());
        assertThat(all.hasMore()).isFalse();
        assertThat(Rows.toModel(all.ids(), all.followedAt())).isEqualTo(model);
        assertUnmodified(row, before);
    }

    /** Walks pages from the start until {@code hasMore} is false; every page but the last is full. */
    static List<Entry> walk(int limit, PageSource source) {
        List<Entry> seen = new ArrayList<>();
        Page page = source.page(0L, Page.START);
        while (true) {
            for (int i = 0; i < page.size(); i++) {
                seen.add(new Entry(page.followedAt()[i], page.ids()[i]));
            }
            if (!page.hasMore()) {
                return seen;
            }
            assertThat(page.size()).isEqualTo(limit);
            page = source.page(page.lastFollowedAt(), page.lastId());
        }
    }

    interface PageSource {
        Page page(long cursorFollowedAt, long cursorId);
    }

    static void assertPage(Page page, List<Entry> after, int limit) {
        List<Entry> expected = after.subList(0, Math.min(limit, after.size()));
        assertThat(page.ids()).containsExactly(expected.stream().mapToLong(Entry::id).toArray());
        assertThat(page.followedAt()).containsExactly(expected.stream().mapToLong(Entry::followedAt).toArray());
        assertThat(page.hasMore()).isEqualTo(after.size() > limit);
    }

    private static void assertRow(Adjacency result, TreeMap<Long, Long> model) {
        Row expected = Rows.followingRow(model);
        assertThat(result.ids()).isEqualTo(expected.ids());
        assertThat(result.followedAt()).isEqualTo(expected.followedAt());
    }

    static Row copy(Row row) {
        return new Row(row.ids().clone(), row.followedAt().clone());
    }

    static void assertUnmodified(Row row, Row before) {
        assertThat(row.ids()).isEqualTo(before.ids());
        assertThat(row.followedAt()).isEqualTo(before.followedAt());
    }

    private static long[] toArray(java.util.Collection<Long> values) {
        return values.stream().mapToLong(Long::longValue).toArray();
    }

    private static List<Long> first(TreeSet<Long> values, int limit) {
        return values.stream().limit(limit).toList();
    }
}
