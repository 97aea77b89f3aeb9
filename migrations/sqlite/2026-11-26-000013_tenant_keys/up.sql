-- A webhook's delivery attempts carry their tenant like every other row. (SQLite keeps `seq` as the
-- rowid: its planner takes a unique index whose every column is matched, so a lookup by id that
-- also names its tenant stays on the id's index without a new key.)
ALTER TABLE webhook_delivery_attempts ADD COLUMN account_id TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_delivery_attempts ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE webhook_delivery_attempts SET
    account_id = (SELECT account_id FROM webhook_deliveries WHERE webhook_deliveries.id = webhook_delivery_attempts.delivery_id),
    livemode = (SELECT livemode FROM webhook_deliveries WHERE webhook_deliveries.id = webhook_delivery_attempts.delivery_id);
