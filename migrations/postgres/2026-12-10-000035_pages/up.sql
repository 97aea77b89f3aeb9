-- PayRex Pages: products and their prices, and reusable payment pages. A price's amount and product
-- never change; products and prices are archived (`active`), never deleted once priced. What a page
-- sets (its template, custom fields, methods and what follows payment) is read and written whole,
-- so it is kept with the page as JSON.
CREATE TABLE products (
    seq         BIGSERIAL PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    livemode    BOOLEAN NOT NULL,
    name        TEXT NOT NULL,
    description TEXT,
    image       TEXT,
    active      BOOLEAN NOT NULL,
    version     BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX products_listing ON products (account_id, livemode, seq) WHERE seq > 0;

CREATE TABLE prices (
    seq         BIGSERIAL PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    livemode    BOOLEAN NOT NULL,
    product_id  TEXT NOT NULL REFERENCES products (id),
    amount      BIGINT NOT NULL,
    description TEXT,
    active      BOOLEAN NOT NULL,
    version     BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX prices_listing ON prices (account_id, livemode, seq) WHERE seq > 0;
CREATE INDEX prices_of_product ON prices (product_id, account_id, livemode, seq);

CREATE TABLE pages (
    seq        BIGSERIAL PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    livemode   BOOLEAN NOT NULL,
    title      TEXT NOT NULL,
    details    TEXT NOT NULL,
    active     BOOLEAN NOT NULL,
    version    BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX pages_listing ON pages (account_id, livemode, seq) WHERE seq > 0;

-- The order a customer placed on a page (PayRex's `page_session`): kept with the intent that pays
-- it, and copied onto each of its payments.
ALTER TABLE payment_intents ADD COLUMN page_session TEXT;
ALTER TABLE payments ADD COLUMN page_session TEXT;
