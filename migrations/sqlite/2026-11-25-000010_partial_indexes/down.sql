DROP INDEX setup_intents_due;
CREATE INDEX setup_intents_due ON setup_intents (action_due_at);
DROP INDEX payment_intents_due;
CREATE INDEX payment_intents_due ON payment_intents (action_due_at);
