-- The request log: every API request of an account, with its redacted bodies, written in batches
-- off the request's path and pruned by age and by a row cap per account and mode.
-- UNLOGGED: the log is written beside every request, and writing it to the write-ahead log too
-- doubled what each request wrote there. An unlogged table is emptied by a crash of PostgreSQL
-- and not copied to standbys; the request log is an account's recent history, not its records.
CREATE UNLOGGED TABLE request_logs (
    seq             BIGSERIAL PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    account_id      TEXT NOT NULL,
    livemode        BOOLEAN NOT NULL,
    source          TEXT NOT NULL,
    key_kind        TEXT NOT NULL,
    method          TEXT NOT NULL,
    path            TEXT NOT NULL,
    query           TEXT NOT NULL,
    status          INTEGER NOT NULL,
    duration_ms     BIGINT NOT NULL,
    idempotency_key TEXT,
    replayed        BOOLEAN NOT NULL,
    object_id       TEXT,
    request_body    TEXT,
    response_body   TEXT,
    created_at      BIGINT NOT NULL
);
-- The listing index is partial on seq > 0, as every listing index (see 2026-11-26-000013_tenant_keys);
-- the filter by object leads with the object, and holds only the requests about one. Every index
-- costs each logged request a write, so pruning by age reads the table (every ten minutes) rather
-- than an index of its own.
CREATE INDEX request_logs_listing ON request_logs (account_id, livemode, seq) WHERE seq > 0;
CREATE INDEX request_logs_of_object ON request_logs (object_id, account_id, livemode, seq)
    WHERE object_id IS NOT NULL;
