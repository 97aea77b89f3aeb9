-- Events a live processor sent to an account's connector, each kept once (`id` is the connector's
-- id and the processor's event id), answered at once and acted on later: the object they name is
-- fetched again from the processor, whose answer is the truth, never the event's body. An event not
-- yet acted on has no `processed_at`.
CREATE TABLE processor_events (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    account_id       TEXT NOT NULL REFERENCES accounts (id),
    livemode         BOOLEAN NOT NULL,
    object_kind      TEXT NOT NULL,
    object_reference TEXT NOT NULL,
    received_at      BIGINT NOT NULL,
    processed_at     BIGINT
);
CREATE INDEX processor_events_unprocessed ON processor_events (received_at) WHERE processed_at IS NULL;
CREATE INDEX processor_events_unprocessed_in_scope ON processor_events (account_id, livemode, received_at)
    WHERE processed_at IS NULL;
-- A processor's event names its payment or refund by the processor's id.
CREATE INDEX processor_operations_of_reference ON processor_operations (processor_reference)
    WHERE processor_reference IS NOT NULL;
