-- Every query a request makes names its tenant (account_id, livemode), so a PostgreSQL sharded by
-- account_id routes it to one shard: lists, and lookups by key too. A lookup by key must then find no
-- index but its key's: the listing indexes lead with the tenant, and in a plan made before a table
-- has statistics a lookup ties with them (the key's taller index can even lose), and the cached plan
-- goes on walking the account's rows as the table grows. A listing index is therefore partial on
-- `seq > 0`, true of every row, which only a list states. The two indexes that serve filters lead
-- with the filter's column instead.
DROP INDEX customers_listing;
CREATE INDEX customers_listing ON customers (account_id, livemode, seq) WHERE seq > 0;
DROP INDEX payment_intents_listing;
CREATE INDEX payment_intents_listing ON payment_intents (account_id, livemode, seq) WHERE seq > 0;
DROP INDEX events_listing;
CREATE INDEX events_listing ON events (account_id, livemode, seq) WHERE seq > 0;
DROP INDEX webhooks_listing;
CREATE INDEX webhooks_listing ON webhooks (account_id, livemode, seq) WHERE seq > 0;
DROP INDEX checkout_sessions_of_scope;
CREATE INDEX checkout_sessions_of_scope ON checkout_sessions (account_id, livemode, seq) WHERE seq > 0;
DROP INDEX billing_statements_of_scope;
CREATE INDEX billing_statements_of_scope ON billing_statements (account_id, livemode, seq) WHERE seq > 0;
DROP INDEX mail_messages_of_scope;
CREATE INDEX mail_messages_of_scope ON mail_messages (account_id, livemode, seq) WHERE seq > 0;
DROP INDEX payment_methods_of_customer;
CREATE INDEX payment_methods_of_customer ON payment_methods (customer_id, account_id, livemode, seq);
DROP INDEX customer_metadata_pairs;
CREATE INDEX customer_metadata_pairs ON customer_metadata (key, account_id, livemode, value);

-- A webhook's delivery attempts carry their tenant like every other row.
ALTER TABLE webhook_delivery_attempts ADD COLUMN account_id TEXT, ADD COLUMN livemode BOOLEAN;
UPDATE webhook_delivery_attempts AS attempt
    SET account_id = delivery.account_id, livemode = delivery.livemode
    FROM webhook_deliveries AS delivery WHERE delivery.id = attempt.delivery_id;
ALTER TABLE webhook_delivery_attempts ALTER COLUMN account_id SET NOT NULL, ALTER COLUMN livemode SET NOT NULL;
