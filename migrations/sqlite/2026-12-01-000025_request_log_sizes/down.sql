ALTER TABLE request_logs DROP COLUMN size_bytes;
