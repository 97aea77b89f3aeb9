-- Idempotency keys belong to the API key kind that sent them (a public key never sees a secret
-- key's stored response), and customers' metadata pairs are indexed for the list filter.

CREATE TABLE idempotency_keys_by_key (
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    livemode        BOOLEAN NOT NULL,
    key_kind        TEXT NOT NULL CHECK (key_kind IN ('secret', 'public')),
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    response_status INTEGER,
    response_body   TEXT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, key_kind, idempotency_key)
);
INSERT INTO idempotency_keys_by_key
    SELECT account_id, livemode, 'secret', idempotency_key, fingerprint, response_status, response_body, created_at
    FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_key RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- One row per metadata pair of a customer, kept in the customer's own transaction.
CREATE TABLE customer_metadata (
    customer_id TEXT NOT NULL REFERENCES customers (id),
    account_id  TEXT NOT NULL,
    livemode    BOOLEAN NOT NULL,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    PRIMARY KEY (customer_id, key)
);
CREATE INDEX customer_metadata_pairs ON customer_metadata (account_id, livemode, key, value);
INSERT INTO customer_metadata
    SELECT c.id, c.account_id, c.livemode, pair.key, pair.value
    FROM customers c, jsonb_each_text(c.metadata::jsonb) AS pair
    WHERE c.metadata IS NOT NULL;
