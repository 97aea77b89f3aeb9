CREATE TABLE customer_metadata_unkeyed (
    customer_id TEXT NOT NULL REFERENCES customers (id),
    account_id  TEXT NOT NULL,
    livemode    BOOLEAN NOT NULL,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    PRIMARY KEY (customer_id, key)
);
INSERT INTO customer_metadata_unkeyed (customer_id, account_id, livemode, key, value)
    SELECT customer_id, account_id, livemode, key, value FROM customer_metadata;
DROP TABLE customer_metadata;
ALTER TABLE customer_metadata_unkeyed RENAME TO customer_metadata;
CREATE INDEX customer_metadata_pairs ON customer_metadata (account_id, livemode, key, value);
ALTER TABLE webhook_delivery_attempts DROP COLUMN livemode;
ALTER TABLE webhook_delivery_attempts DROP COLUMN account_id;
