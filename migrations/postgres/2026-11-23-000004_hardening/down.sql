DROP TABLE customer_metadata;
DELETE FROM idempotency_keys WHERE key_kind = 'public';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_by_key_pkey;
ALTER TABLE idempotency_keys DROP COLUMN key_kind;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (account_id, livemode, idempotency_key);
