-- The event stream (GET /events/stream) gives each event once, in the order its transaction became
-- final: by (txid, seq), and only events whose transaction is older than every transaction still
-- running, so an event committed late is never passed over. `txid` is the appending transaction's
-- id; events written before this column existed are 1, older than every real one (ids start at 3).
-- The constant default first makes the column without rewriting the table; new rows then take their
-- transaction's id, an instance of the previous release inserting events too.
ALTER TABLE events ADD COLUMN txid BIGINT NOT NULL DEFAULT 1;
ALTER TABLE events ALTER COLUMN txid SET DEFAULT (pg_current_xact_id()::text::bigint);
-- Partial on `txid > 0`, true of every row, which only the stream states: a lookup by key never
-- takes it (crates/adapters/src/db/mod.rs, `listed!`).
CREATE INDEX events_stream ON events (account_id, livemode, txid, seq) WHERE txid > 0;
