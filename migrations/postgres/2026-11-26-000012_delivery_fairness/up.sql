-- Each webhook's endpoint health, kept beside the webhook but outside its versioned fields: attempts
-- in a row that got no answer, and the time before which none of its deliveries is sent.
ALTER TABLE webhooks ADD COLUMN unanswered_attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN retry_at_ms BIGINT NOT NULL DEFAULT 0;
-- An event's pending_webhooks is counted from its outstanding deliveries when it is read, through
-- this index, instead of a count kept in the event row (which drifted from the deliveries).
CREATE INDEX webhook_deliveries_outstanding ON webhook_deliveries (event_id) WHERE status IN ('pending', 'paused');
ALTER TABLE events DROP COLUMN pending_webhooks;
