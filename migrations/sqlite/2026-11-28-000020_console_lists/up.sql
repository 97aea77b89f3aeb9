-- The console shows a customer's sessions: found by the customer, as every filter index leads with
-- its filter's column (see 2026-11-26-000013_tenant_keys). Payments and refunds are listed newest
-- first through their primary key, as charges write them: no index is added to the charge's path.
CREATE INDEX customer_sessions_of_customer ON customer_sessions (customer_id, account_id, livemode, seq);
