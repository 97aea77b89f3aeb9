-- The console finds payment intents by a metadata value (an order number, say): each pair of an
-- intent's metadata is kept beside it, indexed by value within its tenant. Only intents with metadata
-- have pairs, so an intent without any costs nothing more to write.
CREATE TABLE payment_intent_metadata (
    payment_intent_id TEXT NOT NULL,
    account_id        TEXT NOT NULL,
    livemode          BOOLEAN NOT NULL,
    key               TEXT NOT NULL,
    value             TEXT NOT NULL,
    PRIMARY KEY (payment_intent_id, key)
);
CREATE INDEX payment_intent_metadata_values ON payment_intent_metadata (value, account_id, livemode);
INSERT INTO payment_intent_metadata (payment_intent_id, account_id, livemode, key, value)
    SELECT intent.id, intent.account_id, intent.livemode, pair.key, pair.value
    FROM payment_intents AS intent, jsonb_each_text(intent.metadata::jsonb) AS pair
    WHERE intent.metadata IS NOT NULL;
