-- The trace context of the request that wrote an outbox row (docs/decisions.md, "Traces across the outbox"): the
-- relay publishes asynchronously, in a thread of its own, so the request's context cannot ride along in memory; it
-- is stored with the row and the relay sends it on as the record's headers, so one follow is one trace from the
-- gateway to every consumer. trace_parent is the W3C Trace Context header value (version 00: 55 characters),
-- request_id the gateway's X-Request-Id (at most 128 printable characters). Both NULL when the writer had no trace
-- (tracing off, a background job, rows written before this migration): the relay then sends no trace headers.
-- Nullable columns without a default: adding them rewrites nothing and locks the table only for the catalog change.
ALTER TABLE follow_outbox ADD COLUMN trace_parent VARCHAR(55);
ALTER TABLE follow_outbox ADD COLUMN request_id VARCHAR(128);
