DROP TABLE request_logs;
