package dev.socialgraph.store.outbox;

import java.time.Instant;

/**
 * The unpublished part of one database's outbox.
 *
 * @param unpublished     number of unpublished rows
 * @param oldestCreatedAt commit time of the oldest unpublished row, {@code null} when there is none
 */
public record OutboxBacklog(long unpublished, Instant oldestCreatedAt) {
}
