package dev.socialgraph.client;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The items of a cursor-paged list, one page fetched at a time as the caller reaches it: the first page with no
 * cursor, then each page's {@code nextCursor} until a page has none. A page with no items but a cursor is followed
 * too (the followers list may filter a whole page away). Not thread-safe, like any iterator.
 *
 * @param <T> the item type
 */
final class PageWalker<T> implements Iterator<T> {

    private final Function<String, Page<T>> fetch;
    private Iterator<T> current;
    private String cursor;
    private boolean last;

    /**
     * @param fetch the page at a cursor ({@code null} for the first page); its exceptions reach the caller of
     *              {@link #hasNext()}
     */
    PageWalker(Function<String, Page<T>> fetch) {
        this.fetch = fetch;
    }

    /** The walk as a lazy, ordered, sequential stream: no page is fetched before the stream's terminal operation. */
    static <T> Stream<T> stream(Function<String, Page<T>> fetch) {
        return StreamSupport.stream(() -> Spliterators.spliteratorUnknownSize(new PageWalker<>(fetch),
                Spliterator.ORDERED | Spliterator.NONNULL), Spliterator.ORDERED | Spliterator.NONNULL, false);
    }

    @Override
    public boolean hasNext() {
        while (current == null || !current.hasNext()) {
            if (last) {
                return false;
            }
            Page<T> page = fetch.apply(cursor);
            current = page.items().iterator();
            cursor = page.nextCursor();
            last = cursor == null;
        }
        return true;
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.next();
    }
}
