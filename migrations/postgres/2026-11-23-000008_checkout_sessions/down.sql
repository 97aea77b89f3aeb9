DROP TABLE checkout_sessions;
