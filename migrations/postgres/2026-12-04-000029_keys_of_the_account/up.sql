-- Every key of a merchant's rows names its account, so that the tables can be distributed by
-- `account_id` (Citus, docs/operations.md#sharding-by-account-on-citus), where a primary key, a
-- unique constraint or a foreign key must include the distribution column. On one server the keys
-- mean what they meant: ids are unique on their own, and a row still refers to a row of its account.
--
-- - A table with ids keys its rows by `(id, account_id)`: a lookup by id alone (a hosted page's)
--   still takes the key's index, and `seq`, which only orders the listings (their own indexes),
--   keeps its sequence but no longer its unique index: one index fewer on every insert.
-- - Tables without ids (attempts, schedules, metadata) key by what they keyed by, and the account.
-- - Each reference between a merchant's rows also names the account: `(customer_id, account_id)`
--   refers to `customers (id, account_id)`.
-- - The trigger that signalled appended events is gone: the statement that appends them now says
--   so itself (crates/adapters/src/db/write_batch.rs), because a trigger cannot follow rows that
--   live on other nodes.

-- The references between a merchant's rows, dropped first: they lean on the unique ids.
ALTER TABLE billing_statement_line_items DROP CONSTRAINT billing_statement_line_items_billing_statement_id_fkey;
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_customer_id_fkey;
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_payment_intent_id_fkey;
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_payment_intent_id_fkey;
ALTER TABLE customer_metadata DROP CONSTRAINT customer_metadata_customer_id_fkey;
ALTER TABLE customer_sessions DROP CONSTRAINT customer_sessions_customer_id_fkey;
ALTER TABLE payment_methods DROP CONSTRAINT payment_methods_customer_id_fkey;
ALTER TABLE payments DROP CONSTRAINT payments_payment_intent_id_fkey;
ALTER TABLE payout_transactions DROP CONSTRAINT payout_transactions_entry_id_fkey;
ALTER TABLE payout_transactions DROP CONSTRAINT payout_transactions_payout_id_fkey;
ALTER TABLE refunds DROP CONSTRAINT refunds_payment_id_fkey;
ALTER TABLE setup_intents DROP CONSTRAINT setup_intents_customer_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_delivery_id_fkey;

-- Rows keyed by (id, account_id).
ALTER TABLE balance_entries DROP CONSTRAINT balance_entries_pkey, DROP CONSTRAINT balance_entries_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE billing_statement_line_items DROP CONSTRAINT billing_statement_line_items_pkey,
    DROP CONSTRAINT billing_statement_line_items_id_key, ADD PRIMARY KEY (id, account_id);
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_pkey, DROP CONSTRAINT billing_statements_id_key,
    DROP CONSTRAINT billing_statements_payment_intent_id_key, ADD PRIMARY KEY (id, account_id),
    ADD UNIQUE (payment_intent_id, account_id);
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_pkey, DROP CONSTRAINT checkout_sessions_id_key,
    DROP CONSTRAINT checkout_sessions_payment_intent_id_key, ADD PRIMARY KEY (id, account_id),
    ADD UNIQUE (payment_intent_id, account_id);
ALTER TABLE customer_sessions DROP CONSTRAINT customer_sessions_pkey, DROP CONSTRAINT customer_sessions_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE customers DROP CONSTRAINT customers_pkey, DROP CONSTRAINT customers_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE events DROP CONSTRAINT events_pkey, DROP CONSTRAINT events_id_key, ADD PRIMARY KEY (id, account_id);
ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_pkey, DROP CONSTRAINT mail_messages_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_pkey, DROP CONSTRAINT payment_intents_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE payment_methods DROP CONSTRAINT payment_methods_pkey, DROP CONSTRAINT payment_methods_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE payments DROP CONSTRAINT payments_pkey, DROP CONSTRAINT payments_id_key, ADD PRIMARY KEY (id, account_id);
ALTER TABLE payout_transactions DROP CONSTRAINT payout_transactions_pkey,
    DROP CONSTRAINT payout_transactions_id_key, DROP CONSTRAINT payout_transactions_entry_id_key,
    ADD PRIMARY KEY (id, account_id), ADD UNIQUE (entry_id, account_id);
ALTER TABLE payouts DROP CONSTRAINT payouts_pkey, DROP CONSTRAINT payouts_id_key, ADD PRIMARY KEY (id, account_id);
ALTER TABLE refunds DROP CONSTRAINT refunds_pkey, DROP CONSTRAINT refunds_id_key, ADD PRIMARY KEY (id, account_id);
ALTER TABLE request_logs DROP CONSTRAINT request_logs_pkey, DROP CONSTRAINT request_logs_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE setup_intents DROP CONSTRAINT setup_intents_pkey, DROP CONSTRAINT setup_intents_id_key,
    ADD PRIMARY KEY (id, account_id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey, ADD PRIMARY KEY (id, account_id);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, DROP CONSTRAINT webhooks_id_key, ADD PRIMARY KEY (id, account_id);

-- Rows without ids.
ALTER TABLE customer_metadata DROP CONSTRAINT customer_metadata_pkey, ADD PRIMARY KEY (customer_id, key, account_id);
ALTER TABLE payment_intent_metadata DROP CONSTRAINT payment_intent_metadata_pkey,
    ADD PRIMARY KEY (payment_intent_id, key, account_id);
ALTER TABLE payout_schedules DROP CONSTRAINT payout_schedules_pkey,
    DROP CONSTRAINT payout_schedules_account_id_livemode_key, ADD PRIMARY KEY (account_id, livemode);
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_pkey, ADD PRIMARY KEY (seq, account_id);

-- Unique indexes beside the keys.
DROP INDEX payments_one_paid_per_intent;
CREATE UNIQUE INDEX payments_one_paid_per_intent ON payments (payment_intent_id, account_id) WHERE status = 'paid';
DROP INDEX payment_intents_redirect_token;
CREATE UNIQUE INDEX payment_intents_redirect_token ON payment_intents (redirect_token, account_id)
    WHERE redirect_token IS NOT NULL;
DROP INDEX setup_intents_redirect_token;
CREATE UNIQUE INDEX setup_intents_redirect_token ON setup_intents (redirect_token, account_id)
    WHERE redirect_token IS NOT NULL;

-- The references again, each within its account, under their old names.
ALTER TABLE billing_statement_line_items ADD CONSTRAINT billing_statement_line_items_billing_statement_id_fkey
    FOREIGN KEY (billing_statement_id, account_id) REFERENCES billing_statements (id, account_id) ON DELETE CASCADE;
ALTER TABLE billing_statements ADD CONSTRAINT billing_statements_customer_id_fkey
    FOREIGN KEY (customer_id, account_id) REFERENCES customers (id, account_id);
ALTER TABLE billing_statements ADD CONSTRAINT billing_statements_payment_intent_id_fkey
    FOREIGN KEY (payment_intent_id, account_id) REFERENCES payment_intents (id, account_id);
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_payment_intent_id_fkey
    FOREIGN KEY (payment_intent_id, account_id) REFERENCES payment_intents (id, account_id);
ALTER TABLE customer_metadata ADD CONSTRAINT customer_metadata_customer_id_fkey
    FOREIGN KEY (customer_id, account_id) REFERENCES customers (id, account_id);
ALTER TABLE customer_sessions ADD CONSTRAINT customer_sessions_customer_id_fkey
    FOREIGN KEY (customer_id, account_id) REFERENCES customers (id, account_id);
ALTER TABLE payment_methods ADD CONSTRAINT payment_methods_customer_id_fkey
    FOREIGN KEY (customer_id, account_id) REFERENCES customers (id, account_id);
ALTER TABLE payments ADD CONSTRAINT payments_payment_intent_id_fkey
    FOREIGN KEY (payment_intent_id, account_id) REFERENCES payment_intents (id, account_id);
ALTER TABLE payout_transactions ADD CONSTRAINT payout_transactions_entry_id_fkey
    FOREIGN KEY (entry_id, account_id) REFERENCES balance_entries (id, account_id);
ALTER TABLE payout_transactions ADD CONSTRAINT payout_transactions_payout_id_fkey
    FOREIGN KEY (payout_id, account_id) REFERENCES payouts (id, account_id);
ALTER TABLE refunds ADD CONSTRAINT refunds_payment_id_fkey
    FOREIGN KEY (payment_id, account_id) REFERENCES payments (id, account_id);
ALTER TABLE setup_intents ADD CONSTRAINT setup_intents_customer_id_fkey
    FOREIGN KEY (customer_id, account_id) REFERENCES customers (id, account_id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey
    FOREIGN KEY (event_id, account_id) REFERENCES events (id, account_id);
ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_delivery_id_fkey
    FOREIGN KEY (delivery_id, account_id) REFERENCES webhook_deliveries (id, account_id);

DROP TRIGGER events_appended ON events;
DROP FUNCTION notify_events_appended();
