-- Full scans walk blocks after follows: phase 'blocking' (block rows: missing blocked-by entries, and follows under a
-- block) and phase 'blocked_by' (blocked-by rows: stale entries, duplicates, counts), before 'done'. The blocked-by
-- side's divergences add to the same counters as the follower side's; follow_under_block counts the follows a scan
-- removed because a block stood between the two users.
ALTER TABLE reconciler_scan DROP CONSTRAINT reconciler_scan_phase_check;
ALTER TABLE reconciler_scan ADD CONSTRAINT reconciler_scan_phase_check
    CHECK (phase IN ('following', 'follower', 'blocking', 'blocked_by', 'done'));
ALTER TABLE reconciler_scan ADD COLUMN follow_under_block BIGINT NOT NULL DEFAULT 0;
