package dev.socialgraph.common.adjacency;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generators and models for the adjacency properties.
 *
 * <p>jqwik picks a {@link Recipe} (size, seed, id and time domains) and the row is built from it with
 * a seeded {@link SplittableRandom}: a 10,000-entry row costs microseconds to generate and shrinks by
 * shrinking its size, where a jqwik-generated set of 10,000 longs would make shrinking crawl.
 */
final class Rows {

    /** Where ids come from. DENSE makes overlaps and collisions likely; NEAR_MAX tests the top of the range. */
    enum IdDomain { DENSE, NEAR_MAX, WIDE }

    /** Where times come from. FEW forces equal timestamps (ties broken by id); WIDE includes negative longs. */
    enum TimeDomain { FEW, SPREAD, WIDE }

    static final long T0 = 1_700_000_000_000L;

    record Recipe(int size, long seed, IdDomain idDomain, TimeDomain timeDomain) {

        SplittableRandom random() {
            return new SplittableRandom(seed);
        }

        long randomId(SplittableRandom random) {
            long span = 3L * size + 10;
            return switch (idDomain) {
                case DENSE -> 1 + random.nextLong(span);
                case NEAR_MAX -> Long.MAX_VALUE - random.nextLong(span);
                case WIDE -> 1 + random.nextLong(Long.MAX_VALUE);
            };
        }

        long randomTime(SplittableRandom random) {
            return switch (timeDomain) {
                case FEW -> T0 + random.nextLong(4);
                case SPREAD -> T0 + random.nextLong(1_000_000);
                case WIDE -> random.nextLong();
            };
        }

        /** A model row: id to follow time, {@code size} distinct ids. */
        TreeMap<Long, Long> model() {
            SplittableRandom random = random();
            TreeMap<Long, Long> model = new TreeMap<>();
            while (model.size() < size) {
                model.putIfAbsent(randomId(random), randomTime(random));
            }
            return model;
        }
    }

    /** A time-ordered pair, for models of the follower row and of newest-first order. */
    record Entry(long followedAt, long id) {
        static final Comparator<Entry> ASCENDING =
                Comparator.comparingLong(Entry::followedAt).thenComparingLong(Entry::id);
        static final Comparator<Entry> NEWEST_FIRST = ASCENDING.reversed();
    }

    /** A row as its two aligned arrays. */
    record Row(long[] ids, long[] followedAt) {
    }

    private Rows() {
    }

    /** Row sizes: mostly small, with empty, single and the 10,000-entry following cap mixed in. */
    static Arbitrary<Integer> sizes() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0)),
                Tuple.of(3, Arbitraries.just(1)),
                Tuple.of(20, Arbitraries.integers().between(2, 64)),
                Tuple.of(3, Arbitraries.integers().between(65, 1_000)),
                Tuple.of(1, Arbitraries.just(10_000)));
    }

    static Arbitrary<Recipe> recipes() {
        return Combinators.combine(sizes(), Arbitraries.longs(), Arbitraries.of(IdDomain.class),
                Arbitraries.of(TimeDomain.class)).as(Recipe::new);
    }

    /** The following-row layout of a model: ids ascending, times aligned. */
    static Row followingRow(TreeMap<Long, Long> model) {
        long[] ids = new long[model.size()];
        long[] times = new long[model.size()];
        int i = 0;
        for (Map.Entry<Long, Long> e : model.entrySet()) {
            ids[i] = e.getKey();
            times[i++] = e.getValue();
        }
        return new Row(ids, times);
    }

    /** The follower-row layout of a model: {@code (followedAt, id)} ascending. */
    static Row followerRow(TreeMap<Long, Long> model) {
        List<Entry> entries = newestFirst(model);
        long[] ids = new long[entries.size()];
        long[] times = new long[entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(entries.size() - 1 - i);
            ids[i] = e.id();
            times[i] = e.followedAt();
        }
        return new Row(ids, times);
    }

    /** The model's entries in newest-first order. */
    static List<Entry> newestFirst(Map<Long, Long> model) {
        List<Entry> entries = new ArrayList<>(model.size());
        model.forEach((id, t) -> entries.add(new Entry(t, id)));
        entries.sort(Entry.NEWEST_FIRST);
        return entries;
    }

    /** Converts a row's arrays back to a model, failing on a duplicate id. */
    static TreeMap<Long, Long> toModel(long[] ids, long[] times) {
        TreeMap<Long, Long> model = new TreeMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (model.put(ids[i], times[i]) != null) {
                throw new AssertionError("duplicate id " + ids[i] + " at index " + i);
            }
        }
        return model;
    }

    /** A cursor position: usually an existing entry, sometimes a neighbour of one or a random pair. */
    static Entry randomPosition(Recipe recipe, Row row, SplittableRandom random) {
        int n = row.ids().length;
        int choice = random.nextInt(4);
        if (n > 0 && choice < 2) {
            int i = random.nextInt(n);
            return new Entry(row.followedAt()[i], row.ids()[i]);
        }
        if (n > 0 && choice == 2) {
            int i = random.nextInt(n);
            long id = Math.max(1, row.ids()[i] + (random.nextBoolean() ? 1 : -1));
            return new Entry(row.followedAt()[i], id);
        }
        return new Entry(recipe.randomTime(random), recipe.randomId(random));
    }

    /** One event of a batch. */
    record Op(long id, long followedAt, boolean follow) {
    }

    /**
     * A sequence of follow and unfollow events aimed at the row: existing entries (with their exact time,
     * or another), ids used earlier in the sequence (follow, unfollow, re-follow chains) and new ids.
     */
    static List<Op> ops(Recipe recipe, Row row, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Op> ops = new ArrayList<>(count);
        int n = row.ids().length;
        for (int k = 0; k < count; k++) {
            long id;
            long t;
            int choice = random.nextInt(10);
            if (n > 0 && choice < 4) {
                int i = random.nextInt(n);
                id = row.ids()[i];
                t = random.nextInt(4) > 0 ? row.followedAt()[i] : recipe.randomTime(random);
            } else if (!ops.isEmpty() && choice < 7) {
                Op earlier = ops.get(random.nextInt(ops.size()));
                id = earlier.id();
                t = random.nextBoolean() ? earlier.followedAt() : recipe.randomTime(random);
            } else {
                id = recipe.randomId(random);
                t = recipe.randomTime(random);
            }
            ops.add(new Op(id, t, random.nextBoolean()));
        }
        return ops;
    }

    /**
     * A history of events consistent with {@code truth}, which it updates: a follow only of an id not
     * followed (the write path emits no event for a repeated follow), an unfollow only of a followed id
     * and carrying that edge's time. Ids re-used across the history give follow, unfollow, re-follow chains.
     */
    static List<Op> history(Recipe recipe, TreeMap<Long, Long> truth, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Op> events = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            long id;
            int choice = random.nextInt(10);
            if (!truth.isEmpty() && choice < 3) {
                Long[] some = {truth.firstKey(), truth.lastKey(), truth.ceilingKey(recipe.randomId(random))};
                Long picked = some[random.nextInt(3)];
                id = picked != null ? picked : truth.firstKey();
            } else if (!events.isEmpty() && choice < 7) {
                id = events.get(random.nextInt(events.size())).id();
            } else {
                id = recipe.randomId(random);
            }
            Long followedAt = truth.get(id);
            if (followedAt != null) {
                truth.remove(id);
                events.add(new Op(id, followedAt, false));
            } else {
                long t = recipe.randomTime(random);
                truth.put(id, t);
                events.add(new Op(id, t, true));
            }
        }
        return events;
    }
}
