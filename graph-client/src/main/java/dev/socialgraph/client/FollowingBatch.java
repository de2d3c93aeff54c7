package dev.socialgraph.client;

import java.util.Arrays;

/**
 * The answer to a batch check, {@link FollowCheckClient#areFollowing}: which of the asked ids the follower follows,
 * by position in the caller's array or by id. Immutable.
 */
public final class FollowingBatch {

    private final long follower;
    private final long[] asked;
    /** Ascending, each id once. */
    private final long[] following;

    FollowingBatch(long follower, long[] asked, long[] followingAscending) {
        this.follower = follower;
        this.asked = asked.clone();
        this.following = followingAscending;
    }

    /**
     * The follower asked about.
     *
     * @return a user id
     */
    public long follower() {
        return follower;
    }

    /**
     * How many ids were asked, repeats included.
     *
     * @return the asked array's length
     */
    public int size() {
        return asked.length;
    }

    /**
     * The {@code i}-th asked id.
     *
     * @param i {@code 0..size()-1}
     * @return the id at that position of the caller's array
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public long id(int i) {
        return asked[i];
    }

    /**
     * Whether the follower follows the {@code i}-th asked id.
     *
     * @param i {@code 0..size()-1}
     * @return the answer for the id at that position of the caller's array
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public boolean isFollowing(int i) {
        return follows(asked[i]);
    }

    /**
     * Whether the follower follows {@code followee}.
     *
     * @param followee a user id; one not asked reads {@code false}
     * @return whether it is among the followed ids
     */
    public boolean follows(long followee) {
        return Arrays.binarySearch(following, followee) >= 0;
    }

    /**
     * The asked ids the follower follows.
     *
     * @return a new array, ascending, each id once
     */
    public long[] following() {
        return following.clone();
    }

    /**
     * The asked ids the follower does not follow.
     *
     * @return a new array, ascending, each id once
     */
    public long[] notFollowing() {
        return Arrays.stream(asked).filter(id -> !follows(id)).sorted().distinct().toArray();
    }

    /**
     * The answers by position, as the old {@code boolean[]} form.
     *
     * @return a new array of {@link #size()} answers, {@code [i]} for the {@code i}-th asked id
     */
    public boolean[] toArray() {
        boolean[] answers = new boolean[asked.length];
        for (int i = 0; i < answers.length; i++) {
            answers[i] = follows(asked[i]);
        }
        return answers;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FollowingBatch b && b.follower == follower && Arrays.equals(b.asked, asked)
                && Arrays.equals(b.following, following);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(follower) * 31 + Arrays.hashCode(asked);
    }

    @Override
    public String toString() {
        return "FollowingBatch[follower=" + follower + ", following=" + Arrays.toString(following) + ", notFollowing="
                + Arrays.toString(notFollowing()) + "]";
    }
}
