ALTER TABLE billing_statements DROP COLUMN finalized_at;
