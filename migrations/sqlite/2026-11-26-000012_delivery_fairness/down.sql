ALTER TABLE events ADD COLUMN pending_webhooks BIGINT NOT NULL DEFAULT 0;
DROP INDEX webhook_deliveries_outstanding;
ALTER TABLE webhooks DROP COLUMN retry_at_ms;
ALTER TABLE webhooks DROP COLUMN unanswered_attempts;
