-- Protected accounts (docs/decisions/0064-follow-requests.md): a follow of a protected user by someone who does not
-- follow them yet becomes a follow request. In the user's FOLLOWING shard beside account_states, so a follow reads the
-- followee's state, block and protection in one statement. No row is a public account. version counts the user's
-- protection changes (the first is 1); changed_at is epoch ms of the change; updated_at is the database's clock, what
-- the readers' views poll by.
CREATE TABLE account_protection (
    user_id     BIGINT      PRIMARY KEY CHECK (user_id > 0),
    protected   BOOLEAN     NOT NULL,
    version     BIGINT      NOT NULL CHECK (version >= 1),
    changed_at  BIGINT      NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX account_protection_updated_at ON account_protection (updated_at);
