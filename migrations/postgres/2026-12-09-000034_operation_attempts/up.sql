-- An operation's attempt: after the processor refused one, the next is a new request with a key
-- of its own (`pay_…:capture:2`). `sent_at` is when its request was last sent: a processor with no
-- record of it proves it never arrived only long after that.
ALTER TABLE processor_operations ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1;
ALTER TABLE processor_operations ADD COLUMN sent_at BIGINT NOT NULL DEFAULT 0;
UPDATE processor_operations SET sent_at = updated_at;
