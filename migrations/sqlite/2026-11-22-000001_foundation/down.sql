DROP TABLE customers;
DROP TABLE idempotency_keys;
DROP TABLE api_keys;
DROP TABLE accounts;
