-- Webhooks, their deliveries (one per event and webhook) and every delivery attempt.

CREATE TABLE webhooks (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    livemode    BOOLEAN NOT NULL,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL,
    description TEXT,
    secret_key  TEXT NOT NULL,
    status      TEXT NOT NULL,
    version     BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX webhooks_listing ON webhooks (account_id, livemode, seq);

-- A delivery is claimed by setting lease_owner and lease_until_ms with a conditional update, so
-- several instances never send the same attempt; an expired lease is claimable again.
CREATE TABLE webhook_deliveries (
    id                 TEXT PRIMARY KEY,
    account_id         TEXT NOT NULL REFERENCES accounts (id),
    livemode           BOOLEAN NOT NULL,
    webhook_id         TEXT NOT NULL,
    event_id           TEXT NOT NULL REFERENCES events (id),
    status             TEXT NOT NULL,
    attempts           BIGINT NOT NULL,
    next_attempt_at_ms BIGINT NOT NULL,
    lease_owner        TEXT,
    lease_until_ms     BIGINT NOT NULL,
    created_at_ms      BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at_ms);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, status);

CREATE TABLE webhook_delivery_attempts (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id     TEXT NOT NULL REFERENCES webhook_deliveries (id),
    webhook_id      TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    attempted_at_ms BIGINT NOT NULL,
    status_code     INTEGER,
    error           TEXT,
    duration_ms     BIGINT NOT NULL
);
CREATE INDEX webhook_delivery_attempts_webhook ON webhook_delivery_attempts (webhook_id, seq);
