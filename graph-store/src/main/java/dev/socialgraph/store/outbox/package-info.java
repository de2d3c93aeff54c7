/**
 * The transactional outbox: the rows a write adds in its own transaction and the relay publishes to Kafka
 * ({@link dev.socialgraph.store.outbox.OutboxRepository}, the entry point), with the trace context each row carries to
 * the event's consumers ({@link dev.socialgraph.store.outbox.EventTracing}).
 */
package dev.socialgraph.store.outbox;
