-- Where the reconciler's outbox sampler stopped, per following database (its name in the shard map): the id of the
-- last outbox row it checked. Saved after every batch, so a restart resumes there instead of re-reading the whole
-- retained outbox (7 days). A position below the oldest retained row just resumes at that row.
CREATE TABLE reconciler_outbox_position (
    following_database TEXT        PRIMARY KEY,
    last_outbox_id     BIGINT      NOT NULL CHECK (last_outbox_id >= 0),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
