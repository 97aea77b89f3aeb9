-- An event's envelope is rendered once, when the event is appended, and kept: `GET /events/:id` and
-- every webhook delivery send these bytes. Existing events get theirs built from their columns.
ALTER TABLE events ADD COLUMN body TEXT NOT NULL DEFAULT '';
UPDATE events SET body = json_object(
    'id', id, 'resource', 'event', 'type', event_type,
    'livemode', CASE WHEN livemode THEN json('true') ELSE json('false') END,
    'pending_webhooks', pending_webhooks, 'data', json(data), 'previous_attributes', json(previous_attributes),
    'created_at', created_at, 'updated_at', updated_at);
ALTER TABLE events DROP COLUMN data;
ALTER TABLE events DROP COLUMN previous_attributes;
ALTER TABLE events DROP COLUMN updated_at;
