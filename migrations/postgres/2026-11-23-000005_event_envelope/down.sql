ALTER TABLE events ADD COLUMN data TEXT, ADD COLUMN previous_attributes TEXT, ADD COLUMN updated_at BIGINT;
UPDATE events SET data = (body::json -> 'data')::text,
                  previous_attributes = (body::json -> 'previous_attributes')::text,
                  updated_at = created_at;
ALTER TABLE events ALTER COLUMN data SET NOT NULL, ALTER COLUMN previous_attributes SET NOT NULL,
                   ALTER COLUMN updated_at SET NOT NULL, DROP COLUMN body;
