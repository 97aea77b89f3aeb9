-- Setup intents and the payment methods they save to customers. A saved method keeps what its
-- entity shows of the card and the processor's reference to it, never the number or CVC.

CREATE TABLE setup_intents (
    seq                       BIGSERIAL PRIMARY KEY,
    id                        TEXT NOT NULL UNIQUE,
    account_id                TEXT NOT NULL REFERENCES accounts (id),
    livemode                  BOOLEAN NOT NULL,
    customer_id               TEXT NOT NULL REFERENCES customers (id),
    payment_methods           TEXT NOT NULL,
    usage                     TEXT NOT NULL,
    status                    TEXT NOT NULL,
    client_secret             TEXT NOT NULL,
    description               TEXT,
    metadata                  TEXT,
    return_url                TEXT,
    card_options              TEXT NOT NULL,
    last_setup_error          TEXT,
    payment_method_id         TEXT,
    pending_payment_method_id TEXT,
    pending_card              TEXT,
    pending_billing           TEXT,
    pending_reference         TEXT,
    -- The secret token of the latest test authorization page; unique so a token names one intent.
    redirect_token            TEXT UNIQUE,
    redirect_url              TEXT,
    action_due_at             BIGINT,
    version                   BIGINT NOT NULL,
    created_at                BIGINT NOT NULL,
    updated_at                BIGINT NOT NULL
);
CREATE INDEX setup_intents_due ON setup_intents (action_due_at);

CREATE TABLE payment_methods (
    seq                 BIGSERIAL PRIMARY KEY,
    id                  TEXT NOT NULL UNIQUE,
    account_id          TEXT NOT NULL REFERENCES accounts (id),
    livemode            BOOLEAN NOT NULL,
    customer_id         TEXT NOT NULL REFERENCES customers (id),
    card                TEXT NOT NULL,
    billing             TEXT,
    processor_reference TEXT NOT NULL,
    usage               TEXT NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);
CREATE INDEX payment_methods_of_customer ON payment_methods (account_id, livemode, customer_id, seq);
