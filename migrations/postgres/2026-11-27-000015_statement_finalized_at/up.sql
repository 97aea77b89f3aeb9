-- When a statement was finalized (PayRex's Node client reads `finalized_at`). A statement finalized
-- before this column existed gets its last update's time, the closest known.
ALTER TABLE billing_statements ADD COLUMN finalized_at BIGINT;
UPDATE billing_statements SET finalized_at = updated_at WHERE billing_statement_number IS NOT NULL;
