-- Account lifecycle (docs/account-lifecycle.md): a user's state, the jobs that carry a state change to the user's
-- edges, and the count exclusions that take an inactive user out of other users' counts without touching an edge.
--
-- account_states lives in the user's FOLLOWING shard (the shard of their following rows). No row, or state 0, is
-- active: every id is active until an operator says otherwise. state 1 is deactivated, 2 erased (irreversible; the row
-- stays as the tombstone that refuses follows of the id forever). version counts the user's state changes (the first
-- change is 1); changed_at is epoch ms of the change; updated_at is the database's clock, what the readers' view polls
-- by. job_id names the job the change started.
CREATE TABLE account_states (
    user_id     BIGINT      PRIMARY KEY CHECK (user_id > 0),
    state       SMALLINT    NOT NULL CHECK (state IN (0, 1, 2)),
    version     BIGINT      NOT NULL CHECK (version >= 1),
    changed_at  BIGINT      NOT NULL,
    job_id      TEXT        NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX account_states_updated_at ON account_states (updated_at);

-- The per-edge work of a state change, in the user's FOLLOWING shard beside account_states. job_id is
-- '<userId>-<version>' (the state version that started it), so a job id routes to its shard. kind: 'deactivate',
-- 'reactivate', 'erase'. status: 'queued' until a worker leases it, 'running', 'done'. Jobs of one user run in
-- version order. phase and position say where a resumed job goes on; done and total are edges; report is JSON.
CREATE TABLE account_jobs (
    job_id       TEXT        PRIMARY KEY,
    user_id      BIGINT      NOT NULL CHECK (user_id > 0),
    version      BIGINT      NOT NULL CHECK (version >= 1),
    kind         TEXT        NOT NULL CHECK (kind IN ('deactivate', 'reactivate', 'erase')),
    status       TEXT        NOT NULL CHECK (status IN ('queued', 'running', 'done')),
    phase        SMALLINT    NOT NULL DEFAULT 0,
    position     BIGINT      NOT NULL DEFAULT 0,
    done         BIGINT      NOT NULL DEFAULT 0,
    total        BIGINT      NOT NULL DEFAULT 0,
    created_at   BIGINT      NOT NULL,
    started_at   BIGINT,
    finished_at  BIGINT,
    lease_owner  TEXT,
    lease_until  TIMESTAMPTZ,
    report       TEXT,
    UNIQUE (user_id, version)
);
CREATE INDEX account_jobs_pending ON account_jobs (created_at) WHERE status <> 'done';

-- An inactive user's edge taken out of another user's count, one row per (counted user, which count, inactive user):
-- the row makes the exclusion idempotent (a resumed job inserts or deletes it at most once), count_offsets keeps the
-- sum so a count read is one key lookup. counted 0: user_id's following count, kept in user_id's FOLLOWING shard;
-- counted 1: user_id's followers count, kept in user_id's FOLLOWER shard. A count read answers the row's count
-- minus excluded.
CREATE TABLE count_exclusions (
    user_id   BIGINT   NOT NULL CHECK (user_id > 0),
    counted   SMALLINT NOT NULL CHECK (counted IN (0, 1)),
    other_id  BIGINT   NOT NULL CHECK (other_id > 0),
    PRIMARY KEY (user_id, counted, other_id)
);
CREATE TABLE count_offsets (
    user_id   BIGINT   NOT NULL CHECK (user_id > 0),
    counted   SMALLINT NOT NULL CHECK (counted IN (0, 1)),
    excluded  BIGINT   NOT NULL CHECK (excluded >= 0),
    PRIMARY KEY (user_id, counted)
);
