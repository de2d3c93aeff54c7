-- One schema for every physical shard database, following and follower group alike (DESIGN.md 2.2).
-- Domain times (followed_at) are epoch milliseconds; operational timestamps are timestamptz.

-- Following side, keyed by follower id: the source of truth for follow checks and following lists.
-- following_ids is sorted ascending (binary search answers membership); followed_at is aligned with it.
CREATE TABLE following_adjacency (
    follower_id      BIGINT      PRIMARY KEY CHECK (follower_id > 0),
    following_ids    BIGINT[]    NOT NULL DEFAULT '{}',
    followed_at      BIGINT[]    NOT NULL DEFAULT '{}',
    following_count  INT         NOT NULL DEFAULT 0 CHECK (following_count BETWEEN 0 AND 10000),
    version          BIGINT      NOT NULL DEFAULT 0 CHECK (version >= 0),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT following_arrays_aligned
        CHECK (cardinality(following_ids) = following_count AND cardinality(followed_at) = following_count)
);

-- Follower side, keyed by followee id; eventually consistent, fed by follow-events.
-- follower_ids is in arrival order: followed_at is ascending, ties by id, so a newest-first page is a
-- binary search on followed_at. A celebrity's row keeps its count and version; its ids move to pages.
CREATE TABLE follower_adjacency (
    followee_id      BIGINT      PRIMARY KEY CHECK (followee_id > 0),
    follower_ids     BIGINT[]    NOT NULL DEFAULT '{}',
    followed_at      BIGINT[]    NOT NULL DEFAULT '{}',
    follower_count   BIGINT      NOT NULL DEFAULT 0 CHECK (follower_count >= 0),
    version          BIGINT      NOT NULL DEFAULT 0 CHECK (version >= 0),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    celebrity        BOOLEAN     NOT NULL DEFAULT false,
    CONSTRAINT follower_arrays_aligned CHECK (cardinality(follower_ids) = cardinality(followed_at)),
    CONSTRAINT follower_row_empty_when_paged CHECK (NOT celebrity OR cardinality(follower_ids) = 0)
);

-- A celebrity's followers, cut into pages in arrival order (the follower row's layout in chunks).
CREATE TABLE celebrity_followers_page (
    followee_id      BIGINT   NOT NULL CHECK (followee_id > 0),
    page_num         INT      NOT NULL CHECK (page_num >= 0),
    follower_ids     BIGINT[] NOT NULL,
    followed_at      BIGINT[] NOT NULL,
    min_followed_at  BIGINT,
    max_followed_at  BIGINT,
    PRIMARY KEY (followee_id, page_num),
    CONSTRAINT page_arrays_aligned CHECK (cardinality(follower_ids) = cardinality(followed_at))
);

-- The transactional outbox of the following shard: written in the same transaction as the row change,
-- published to Kafka in id order by exactly one relay per database.
CREATE TABLE follow_outbox (
    id            BIGSERIAL   PRIMARY KEY,
    follower_id   BIGINT      NOT NULL CHECK (follower_id > 0),
    followee_id   BIGINT      NOT NULL CHECK (followee_id > 0),
    type          TEXT        NOT NULL CHECK (type IN ('follow', 'unfollow')),
    followed_at   BIGINT      NOT NULL,
    version       BIGINT      NOT NULL CHECK (version >= 1),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    published_at  TIMESTAMPTZ
);

-- The relay reads unpublished rows in id order; this index holds only the backlog.
CREATE INDEX follow_outbox_unpublished ON follow_outbox (id) WHERE published_at IS NULL;
-- Pruning of published rows by age.
CREATE INDEX follow_outbox_published_at ON follow_outbox (published_at) WHERE published_at IS NOT NULL;
