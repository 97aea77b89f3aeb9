-- Developer console sessions, by the SHA-256 digest of the token in the browser's cookie (a leaked
-- database opens no session), each with the form token its pages' forms send back.
CREATE TABLE console_sessions (
    digest       TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    livemode     BOOLEAN NOT NULL,
    form_token   TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);
CREATE INDEX console_sessions_by_last_seen ON console_sessions (last_seen_at);
