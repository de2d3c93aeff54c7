-- Account state changes are events of follow-events too (deactivate, reactivate, erase), written to the outbox in the
-- state change's transaction so the change stream carries them in commit order. An account row names its user twice
-- (follower_id = followee_id = the user): the relay keys records by followee_id, so the user's account events share a
-- partition with the events of the user's followers' edges to them; followed_at is the change's time and version the
-- state's version after it.
ALTER TABLE follow_outbox DROP CONSTRAINT follow_outbox_type_check;
ALTER TABLE follow_outbox ADD CONSTRAINT follow_outbox_type_check
    CHECK (type IN ('follow', 'unfollow', 'block', 'unblock', 'mute', 'unmute', 'deactivate', 'reactivate', 'erase'))
    NOT VALID;

ALTER TABLE follow_outbox DROP CONSTRAINT follow_outbox_not_self;
ALTER TABLE follow_outbox ADD CONSTRAINT follow_outbox_not_self
    CHECK (CASE WHEN type IN ('deactivate', 'reactivate', 'erase') THEN follower_id = followee_id
                ELSE follower_id <> followee_id END) NOT VALID;
