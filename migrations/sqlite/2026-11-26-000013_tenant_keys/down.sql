ALTER TABLE webhook_delivery_attempts DROP COLUMN livemode;
ALTER TABLE webhook_delivery_attempts DROP COLUMN account_id;
