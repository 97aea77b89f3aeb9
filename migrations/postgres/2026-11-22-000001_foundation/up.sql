-- Accounts, API key digests, idempotency keys and customers.
-- Portable column types only (TEXT, BIGINT, INTEGER, BOOLEAN); JSON is stored as TEXT.

CREATE TABLE accounts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- Only the SHA-256 digest of a key is stored.
CREATE TABLE api_keys (
    key_digest TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind       TEXT NOT NULL CHECK (kind IN ('secret', 'public')),
    livemode   BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL
);

-- A NULL response_status means the first request with the key is still in flight.
CREATE TABLE idempotency_keys (
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    livemode        BOOLEAN NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    response_status INTEGER,
    response_body   TEXT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, idempotency_key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- seq orders lists newest first, stable under equal timestamps.
CREATE TABLE customers (
    seq                                    BIGSERIAL PRIMARY KEY,
    id                                     TEXT NOT NULL UNIQUE,
    account_id                             TEXT NOT NULL REFERENCES accounts (id),
    livemode                               BOOLEAN NOT NULL,
    name                                   TEXT NOT NULL,
    email                                  TEXT NOT NULL,
    currency                               TEXT NOT NULL,
    billing_statement_prefix               TEXT NOT NULL,
    next_billing_statement_sequence_number BIGINT NOT NULL,
    billing                                TEXT,
    metadata                               TEXT,
    version                                BIGINT NOT NULL,
    created_at                             BIGINT NOT NULL,
    updated_at                             BIGINT NOT NULL,
    deleted_at                             BIGINT
);
CREATE INDEX customers_listing ON customers (account_id, livemode, seq);
CREATE UNIQUE INDEX customers_statement_prefix
    ON customers (account_id, livemode, billing_statement_prefix) WHERE deleted_at IS NULL;
