-- The event stream (GET /events/stream) reads events by (txid, seq). SQLite commits one writer at a
-- time, so the order of `seq` is already the order events became final: `txid` stays 1.
ALTER TABLE events ADD COLUMN txid BIGINT NOT NULL DEFAULT 1;
CREATE INDEX events_stream ON events (account_id, livemode, txid, seq);
