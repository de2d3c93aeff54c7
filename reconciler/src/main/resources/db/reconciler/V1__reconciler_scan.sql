-- Progress of the reconciler's full scans (reconciler-owned; lives in the follower database of logical shard 0,
-- next to the shard tables, with its own Flyway history table reconciler_schema_history).
-- A scan walks the following group (phase 'following': missing follower entries), then the follower group
-- (phase 'follower': stale entries, duplicates, counts), range by range, in pages; (phase, range_index, cursor)
-- is where the next page starts, so an interrupted scan resumes there.
CREATE TABLE reconciler_scan (
    id                BIGSERIAL   PRIMARY KEY,
    first_shard       INT         NOT NULL CHECK (first_shard >= 0),
    last_shard        INT         NOT NULL CHECK (last_shard >= first_shard),
    state             TEXT        NOT NULL CHECK (state IN ('running', 'cancelled', 'completed', 'failed')),
    phase             TEXT        NOT NULL CHECK (phase IN ('following', 'follower', 'done')),
    range_index       INT         NOT NULL DEFAULT 0,
    cursor_id         BIGINT      NOT NULL DEFAULT 0,
    rows_scanned      BIGINT      NOT NULL DEFAULT 0,
    missing_follower  BIGINT      NOT NULL DEFAULT 0,
    stale_follower    BIGINT      NOT NULL DEFAULT 0,
    wrong_count       BIGINT      NOT NULL DEFAULT 0,
    duplicate         BIGINT      NOT NULL DEFAULT 0,
    repairs           BIGINT      NOT NULL DEFAULT 0,
    skipped_in_flight BIGINT      NOT NULL DEFAULT 0,
    error             TEXT,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX reconciler_scan_running ON reconciler_scan (id) WHERE state = 'running';
