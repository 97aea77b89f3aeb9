DROP TABLE payment_intent_metadata;
