DROP TABLE customer_sessions;
