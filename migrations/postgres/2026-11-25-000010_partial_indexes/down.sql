DROP INDEX setup_intents_redirect_token;
ALTER TABLE setup_intents ADD CONSTRAINT setup_intents_redirect_token_key UNIQUE (redirect_token);
DROP INDEX payment_intents_redirect_token;
ALTER TABLE payment_intents ADD CONSTRAINT payment_intents_redirect_token_key UNIQUE (redirect_token);
DROP INDEX setup_intents_due;
CREATE INDEX setup_intents_due ON setup_intents (action_due_at);
DROP INDEX payment_intents_due;
CREATE INDEX payment_intents_due ON payment_intents (action_due_at);
