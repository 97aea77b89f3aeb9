ALTER TABLE webhooks DROP COLUMN previous_secret_expires_at_ms;
ALTER TABLE webhooks DROP COLUMN previous_secret_key;
