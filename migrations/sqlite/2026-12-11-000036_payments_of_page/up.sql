-- A page's payments, newest first, for the console's page and its CSV: the page a payment's order
-- was placed on, copied from its page session when the payment is written.
ALTER TABLE payments ADD COLUMN page_id TEXT;
UPDATE payments SET page_id = json_extract(page_session, '$.page_id') WHERE page_session IS NOT NULL;
CREATE INDEX payments_of_page ON payments (page_id, account_id, livemode, seq) WHERE page_id IS NOT NULL;
