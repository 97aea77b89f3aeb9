-- A rotated webhook secret keeps signing deliveries beside the new one until it expires (real time,
-- milliseconds), so a receiver switches over without missing a delivery (POST /webhooks/:id/rotate_secret).
ALTER TABLE webhooks ADD COLUMN previous_secret_key TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secret_expires_at_ms BIGINT;
