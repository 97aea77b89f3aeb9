DROP TABLE console_sessions;
