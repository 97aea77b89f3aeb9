DROP TABLE events;
DROP TABLE refunds;
DROP TABLE payments;
DROP TABLE payment_intents;
