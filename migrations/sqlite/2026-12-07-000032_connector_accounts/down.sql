DROP TABLE connector_accounts;
