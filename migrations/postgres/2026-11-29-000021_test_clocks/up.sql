-- Each account's test mode runs on its own clock: real time plus this offset, moved only forward
-- (POST /test_helpers/clock/advance). Live mode has no clock. The background jobs visit the
-- accounts whose clock was moved, found by the partial index (`> 0` is written into their query).
ALTER TABLE accounts ADD COLUMN test_clock_offset_ms BIGINT NOT NULL DEFAULT 0;
CREATE INDEX accounts_with_moved_test_clock ON accounts (id) WHERE test_clock_offset_ms > 0;
-- What falls due in one account and mode, by that account's clock: an advance, and the job that
-- visits moved clocks, scan these. Each is partial on a condition a lookup by key never states, so
-- no lookup can take it (see 2026-11-26-000013_tenant_keys).
CREATE INDEX payment_intents_due_of_scope ON payment_intents (account_id, livemode, action_due_at)
    WHERE action_due_at IS NOT NULL;
CREATE INDEX setup_intents_due_of_scope ON setup_intents (account_id, livemode, action_due_at)
    WHERE action_due_at IS NOT NULL;
CREATE INDEX checkout_sessions_expiry_of_scope ON checkout_sessions (account_id, livemode, expires_at)
    WHERE status = 'active';
CREATE INDEX billing_statements_notice_of_scope ON billing_statements (account_id, livemode, next_notice_at)
    WHERE status = 'open';
