-- What each request log entry costs to keep (its texts, in bytes), so that pruning can keep an
-- account's newest entries within a byte cap in each mode as well as a row cap. Entries written
-- before count as nothing; they are pruned by age and rows within the retention period.
ALTER TABLE request_logs ADD COLUMN size_bytes BIGINT NOT NULL DEFAULT 0;
