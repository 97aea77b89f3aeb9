-- A webhook's delivery attempts carry their tenant like every other row.
ALTER TABLE webhook_delivery_attempts ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_delivery_attempts ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_delivery_attempts SET
    account_id = (SELECT account_id FROM webhook_deliveries WHERE webhook_deliveries.id = webhook_delivery_attempts.delivery_id),
    livemode = (SELECT livemode FROM webhook_deliveries WHERE webhook_deliveries.id = webhook_delivery_attempts.delivery_id);

-- A customer's metadata pairs are replaced by the customer in its tenant: the pairs index, which
-- serves the list's filter by key, leads with the key, or SQLite's planner would take it for the
-- tenant and walk every pair of the account. (SQLite takes a unique index whose every column is
-- matched over any other, so lookups by id need nothing more.)
DROP INDEX customer_metadata_pairs;
CREATE INDEX customer_metadata_pairs ON customer_metadata (key, account_id, livemode, value);
