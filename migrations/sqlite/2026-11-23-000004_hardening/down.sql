DROP TABLE customer_metadata;
CREATE TABLE idempotency_keys_by_mode (
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    livemode        BOOLEAN NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    response_status INTEGER,
    response_body   TEXT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (account_id, livemode, idempotency_key)
);
INSERT INTO idempotency_keys_by_mode
    SELECT account_id, livemode, idempotency_key, fingerprint, response_status, response_body, created_at
    FROM idempotency_keys WHERE key_kind = 'secret';
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_mode RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
