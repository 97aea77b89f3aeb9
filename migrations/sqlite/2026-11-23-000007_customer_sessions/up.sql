-- Customer sessions: what a browser may do with a customer's saved payment methods, for 24 hours.

CREATE TABLE customer_sessions (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    livemode      BOOLEAN NOT NULL,
    customer_id   TEXT NOT NULL REFERENCES customers (id),
    client_secret TEXT NOT NULL,
    components    TEXT NOT NULL,
    expired_at    BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
