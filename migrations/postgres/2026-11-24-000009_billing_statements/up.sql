-- Billing statements with their line items, the e-mail outbox, and the owner of a payment intent
-- (the checkout session or billing statement it was created for).

CREATE TABLE billing_statements (
    seq                        BIGSERIAL PRIMARY KEY,
    id                         TEXT NOT NULL UNIQUE,
    account_id                 TEXT NOT NULL REFERENCES accounts (id),
    livemode                   BOOLEAN NOT NULL,
    status                     TEXT NOT NULL,
    customer_id                TEXT NOT NULL REFERENCES customers (id),
    client_secret              TEXT NOT NULL,
    currency                   TEXT NOT NULL,
    amount                     BIGINT NOT NULL,
    description                TEXT,
    due_at                     BIGINT,
    billing_details_collection TEXT NOT NULL,
    payment_methods            TEXT NOT NULL,
    statement_descriptor       TEXT,
    metadata                   TEXT,
    billing_statement_number   TEXT,
    payment_intent_id          TEXT UNIQUE REFERENCES payment_intents (id),
    url                        TEXT,
    will_be_due_noticed        BOOLEAN NOT NULL,
    overdue_noticed            BOOLEAN NOT NULL,
    next_notice_at             BIGINT,
    version                    BIGINT NOT NULL,
    created_at                 BIGINT NOT NULL,
    updated_at                 BIGINT NOT NULL
);
CREATE INDEX billing_statements_of_scope ON billing_statements (account_id, livemode, seq);
CREATE INDEX billing_statements_of_customer ON billing_statements (customer_id, seq);
-- The reminder job looks only at open statements with a reminder still to come.
CREATE INDEX billing_statements_notice_due ON billing_statements (next_notice_at) WHERE status = 'open';

CREATE TABLE billing_statement_line_items (
    seq                  BIGSERIAL PRIMARY KEY,
    id                   TEXT NOT NULL UNIQUE,
    billing_statement_id TEXT NOT NULL REFERENCES billing_statements (id) ON DELETE CASCADE,
    account_id           TEXT NOT NULL,
    livemode             BOOLEAN NOT NULL,
    description          TEXT NOT NULL,
    unit_price           BIGINT NOT NULL,
    quantity             BIGINT NOT NULL,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
CREATE INDEX billing_statement_line_items_of_statement ON billing_statement_line_items (billing_statement_id, seq);

-- E-mail written in the transaction that asked for it and sent by the mail worker; times in ms.
CREATE TABLE mail_messages (
    seq                  BIGSERIAL PRIMARY KEY,
    id                   TEXT NOT NULL UNIQUE,
    account_id           TEXT NOT NULL REFERENCES accounts (id),
    livemode             BOOLEAN NOT NULL,
    billing_statement_id TEXT,
    sender               TEXT NOT NULL,
    recipient            TEXT NOT NULL,
    subject              TEXT NOT NULL,
    message_id           TEXT NOT NULL,
    text_body            TEXT NOT NULL,
    html_body            TEXT NOT NULL,
    status               TEXT NOT NULL,
    attempts             BIGINT NOT NULL,
    next_attempt_at      BIGINT NOT NULL,
    last_error           TEXT,
    version              BIGINT NOT NULL,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
CREATE INDEX mail_messages_of_scope ON mail_messages (account_id, livemode, seq);
CREATE INDEX mail_messages_due ON mail_messages (next_attempt_at) WHERE status = 'pending';

ALTER TABLE payment_intents ADD COLUMN owner TEXT;
UPDATE payment_intents SET owner = 'checkout_session'
    WHERE id IN (SELECT payment_intent_id FROM checkout_sessions);
