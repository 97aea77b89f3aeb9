ALTER TABLE webhook_delivery_attempts DROP COLUMN account_id, DROP COLUMN livemode;
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_payment_intent_id_key,
    ADD CONSTRAINT billing_statements_payment_intent_id_key UNIQUE (payment_intent_id);
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_payment_intent_id_key,
    ADD CONSTRAINT checkout_sessions_payment_intent_id_key UNIQUE (payment_intent_id);
ALTER TABLE customer_metadata DROP CONSTRAINT customer_metadata_pkey, ADD PRIMARY KEY (customer_id, key);
ALTER TABLE mail_messages DROP CONSTRAINT mail_messages_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE billing_statement_line_items DROP CONSTRAINT billing_statement_line_items_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE billing_statements DROP CONSTRAINT billing_statements_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE customer_sessions DROP CONSTRAINT customer_sessions_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE payment_methods DROP CONSTRAINT payment_methods_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE setup_intents DROP CONSTRAINT setup_intents_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE webhooks DROP CONSTRAINT webhooks_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE refunds DROP CONSTRAINT refunds_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE payments DROP CONSTRAINT payments_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_pkey, ADD PRIMARY KEY (seq);
ALTER TABLE customers DROP CONSTRAINT customers_pkey, ADD PRIMARY KEY (seq);
