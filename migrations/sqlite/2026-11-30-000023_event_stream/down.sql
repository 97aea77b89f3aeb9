DROP INDEX events_stream;
ALTER TABLE events DROP COLUMN txid;
