ALTER TABLE payments DROP COLUMN page_session;
ALTER TABLE payment_intents DROP COLUMN page_session;
DROP TABLE pages;
DROP TABLE prices;
DROP TABLE products;
