package dev.socialgraph.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares a recorded history with what readers saw and with the stored graph after convergence.
 *
 * <p>The model: the writes of one pair come from one client thread, one at a time, so they are totally ordered.
 * Every pair starts not following. An acknowledged write sets the pair's state; a rejected one (4xx) changes
 * nothing; a write that got no clear answer (503, another 5xx, no answer) may or may not have happened, so after
 * it the pair may be in either its earlier states or the write's. A check that started {@code boundMs} or more
 * after a write was acknowledged must reflect it, unless a later write of the pair overlaps that window: the
 * allowed answers are the states possible after every write that ended at least {@code boundMs} before the check
 * started, plus the state of every write that ended later but started before the check ended. Any other answer is
 * a stale read past the bound (DESIGN.md 7: a follow propagates to every reader within 2 s).
 */
public final class Checker {

    private Checker() {
    }

    /**
     * What the check found.
     *
     * @param writesAcknowledged writes answered 2xx
     * @param checksAnswered     checks answered 2xx
     * @param staleReads         checks whose answer no write history allows, with the bound applied
     * @param lostAcks           pairs whose every possible final state is following but which the store does not hold
     * @param phantoms           pairs stored as following that no possible final state allows
     * @param errors             answers with a 5xx other than an announced outage (503 with Retry-After), by kind
     * @param unavailable        503 answers with Retry-After, by kind (expected while a fault lasts)
     * @param unreachable        requests that got no answer, by kind
     * @param examples           up to 20 violations described for a person
     */
    public record Report(long writesAcknowledged, long checksAnswered, long staleReads, long lostAcks, long phantoms,
                         Map<Op.Kind, Long> errors, Map<Op.Kind, Long> unavailable, Map<Op.Kind, Long> unreachable,
                         List<String> examples) {

        /** Sum of the given per-kind counts. */
        public static long total(Map<Op.Kind, Long> byKind) {
            return byKind.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * Checks a history.
     *
     * @param history  every request of the run, in any order
     * @param stored   the pairs of the workload and whether the converged store holds each as following (a pair
     *                 missing from the map is not checked against the store)
     * @param boundMs  the propagation bound in milliseconds (2,000 in DESIGN.md 7), {@code >= 0}
     * @return the findings
     * @throws IllegalArgumentException for a negative bound
     */
    public static Report check(List<Op> history, Map<Op.Pair, Boolean> stored, long boundMs) {
        if (boundMs < 0) {
            throw new IllegalArgumentException("boundMs must not be negative, was " + boundMs);
        }
        Map<Op.Pair, List<Op>> writes = new HashMap<>();
        Map<Op.Pair, List<Op>> checks = new HashMap<>();
        Map<Op.Kind, Long> errors = new LinkedHashMap<>();
        Map<Op.Kind, Long> unavailable = new LinkedHashMap<>();
        Map<Op.Kind, Long> unreachable = new LinkedHashMap<>();
        long acknowledged = 0;
        long answered = 0;
        for (Op op : history) {
            switch (op.outcome()) {
                case ERROR -> errors.merge(op.kind(), 1L, Long::sum);
                case UNAVAILABLE -> unavailable.merge(op.kind(), 1L, Long::sum);
                case UNREACHABLE -> unreachable.merge(op.kind(), 1L, Long::sum);
                default -> { }
            }
            if (op.kind() == Op.Kind.CHECK) {
                if (op.outcome() == Op.Outcome.OK) {
                    answered++;
                    checks.computeIfAbsent(op.pair(), p -> new ArrayList<>()).add(op);
                }
            } else {
                acknowledged += op.outcome() == Op.Outcome.OK ? 1 : 0;
                writes.computeIfAbsent(op.pair(), p -> new ArrayList<>()).add(op);
            }
        }
        List<String> examples = new ArrayList<>();
        long stale = 0;
        for (Map.Entry<Op.Pair, List<Op>> e : checks.entrySet()) {
            List<Op> pairWrites = new ArrayList<>(writes.getOrDefault(e.getKey(), List.of()));
            pairWrites.sort(Comparator.comparingLong(Op::startMs));
            for (Op read : e.getValue()) {
                Set<Boolean> allowed = allowedAt(pairWrites, read, boundMs);
                if (!allowed.contains(read.value())) {
                    stale++;
                    note(examples, "stale read " + read + " allowed " + allowed + " after " + pairWrites);
                }
            }
        }
        long lost = 0;
        long phantoms = 0;
        for (Map.Entry<Op.Pair, Boolean> e : stored.entrySet()) {
            List<Op> pairWrites = new ArrayList<>(writes.getOrDefault(e.getKey(), List.of()));
            pairWrites.sort(Comparator.comparingLong(Op::startMs));
            Set<Boolean> possible = finalStates(pairWrites);
            if (!possible.contains(e.getValue())) {
                if (e.getValue()) {
                    phantoms++;
                    note(examples, "phantom edge " + e.getKey() + " after " + pairWrites);
                } else {
                    lost++;
                    note(examples, "lost acknowledged follow " + e.getKey() + " after " + pairWrites);
                }
            }
        }
        return new Report(acknowledged, answered, stale, lost, phantoms, errors, unavailable, unreachable, examples);
    }

    /** The states a check may answer, given the pair's writes in start order. */
    static Set<Boolean> allowedAt(List<Op> pairWrites, Op read, long boundMs) {
        Set<Boolean> states = Set.of(false);
        Set<Boolean> concurrent = Set.of();
        for (Op w : pairWrites) {
            if (w.endMs() <= read.startMs() - boundMs) {
                states = after(states, w);
            } else if (w.startMs() < read.endMs()) {
                concurrent = union(concurrent, Set.of(w.kind().writes()));
            }
        }
        return union(states, concurrent);
    }

    /** The states the pair may be in once every write has settled. */
    static Set<Boolean> finalStates(List<Op> pairWrites) {
        Set<Boolean> states = Set.of(false);
        for (Op w : pairWrites) {
            states = after(states, w);
        }
        return states;
    }

    private static Set<Boolean> after(Set<Boolean> states, Op write) {
        if (write.outcome() == Op.Outcome.OK) {
            return Set.of(write.kind().writes());
        }
        return write.outcome().maybeApplied() ? union(states, Set.of(write.kind().writes())) : states;
    }

    private static Set<Boolean> union(Set<Boolean> a, Set<Boolean> b) {
        if (b.isEmpty() || a.containsAll(b)) {
            return a;
        }
        Set<Boolean> out = new HashSet<>(a);
        out.addAll(b);
        return Set.copyOf(out);
    }

    private static void note(List<String> examples, String line) {
        if (examples.size() < 20) {
            examples.add(line);
        }
    }
}
