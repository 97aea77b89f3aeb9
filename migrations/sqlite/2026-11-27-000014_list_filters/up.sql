-- The lists filter by what merchants reconcile by. An event names the object it is about, so the
-- events of one object are found by an index rather than by reading their bodies.
ALTER TABLE events ADD COLUMN object_id TEXT NOT NULL DEFAULT '';
UPDATE events SET object_id = COALESCE(json_extract(body, '$.data.id'), '');
-- Filter indexes lead with the filter's column (see 2026-11-26-000013_tenant_keys).
CREATE INDEX events_of_object ON events (object_id, account_id, livemode, seq);
CREATE INDEX checkout_sessions_of_reference ON checkout_sessions (customer_reference_id, account_id, livemode, seq);
