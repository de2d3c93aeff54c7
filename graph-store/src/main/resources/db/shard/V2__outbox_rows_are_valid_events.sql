-- Every outbox row must be publishable: the relay publishes in id order and retries a failed batch forever, so a row
-- FollowEvent refuses (a user following themselves; every other field is already checked above) would block its
-- database's whole outbox. The write service never writes one; this keeps bugs and manual SQL from doing so.
-- NOT VALID: existing rows are not scanned (a large outbox would be locked meanwhile); new rows are checked.
ALTER TABLE follow_outbox ADD CONSTRAINT follow_outbox_not_self CHECK (follower_id <> followee_id) NOT VALID;
