-- Indexes hold only the rows their lookups can find. Most intents never wait for an action or a
-- redirect: their NULL due time and NULL redirect token were index entries every insert wrote and
-- no query read (`action_due_at <= $now` and `redirect_token = $token` never match NULL).
DROP INDEX payment_intents_due;
CREATE INDEX payment_intents_due ON payment_intents (action_due_at) WHERE action_due_at IS NOT NULL;
DROP INDEX setup_intents_due;
CREATE INDEX setup_intents_due ON setup_intents (action_due_at) WHERE action_due_at IS NOT NULL;
ALTER TABLE payment_intents DROP CONSTRAINT payment_intents_redirect_token_key;
CREATE UNIQUE INDEX payment_intents_redirect_token ON payment_intents (redirect_token) WHERE redirect_token IS NOT NULL;
ALTER TABLE setup_intents DROP CONSTRAINT setup_intents_redirect_token_key;
CREATE UNIQUE INDEX setup_intents_redirect_token ON setup_intents (redirect_token) WHERE redirect_token IS NOT NULL;
