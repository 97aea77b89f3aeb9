-- Payment intents, payments, refunds and the event outbox. JSON values are TEXT.

CREATE TABLE payment_intents (
    seq                  BIGSERIAL PRIMARY KEY,
    id                   TEXT NOT NULL UNIQUE,
    account_id           TEXT NOT NULL REFERENCES accounts (id),
    livemode             BOOLEAN NOT NULL,
    amount               BIGINT NOT NULL,
    amount_received      BIGINT NOT NULL,
    amount_capturable    BIGINT NOT NULL,
    currency             TEXT NOT NULL,
    payment_methods      TEXT NOT NULL,
    statement_descriptor TEXT,
    status               TEXT NOT NULL,
    client_secret        TEXT NOT NULL,
    description          TEXT,
    last_payment_error   TEXT,
    latest_payment_id    TEXT,
    metadata             TEXT,
    return_url           TEXT,
    payment_method_id    TEXT,
    card_options         TEXT NOT NULL,
    capture_before_at    BIGINT,
    customer_id          TEXT,
    pending_attempt      TEXT,
    -- The secret token of a pending redirect page; unique so a token names one intent.
    redirect_token       TEXT UNIQUE,
    action_due_at        BIGINT,
    version              BIGINT NOT NULL,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
CREATE INDEX payment_intents_listing ON payment_intents (account_id, livemode, seq);
CREATE INDEX payment_intents_due ON payment_intents (action_due_at);

CREATE TABLE payments (
    seq               BIGSERIAL PRIMARY KEY,
    id                TEXT NOT NULL UNIQUE,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    livemode          BOOLEAN NOT NULL,
    amount            BIGINT NOT NULL,
    amount_refunded   BIGINT NOT NULL,
    billing           TEXT,
    currency          TEXT NOT NULL,
    description       TEXT,
    fee               BIGINT NOT NULL,
    metadata          TEXT,
    net_amount        BIGINT NOT NULL,
    payment_intent_id TEXT NOT NULL REFERENCES payment_intents (id),
    customer_id       TEXT,
    origin            TEXT NOT NULL,
    status            TEXT NOT NULL,
    payment_method    TEXT NOT NULL,
    refunded          BOOLEAN NOT NULL,
    version           BIGINT NOT NULL,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE INDEX payments_intent ON payments (payment_intent_id);
-- At most one paid payment per intent, whatever the application does.
CREATE UNIQUE INDEX payments_one_paid_per_intent ON payments (payment_intent_id) WHERE status = 'paid';

CREATE TABLE refunds (
    seq         BIGSERIAL PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    livemode    BOOLEAN NOT NULL,
    amount      BIGINT NOT NULL,
    currency    TEXT NOT NULL,
    status      TEXT NOT NULL,
    description TEXT,
    reason      TEXT NOT NULL,
    remarks     TEXT,
    metadata    TEXT,
    payment_id  TEXT NOT NULL REFERENCES payments (id),
    version     BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX refunds_payment ON refunds (payment_id);

CREATE TABLE events (
    seq                 BIGSERIAL PRIMARY KEY,
    id                  TEXT NOT NULL UNIQUE,
    account_id          TEXT NOT NULL REFERENCES accounts (id),
    livemode            BOOLEAN NOT NULL,
    event_type          TEXT NOT NULL,
    data                TEXT NOT NULL,
    previous_attributes TEXT NOT NULL,
    pending_webhooks    BIGINT NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);
CREATE INDEX events_listing ON events (account_id, livemode, seq);
