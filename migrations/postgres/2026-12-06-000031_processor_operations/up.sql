-- Operations sent to a live processor, written ahead of the call: each is recorded in the
-- transaction that claims what it acts on, before the processor is asked, and its answer after.
-- `id` is the idempotency key the processor gets (`pay_…:authorize`, `re_…:refund`). An operation
-- still being sent or whose outcome is unknown is checked at `next_check_at`.
CREATE TABLE processor_operations (
    seq                 BIGSERIAL NOT NULL,
    id                  TEXT NOT NULL,
    account_id          TEXT NOT NULL REFERENCES accounts (id),
    livemode            BOOLEAN NOT NULL,
    payment_intent_id   TEXT NOT NULL,
    payment_id          TEXT NOT NULL,
    kind                TEXT NOT NULL,
    refund_id           TEXT,
    amount              BIGINT NOT NULL,
    state               TEXT NOT NULL,
    processor_reference TEXT,
    refused_code        TEXT,
    refused_detail      TEXT,
    checks              BIGINT NOT NULL,
    next_check_at       BIGINT,
    version             BIGINT NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    -- Keyed with the account, as every table distributed by account is (migration 000029).
    PRIMARY KEY (id, account_id)
);
CREATE INDEX processor_operations_of_payment ON processor_operations (payment_id);
CREATE INDEX processor_operations_due ON processor_operations (next_check_at) WHERE next_check_at IS NOT NULL;
CREATE INDEX processor_operations_due_in_scope ON processor_operations (account_id, livemode, next_check_at)
    WHERE next_check_at IS NOT NULL;
