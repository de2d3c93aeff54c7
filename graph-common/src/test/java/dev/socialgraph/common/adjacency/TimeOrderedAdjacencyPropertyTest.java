package dev.socialgraph.common.adjacency;

import static dev.socialgraph.common.adjacency.AdjacencyArrayPropertyTest.assertPage;
import static dev.socialgraph.common.adjacency.AdjacencyArrayPropertyTest.assertUnmodified;
import static dev.socialgraph.common.adjacency.AdjacencyArrayPropertyTest.copy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.common.adjacency.Rows.Entry;
import dev.socialgraph.common.adjacency.Rows.Op;
import dev.socialgraph.common.adjacency.Rows.Recipe;
import dev.socialgraph.common.adjacency.Rows.Row;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link TimeOrderedAdjacency} against a model: a {@code TreeMap<id, followedAt>} for membership and a
 * {@code TreeSet<Entry>} in {@code (followedAt, id)} order for the layout.
 */
class TimeOrderedAdjacencyPropertyTest {

    private static final int TRIES = 200;

    @Provide
    Arbitrary<Recipe> recipes() {
        return Rows.recipes();
    }

    @Property(tries = TRIES)
    void insert_agreesWithModel_andIsIdempotent(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followerRow(model);
        Row before = copy(row);
        Op op = Rows.ops(recipe, row, 1, seed).getFirst();

        Adjacency once = TimeOrderedAdjacency.insert(row.ids(), row.followedAt(), op.id(), op.followedAt());
        Adjacency twice = TimeOrderedAdjacency.insert(once.ids(), once.followedAt(), op.id(), op.followedAt());

        boolean wasAbsent = model.putIfAbsent(op.id(), op.followedAt()) == null;
        assertThat(once.changed()).isEqualTo(wasAbsent);
        assertLayout(once, model);
        assertThat(twice.changed()).isFalse();
        assertThat(twice.ids()).isSameAs(once.ids());
        assertThat(twice.followedAt()).isSameAs(once.followedAt());
        assertUnmodified(row, before);
    }

    @Property(tries = TRIES)
    void remove_removesOnlyExactEdge_andIsIdempotent(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followerRow(model);
        Row before = copy(row);
        Op op = Rows.ops(recipe, row, 1, seed).getFirst();

        Adjacency once = TimeOrderedAdjacency.remove(row.ids(), row.followedAt(), op.id(), op.followedAt());
        Adjacency twice = TimeOrderedAdjacency.remove(once.ids(), once.followedAt(), op.id(), op.followedAt());

        boolean exact = model.containsKey(op.id()) && model.get(op.id()) == op.followedAt();
        if (exact) {
            model.remove(op.id());
        }
        assertThat(once.changed()).isEqualTo(exact);
        assertThat(once.removedFollowedAt()).isEqualTo(exact ? op.followedAt() : Adjacency.NO_TIME);
        assertLayout(once, model);
        assertThat(twice.changed()).isFalse();
        assertThat(twice.ids()).isSameAs(once.ids());
        assertUnmodified(row, before);
    }

    @Property(tries = TRIES)
    void apply_equalsSequentialSingleOps(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 0, max = 80) int opCount, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followerRow(model);
        Row before = copy(row);
        List<Op> ops = Rows.ops(recipe, row, opCount, seed);

        long[] ids = row.ids();
        long[] times = row.followedAt();
        for (Op op : ops) {
            Adjacency step = op.follow()
                    ? TimeOrderedAdjacency.insert(ids, times, op.id(), op.followedAt())
                    : TimeOrderedAdjacency.remove(ids, times, op.id(), op.followedAt());
            ids = step.ids();
            times = step.followedAt();
        }
        Adjacency batch = TimeOrderedAdjacency.apply(row.ids(), row.followedAt(),
                ops.stream().mapToLong(Op::id).toArray(), ops.stream().mapToLong(Op::followedAt).toArray(),
                booleans(ops));

        assertThat(batch.ids()).isEqualTo(ids);
        assertThat(batch.followedAt()).isEqualTo(times);
        boolean contentChanged = !java.util.Arrays.equals(ids, row.ids())
                || !java.util.Arrays.equals(times, row.followedAt());
        assertThat(batch.changed()).isEqualTo(contentChanged);
        if (!contentChanged) {
            assertThat(batch.ids()).isSameAs(row.ids());
            assertThat(batch.followedAt()).isSameAs(row.followedAt());
        }
        assertThat(batch.removedFollowedAt()).isEqualTo(Adjacency.NO_TIME);
        TimeOrderedAdjacency.requireWellFormed(batch.ids(), batch.followedAt());
        assertUnmodified(row, before);
    }

    @Property(tries = TRIES)
    void apply_whenSuffixRedelivered_reachesSameStateAsOnce(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 0, max = 60) int eventCount, @ForAll long seed) {
        // The real event stream is consistent with the following side (an unfollow carries the time of
        // the edge that exists). The consumer commits the row after events [0, committed), crashes before
        // committing offsets, and gets events from an earlier offset again: at least once (DESIGN.md 4).
        TreeMap<Long, Long> truth = recipe.model();
        Row row = Rows.followerRow(truth);
        List<Op> history = Rows.history(recipe, truth, eventCount, seed);
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int committed = random.nextInt(eventCount + 1);
        int redeliveredFrom = random.nextInt(committed + 1);

        Adjacency beforeCrash = apply(row.ids(), row.followedAt(), history.subList(0, committed));
        Adjacency afterRedelivery = apply(beforeCrash.ids(), beforeCrash.followedAt(),
                history.subList(redeliveredFrom, eventCount));

        assertLayout(afterRedelivery, truth);
        Adjacency once = apply(row.ids(), row.followedAt(), history);
        assertThat(afterRedelivery.ids()).isEqualTo(once.ids());
        assertThat(afterRedelivery.followedAt()).isEqualTo(once.followedAt());
    }

    @Property(tries = TRIES)
    void remove_whenStaleUnfollowReplayed_keepsNewerFollow(@ForAll("recipes") Recipe recipe, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followerRow(model);
        SplittableRandom random = new SplittableRandom(seed);
        long id = recipe.randomId(random);
        long t1 = recipe.randomTime(random);
        long t2 = recipe.randomTime(random);
        if (model.containsKey(id) || t1 == t2) {
            return;
        }

        Adjacency followed = TimeOrderedAdjacency.insert(row.ids(), row.followedAt(), id, t1);
        Adjacency unfollowed = TimeOrderedAdjacency.remove(followed.ids(), followed.followedAt(), id, t1);
        Adjacency refollowed = TimeOrderedAdjacency.insert(unfollowed.ids(), unfollowed.followedAt(), id, t2);
        Adjacency replayed = TimeOrderedAdjacency.remove(refollowed.ids(), refollowed.followedAt(), id, t1);

        assertThat(replayed.changed()).isFalse();
        model.put(id, t2);
        assertLayout(replayed, model);
    }

    private static Adjacency apply(long[] ids, long[] times, List<Op> ops) {
        return TimeOrderedAdjacency.apply(ids, times, ops.stream().mapToLong(Op::id).toArray(),
                ops.stream().mapToLong(Op::followedAt).toArray(), booleans(ops));
    }

    @Property(tries = TRIES)
    void newestFirst_fromAnyPosition_agreesWithModel(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 0, max = 200) int limit, @ForAll long seed) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followerRow(model);
        Entry cursor = Rows.randomPosition(recipe, row, new SplittableRandom(seed));

        Page page = TimeOrderedAdjacency.newestFirst(row.ids(), row.followedAt(), cursor.followedAt(), cursor.id(),
                limit);

        List<Entry> after = Rows.newestFirst(model).stream()
                .filter(e -> Entry.NEWEST_FIRST.compare(e, cursor) > 0)
                .toList();
        assertPage(page, after, limit);
    }

    @Property(tries = TRIES)
    void newestFirst_pageWalk_visitsEveryEntryOnceInOrder(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 1, max = 200) int pages) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followerRow(model);
        int limit = Math.max(1, (model.size() + pages - 1) / pages);

        List<Entry> walked = AdjacencyArrayPropertyTest.walk(limit,
                (t, id) -> TimeOrderedAdjacency.newestFirst(row.ids(), row.followedAt(), t, id, limit));

        assertThat(walked).containsExactlyElementsOf(Rows.newestFirst(model));
    }

    @Property(tries = TRIES)
    void newestFirst_whenCursorEntryRemovedBetweenPages_continuesAfterIt(@ForAll("recipes") Recipe recipe,
            @ForAll @IntRange(min = 1, max = 20) int limit) {
        TreeMap<Long, Long> model = recipe.model();
        Row row = Rows.followerRow(model);
        Page first = TimeOrderedAdjacency.newestFirst(row.ids(), row.followedAt(), limit);
        if (first.isEmpty()) {
            return;
        }

        Adjacency unfollowed = TimeOrderedAdjacency.remove(row.ids(), row.followedAt(), first.lastId(),
                first.lastFollowedAt());
        Page second = TimeOrderedAdjacency.newestFirst(unfollowed.ids(), unfollowed.followedAt(),
                first.lastFollowedAt(), first.lastId(), limit);

        List<Entry> all = Rows.newestFirst(model);
        assertPage(second, all.subList(first.size(), all.size()), limit);
    }

    @Property(tries = TRIES)
    void requireWellFormed_acceptsEveryGeneratedRow(@ForAll("recipes") Recipe recipe) {
        Row row = Rows.followerRow(recipe.model());

        TimeOrderedAdjacency.requireWellFormed(row.ids(), row.followedAt());
    }

    private static void assertLayout(Adjacency result, TreeMap<Long, Long> model) {
        TreeSet<Entry> expected = new TreeSet<>(Entry.ASCENDING);
        model.forEach((id, t) -> expected.add(new Entry(t, id)));
        long[] ids = expected.stream().mapToLong(Entry::id).toArray();
        long[] times = expected.stream().mapToLong(Entry::followedAt).toArray();
        assertThat(result.ids()).isEqualTo(ids);
        assertThat(result.followedAt()).isEqualTo(times);
    }

    private static boolean[] booleans(List<Op> ops) {
        boolean[] out = new boolean[ops.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ops.get(i).follow();
        }
        return out;
    }
}
