-- Checkout sessions: a hosted page paying for line items through the session's payment intent.
-- The line items never change after creation, so they are kept with the session as JSON.

CREATE TABLE checkout_sessions (
    seq                        INTEGER PRIMARY KEY AUTOINCREMENT,
    id                         TEXT NOT NULL UNIQUE,
    account_id                 TEXT NOT NULL REFERENCES accounts (id),
    livemode                   BOOLEAN NOT NULL,
    status                     TEXT NOT NULL,
    client_secret              TEXT NOT NULL,
    url                        TEXT NOT NULL,
    payment_intent_id          TEXT NOT NULL UNIQUE REFERENCES payment_intents (id),
    line_items                 TEXT NOT NULL,
    amount                     BIGINT NOT NULL,
    currency                   TEXT NOT NULL,
    success_url                TEXT NOT NULL,
    cancel_url                 TEXT NOT NULL,
    payment_methods            TEXT NOT NULL,
    card_options               TEXT NOT NULL,
    customer_reference_id      TEXT,
    billing_details_collection TEXT NOT NULL,
    description                TEXT,
    submit_type                TEXT NOT NULL,
    statement_descriptor       TEXT,
    metadata                   TEXT,
    expires_at                 BIGINT NOT NULL,
    version                    BIGINT NOT NULL,
    created_at                 BIGINT NOT NULL,
    updated_at                 BIGINT NOT NULL
);
CREATE INDEX checkout_sessions_of_scope ON checkout_sessions (account_id, livemode, seq);
-- The expiry job looks only at active sessions.
CREATE INDEX checkout_sessions_active_expiry ON checkout_sessions (expires_at) WHERE status = 'active';
