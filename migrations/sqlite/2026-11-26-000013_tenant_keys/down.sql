DROP INDEX customer_metadata_pairs;
CREATE INDEX customer_metadata_pairs ON customer_metadata (account_id, livemode, key, value);
ALTER TABLE webhook_delivery_attempts DROP COLUMN livemode;
ALTER TABLE webhook_delivery_attempts DROP COLUMN account_id;
