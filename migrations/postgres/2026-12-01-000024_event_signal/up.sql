-- Event streams (GET /events/stream) wait for events instead of looking for them: every statement
-- that appends events notifies the channel `payments_events`, once per account and mode it wrote
-- to (`acct_…:test`), and every instance listens (crates/adapters/src/event_signal.rs). PostgreSQL
-- sends a notification when the transaction commits, and never one of a transaction rolled back.
CREATE FUNCTION notify_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('payments_events', scope)
    FROM (SELECT DISTINCT account_id || ':' || CASE WHEN livemode THEN 'live' ELSE 'test' END AS scope
          FROM appended) AS scopes;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_appended AFTER INSERT ON events
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION notify_events_appended();
