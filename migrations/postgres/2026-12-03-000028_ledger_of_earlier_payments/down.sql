-- The entries it made stay: they are the ledger's, and payouts may have taken them.
SELECT 1;
