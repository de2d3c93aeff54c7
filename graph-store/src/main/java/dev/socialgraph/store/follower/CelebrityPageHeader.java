package dev.socialgraph.store.follower;

/**
 * What a writer needs to know of a celebrity page without reading its arrays: its number, its size and its first
 * (oldest) entry. The first entries route a new follower to its page ({@link CelebrityPageLayout#targetPage}) and
 * the sizes add up to the follower count.
 *
 * @param pageNum         page number, {@code >= 0}, 0 = oldest
 * @param size            entries on the page, {@code >= 0}
 * @param firstId         the first entry's follower id (a positive user id); meaningless when {@code size == 0}
 * @param firstFollowedAt the first entry's follow time, epoch ms; meaningless when {@code size == 0}
 */
public record CelebrityPageHeader(int pageNum, int size, long firstId, long firstFollowedAt) {

    /**
     * The header of a page at hand; first id and time are 0 for an empty page (as the header query reports them).
     *
     * @param page any page
     * @return its header
     */
    public static CelebrityPageHeader of(CelebrityPage page) {
        int size = page.followerIds().length;
        return new CelebrityPageHeader(page.pageNum(), size, size == 0 ? 0 : page.followerIds()[0],
                size == 0 ? 0 : page.followedAt()[0]);
    }
}
