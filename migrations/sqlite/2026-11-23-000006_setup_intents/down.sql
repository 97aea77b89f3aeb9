DROP TABLE payment_methods;
DROP TABLE setup_intents;
