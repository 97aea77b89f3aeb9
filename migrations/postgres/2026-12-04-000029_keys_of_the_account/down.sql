-- The keys as they were before: ids unique on their own, rows keyed by `seq`, and the trigger.
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

ALTER TABLE balance_entries DROP CONSTRAINT balance_entries_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE billing_statement_line_items DROP CONSTRAINT billing_statement_line_items_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE customer_sessions DROP CONSTRAINT customer_sessions_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE customers DROP CONSTRAINT customers_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE payment_methods DROP CONSTRAINT payment_methods_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE payments DROP CONSTRAINT payments_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE payout_transactions DROP CONSTRAINT payout_transactions_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE payouts DROP CONSTRAINT payouts_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE refunds DROP CONSTRAINT refunds_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE request_logs DROP CONSTRAINT request_logs_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE setup_intents DROP CONSTRAINT setup_intents_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD PRIMARY KEY (seq), ADD UNIQUE (id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey, ADD PRIMARY KEY (id);
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_payment_intent_id_account_id_key,
    ADD UNIQUE (payment_intent_id);
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_payment_intent_id_account_id_key,
    ADD UNIQUE (payment_intent_id);
ALTER TABLE payout_transactions DROP CONSTRAINT payout_transactions_entry_id_account_id_key, ADD UNIQUE (entry_id);
ALTER TABLE customer_metadata DROP CONSTRAINT customer_metadata_pkey, ADD PRIMARY KEY (customer_id, key);
ALTER TABLE payment_intent_metadata DROP CONSTRAINT payment_intent_metadata_pkey,
    ADD PRIMARY KEY (payment_intent_id, key);
ALTER TABLE payout_schedules DROP CONSTRAINT payout_schedules_pkey, ADD PRIMARY KEY (seq),
    ADD UNIQUE (account_id, livemode);
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_pkey, ADD PRIMARY KEY (seq);

DROP INDEX payments_one_paid_per_intent;
CREATE UNIQUE INDEX payments_one_paid_per_intent ON payments (payment_intent_id) WHERE status = 'paid';
DROP INDEX payment_intents_redirect_token;
CREATE UNIQUE INDEX payment_intents_redirect_token ON payment_intents (redirect_token)
    WHERE redirect_token IS NOT NULL;
DROP INDEX setup_intents_redirect_token;
CREATE UNIQUE INDEX setup_intents_redirect_token ON setup_intents (redirect_token) WHERE redirect_token IS NOT NULL;

ALTER TABLE billing_statement_line_items ADD CONSTRAINT billing_statement_line_items_billing_statement_id_fkey FOREIGN KEY (billing_statement_id)
    REFERENCES billing_statements (id) ON DELETE CASCADE;
ALTER TABLE billing_statements ADD CONSTRAINT billing_statements_customer_id_fkey FOREIGN KEY (customer_id)
    REFERENCES customers (id);
ALTER TABLE billing_statements ADD CONSTRAINT billing_statements_payment_intent_id_fkey FOREIGN KEY (payment_intent_id)
    REFERENCES payment_intents (id);
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_payment_intent_id_fkey FOREIGN KEY (payment_intent_id)
    REFERENCES payment_intents (id);
ALTER TABLE customer_metadata ADD CONSTRAINT customer_metadata_customer_id_fkey FOREIGN KEY (customer_id)
    REFERENCES customers (id);
ALTER TABLE customer_sessions ADD CONSTRAINT customer_sessions_customer_id_fkey FOREIGN KEY (customer_id)
    REFERENCES customers (id);
ALTER TABLE payment_methods ADD CONSTRAINT payment_methods_customer_id_fkey FOREIGN KEY (customer_id)
    REFERENCES customers (id);
ALTER TABLE payments ADD CONSTRAINT payments_payment_intent_id_fkey FOREIGN KEY (payment_intent_id)
    REFERENCES payment_intents (id);
ALTER TABLE payout_transactions ADD CONSTRAINT payout_transactions_entry_id_fkey FOREIGN KEY (entry_id)
    REFERENCES balance_entries (id);
ALTER TABLE payout_transactions ADD CONSTRAINT payout_transactions_payout_id_fkey FOREIGN KEY (payout_id)
    REFERENCES payouts (id);
ALTER TABLE refunds ADD CONSTRAINT refunds_payment_id_fkey FOREIGN KEY (payment_id)
    REFERENCES payments (id);
ALTER TABLE setup_intents ADD CONSTRAINT setup_intents_customer_id_fkey FOREIGN KEY (customer_id)
    REFERENCES customers (id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id)
    REFERENCES events (id);
ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_delivery_id_fkey FOREIGN KEY (delivery_id)
    REFERENCES webhook_deliveries (id);

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
