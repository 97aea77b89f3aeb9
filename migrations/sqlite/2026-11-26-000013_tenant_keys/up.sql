-- A webhook's delivery attempts carry their tenant like every other row. (SQLite keeps `seq` as the
-- rowid: its planner takes a unique index whose every column is matched, so a lookup by id that
-- also names its tenant stays on the id's index without a new key.)
ALTER TABLE webhook_delivery_attempts ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_delivery_attempts ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_delivery_attempts SET
    account_id = (SELECT account_id FROM webhook_deliveries WHERE webhook_deliveries.id = webhook_delivery_attempts.delivery_id),
    livemode = (SELECT livemode FROM webhook_deliveries WHERE webhook_deliveries.id = webhook_delivery_attempts.delivery_id);

-- A customer's metadata pairs are replaced by the customer and its tenant: the key holds all three,
-- or SQLite's planner prefers the tenant's pairs index and walks every pair of the account.
CREATE TABLE customer_metadata_keyed (
    customer_id TEXT NOT NULL REFERENCES customers (id),
    account_id  TEXT NOT NULL,
    livemode    BOOLEAN NOT NULL,
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,
    PRIMARY KEY (customer_id, account_id, livemode, key)
);
INSERT INTO customer_metadata_keyed (customer_id, account_id, livemode, key, value)
    SELECT customer_id, account_id, livemode, key, value FROM customer_metadata;
DROP TABLE customer_metadata;
ALTER TABLE customer_metadata_keyed RENAME TO customer_metadata;
CREATE INDEX customer_metadata_pairs ON customer_metadata (account_id, livemode, key, value);
