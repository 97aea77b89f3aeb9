-- Indexes hold only the rows their lookups can find. Most intents never wait for an action: their
-- NULL due time was an index entry every insert wrote and no query read (`action_due_at <= ?`
-- never matches NULL). The redirect tokens' UNIQUE constraints stay whole here: SQLite can only
-- drop a column constraint by rebuilding its table.
DROP INDEX payment_intents_due;
CREATE INDEX payment_intents_due ON payment_intents (action_due_at) WHERE action_due_at IS NOT NULL;
DROP INDEX setup_intents_due;
CREATE INDEX setup_intents_due ON setup_intents (action_due_at) WHERE action_due_at IS NOT NULL;
