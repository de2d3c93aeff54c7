-- Blocks and mutes are relations beside follows in the same tables (docs/decisions.md, "Blocks and mutes"):
-- relation 0 is a follow (the default, so every existing row stays a follow), 1 a block, 2 a mute. For a block or a
-- mute the "follower" columns hold the source (blocker, muter) and the "following"/"followee" columns the target; the
-- follower side of a block is the blocked user's blocked-by row. Codes are dev.socialgraph.common.relation.Relation.
--
-- Changing a primary key rebuilds its index under an exclusive lock: cheap on the shards of today, a planned window
-- (or a new table filled beside the old one) on a large deployment.

ALTER TABLE following_adjacency ADD COLUMN relation SMALLINT NOT NULL DEFAULT 0 CHECK (relation IN (0, 1, 2));
ALTER TABLE following_adjacency DROP CONSTRAINT following_adjacency_pkey;
ALTER TABLE following_adjacency ADD PRIMARY KEY (follower_id, relation);
-- Follows are capped at 10,000 as before; blocks and mutes at 50,000 (Relation.cap()).
ALTER TABLE following_adjacency DROP CONSTRAINT following_adjacency_following_count_check;
ALTER TABLE following_adjacency ADD CONSTRAINT following_count_within_cap
    CHECK (following_count BETWEEN 0 AND CASE WHEN relation = 0 THEN 10000 ELSE 50000 END);

ALTER TABLE follower_adjacency ADD COLUMN relation SMALLINT NOT NULL DEFAULT 0 CHECK (relation IN (0, 1, 2));
ALTER TABLE follower_adjacency DROP CONSTRAINT follower_adjacency_pkey;
ALTER TABLE follower_adjacency ADD PRIMARY KEY (followee_id, relation);

ALTER TABLE celebrity_followers_page ADD COLUMN relation SMALLINT NOT NULL DEFAULT 0 CHECK (relation IN (0, 1, 2));
ALTER TABLE celebrity_followers_page DROP CONSTRAINT celebrity_followers_page_pkey;
ALTER TABLE celebrity_followers_page ADD PRIMARY KEY (followee_id, relation, page_num);

-- The outbox carries every relation's changes; the type names the relation (FollowEvent.Type).
ALTER TABLE follow_outbox DROP CONSTRAINT follow_outbox_type_check;
ALTER TABLE follow_outbox ADD CONSTRAINT follow_outbox_type_check
    CHECK (type IN ('follow', 'unfollow', 'block', 'unblock', 'mute', 'unmute')) NOT VALID;

-- Blocks and mutes are few beside follows: the check service's start-up scan of them (its in-process filter of
-- hidden pairs) walks this index instead of every follow row.
CREATE INDEX following_adjacency_not_follows ON following_adjacency (follower_id, relation) WHERE relation <> 0;
