-- An attempt keeps the start of the receiver's answer, and an event's attempts are found by the
-- event (the console's event page shows every attempt to deliver it).
ALTER TABLE webhook_delivery_attempts ADD COLUMN response_excerpt TEXT;
CREATE INDEX webhook_delivery_attempts_of_event ON webhook_delivery_attempts (event_id, account_id, livemode, seq);
