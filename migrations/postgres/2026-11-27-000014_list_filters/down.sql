DROP INDEX checkout_sessions_of_reference;
DROP INDEX events_of_object;
ALTER TABLE events DROP COLUMN object_id;
