-- Each account's live processor connector, set by the operator: which processor, where, its
-- publishable key, and its secret key and webhook secret sealed (AES-256-GCM under a key of the
-- service's settings; never stored in the clear). `id` is unguessable: the processor's webhooks for
-- the account come to an address made from it. How the processor answered the last call is kept.
CREATE TABLE connector_accounts (
    seq                BIGSERIAL PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    account_id         TEXT NOT NULL UNIQUE REFERENCES accounts (id),
    kind               TEXT NOT NULL,
    api_base_url       TEXT NOT NULL,
    publishable_key    TEXT NOT NULL,
    sealed_secrets     TEXT NOT NULL,
    last_call_answered BOOLEAN,
    last_call_at       BIGINT,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);
