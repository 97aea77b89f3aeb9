ALTER TABLE events ADD COLUMN data TEXT NOT NULL DEFAULT '{}';
ALTER TABLE events ADD COLUMN previous_attributes TEXT NOT NULL DEFAULT '{}';
ALTER TABLE events ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0;
UPDATE events SET data = json_extract(body, '$.data'), previous_attributes = json_extract(body, '$.previous_attributes'),
                  updated_at = created_at;
ALTER TABLE events DROP COLUMN body;
