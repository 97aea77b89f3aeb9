ALTER TABLE processor_operations DROP COLUMN sent_at;
ALTER TABLE processor_operations DROP COLUMN attempt;
