-- Every query a request makes names its tenant (account_id, livemode), so a PostgreSQL sharded by
-- account_id routes it to one shard. A lookup by id and tenant then needs a key with all three:
-- with the id's index alone, a generic plan cached while a table is nearly empty ties it with the
-- account's listing index (account_id, livemode, seq) and keeps walking the account's rows as the
-- table grows. The key leads with the id, so that no two tenant-led indexes tie either. The tables'
-- primary keys become (id, account_id, livemode) in place of the list position `seq`, which only
-- the listing indexes use; `id` stays unique on its own for the references and the lookups that
-- cannot know the account (hosted pages, background jobs).
ALTER TABLE customers DROP CONSTRAINT customers_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE payments DROP CONSTRAINT payments_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE refunds DROP CONSTRAINT refunds_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE setup_intents DROP CONSTRAINT setup_intents_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE payment_methods DROP CONSTRAINT payment_methods_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE customer_sessions DROP CONSTRAINT customer_sessions_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE billing_statement_line_items
    DROP CONSTRAINT billing_statement_line_items_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_pkey, ADD PRIMARY KEY (id, account_id, livemode);
ALTER TABLE customer_metadata
    DROP CONSTRAINT customer_metadata_pkey, ADD PRIMARY KEY (customer_id, account_id, livemode, key);

-- The other keys a request looks up by hold the tenant the same way.
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_payment_intent_id_key,
    ADD CONSTRAINT checkout_sessions_payment_intent_id_key UNIQUE (payment_intent_id, account_id, livemode);
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_payment_intent_id_key,
    ADD CONSTRAINT billing_statements_payment_intent_id_key UNIQUE (payment_intent_id, account_id, livemode);

-- Lists name the tenant too, and their indexes lead with it: a lookup by key would tie with them
-- in a plan made before the table has statistics (the taller key index can even lose), and keep
-- walking the account's rows. A listing index is therefore partial on `seq > 0` (true of every
-- row), which only a list states: a lookup by key cannot take it, whatever the statistics. The two
-- indexes that serve filters lead with the filter's column instead.
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
