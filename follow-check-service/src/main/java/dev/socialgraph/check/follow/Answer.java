package dev.socialgraph.check.follow;

/**
 * What a layer of the read path says to one yes-or-no question ("does a follow b?", "is an edge between a and b
 * visible?"), as an {@code int} so that the check path allocates nothing: {@link #YES} or {@link #NO} when the layer
 * answered, {@link #NEXT} when it cannot tell and the next layer is to be asked. The one scheme of every layer that
 * may not know: the Redis cache ({@link FollowChecker.Cache}), the account rule
 * ({@code AccountVisibility.answer}), the follow check through its layers ({@link FollowChecker}), and the reads
 * composed of them ({@code GraphReads}). A read asked on an I/O thread answers {@link #NEXT} when the next layer would
 * block: the same read, asked again where blocking is allowed, finishes it.
 */
public final class Answer {

    /** Answered: no. */
    public static final int NO = 0;
    /** Answered: yes. */
    public static final int YES = 1;
    /** Not answered: ask the next layer (from an I/O thread: ask again where blocking is allowed). */
    public static final int NEXT = -1;

    private Answer() {
    }

    /**
     * Whether a layer answered.
     *
     * @param answer {@link #YES}, {@link #NO} or {@link #NEXT}
     * @return {@code true} for {@link #YES} and {@link #NO}
     */
    public static boolean isAnswer(int answer) {
        return answer >= 0;
    }

    /**
     * The answer {@code yes}.
     *
     * @param yes the answer
     * @return {@link #YES} or {@link #NO}
     */
    public static int of(boolean yes) {
        return yes ? YES : NO;
    }
}
