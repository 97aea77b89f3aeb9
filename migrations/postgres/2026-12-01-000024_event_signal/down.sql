DROP TRIGGER events_appended ON events;
DROP FUNCTION notify_events_appended();
