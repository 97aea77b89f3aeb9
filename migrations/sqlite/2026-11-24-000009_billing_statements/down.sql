ALTER TABLE payment_intents DROP COLUMN owner;
DROP TABLE mail_messages;
DROP TABLE billing_statement_line_items;
DROP TABLE billing_statements;
