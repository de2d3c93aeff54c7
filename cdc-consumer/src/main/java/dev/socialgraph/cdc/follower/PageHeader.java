package dev.socialgraph.cdc.follower;

import dev.socialgraph.store.CelebrityPage;

/**
 * What the consumer needs to know of every celebrity page without reading its arrays: its number, its size and its
 * first entry, which route a new follower to its page and give the follower count.
 *
 * @param pageNum         page number, 0 = oldest
 * @param size            entries on the page
 * @param firstId         the first (oldest) entry's follower id; meaningless when {@code size == 0}
 * @param firstFollowedAt the first entry's follow time, epoch ms; meaningless when {@code size == 0}
 */
record PageHeader(int pageNum, int size, long firstId, long firstFollowedAt) {

    static PageHeader of(CelebrityPage page) {
        int size = page.followerIds().length;
        return new PageHeader(page.pageNum(), size, size == 0 ? 0 : page.followerIds()[0],
                size == 0 ? 0 : page.followedAt()[0]);
    }
}
