-- An event's envelope is rendered once, when the event is appended, and kept: `GET /events/:id` and
-- every webhook delivery send these bytes. Existing events get theirs built from their columns.
ALTER TABLE events ADD COLUMN body TEXT;
UPDATE events SET body = json_build_object(
    'id', id, 'resource', 'event', 'type', event_type, 'livemode', livemode,
    'pending_webhooks', pending_webhooks, 'data', data::json, 'previous_attributes', previous_attributes::json,
    'created_at', created_at, 'updated_at', updated_at)::text;
ALTER TABLE events ALTER COLUMN body SET NOT NULL;
ALTER TABLE events DROP COLUMN data, DROP COLUMN previous_attributes, DROP COLUMN updated_at;
