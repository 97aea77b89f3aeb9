-- The idempotency records kept before this version held an unkeyed digest of the raw request, card
-- number and verification code included, from which both could be guessed back. Their digests are
-- retired: a record with the retired digest is replayed to any retry of its key (never run again)
-- until it expires, 24 hours after it was made.
UPDATE idempotency_keys SET fingerprint = 'retired';
