-- Follow requests to protected accounts are a relation beside follows, blocks and mutes (Relation.REQUEST, code 3;
-- docs/decisions/0064-follow-requests.md): the requester's row of pending requests on the requester's following
-- shard, written with its outbox row in one transaction; the protected account's incoming requests on its follower
-- side, kept by the event consumer. A requester may have at most 5,000 pending requests.
ALTER TABLE following_adjacency DROP CONSTRAINT following_adjacency_relation_check;
ALTER TABLE following_adjacency ADD CONSTRAINT following_adjacency_relation_check CHECK (relation IN (0, 1, 2, 3));
ALTER TABLE following_adjacency DROP CONSTRAINT following_count_within_cap;
ALTER TABLE following_adjacency ADD CONSTRAINT following_count_within_cap
    CHECK (following_count BETWEEN 0 AND CASE relation WHEN 0 THEN 10000 WHEN 3 THEN 5000 ELSE 50000 END);

ALTER TABLE follower_adjacency DROP CONSTRAINT follower_adjacency_relation_check;
ALTER TABLE follower_adjacency ADD CONSTRAINT follower_adjacency_relation_check CHECK (relation IN (0, 1, 2, 3));

ALTER TABLE celebrity_followers_page DROP CONSTRAINT celebrity_followers_page_relation_check;
ALTER TABLE celebrity_followers_page ADD CONSTRAINT celebrity_followers_page_relation_check
    CHECK (relation IN (0, 1, 2, 3));

ALTER TABLE follow_outbox DROP CONSTRAINT follow_outbox_type_check;
ALTER TABLE follow_outbox ADD CONSTRAINT follow_outbox_type_check
    CHECK (type IN ('follow', 'unfollow', 'block', 'unblock', 'mute', 'unmute', 'request', 'unrequest',
                    'deactivate', 'reactivate', 'erase'))
    NOT VALID;
