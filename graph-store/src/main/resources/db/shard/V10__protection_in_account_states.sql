-- Protection moves beside the account state (docs/decisions/0064-follow-requests.md): a protection change is an account
-- change like a deactivation. It takes the next version of the user's row, so the job that accepts every pending
-- request when an account is made public ('accept-requests') is '<userId>-<version>' and runs in version order with
-- the user's other jobs, and the change is an account event of follow-events ('protect', 'unprotect') in commit order
-- with them. The readers' view of protected accounts comes from the same poll as their view of inactive users.
-- job_id is now the job of the user's latest change that started one: a protection change starts none (making an
-- account public does), so a user whose only changes are protections has none.
ALTER TABLE account_states ADD COLUMN protected BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE account_states ALTER COLUMN job_id DROP NOT NULL;

INSERT INTO account_states (user_id, state, version, changed_at, job_id, protected, updated_at)
SELECT user_id, 0, version, changed_at, NULL, protected, now() FROM account_protection
ON CONFLICT (user_id) DO UPDATE
   SET protected = EXCLUDED.protected, version = account_states.version + EXCLUDED.version,
       changed_at = GREATEST(account_states.changed_at, EXCLUDED.changed_at), updated_at = now();
DROP TABLE account_protection;

ALTER TABLE account_jobs DROP CONSTRAINT account_jobs_kind_check;
ALTER TABLE account_jobs ADD CONSTRAINT account_jobs_kind_check
    CHECK (kind IN ('deactivate', 'reactivate', 'erase', 'accept-requests'));

ALTER TABLE follow_outbox DROP CONSTRAINT follow_outbox_type_check;
ALTER TABLE follow_outbox ADD CONSTRAINT follow_outbox_type_check
    CHECK (type IN ('follow', 'unfollow', 'block', 'unblock', 'mute', 'unmute', 'request', 'unrequest',
                    'deactivate', 'reactivate', 'erase', 'protect', 'unprotect'))
    NOT VALID;

ALTER TABLE follow_outbox DROP CONSTRAINT follow_outbox_not_self;
ALTER TABLE follow_outbox ADD CONSTRAINT follow_outbox_not_self
    CHECK (CASE WHEN type IN ('deactivate', 'reactivate', 'erase', 'protect', 'unprotect')
                THEN follower_id = followee_id
                ELSE follower_id <> followee_id END) NOT VALID;
