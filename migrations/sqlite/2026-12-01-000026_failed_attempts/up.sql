-- The console's overview lists a scope's latest attempts that did not deliver their event (an
-- error, or no 2xx answer): partial on those, which are few beside the delivered ones.
CREATE INDEX webhook_delivery_attempts_failed ON webhook_delivery_attempts (account_id, livemode, seq)
    WHERE error IS NOT NULL OR status_code IS NULL OR status_code < 200 OR status_code > 299;
