-- The ledger of the payments and refunds made before it existed (or imported from an export made
-- before it): a paid payment's net amount, available after its method's default settlement delay
-- (card 48 h, BillEase 72 h, GCash, Maya and QR Ph 24 h), and a refund out at once, so that every
-- payment and refund is paid out once. Each only where it has no entry yet: running this again
-- adds nothing (the import of an older export runs it after its rows).
INSERT INTO balance_entries (id, account_id, livemode, entry_type, source_id, amount, fee, net_amount, available_at, created_at)
SELECT 'bal_' || md5(p.id || ':ledger'), p.account_id, p.livemode, 'payment', p.id, p.amount, p.fee, p.amount - p.fee,
       p.created_at + CASE p.payment_method::json->>'type' WHEN 'card' THEN 172800 WHEN 'billease' THEN 259200 ELSE 86400 END,
       p.created_at
FROM payments p
WHERE p.status = 'paid' AND NOT EXISTS (SELECT 1 FROM balance_entries e WHERE e.source_id = p.id AND e.account_id = p.account_id)
ORDER BY p.seq;
INSERT INTO balance_entries (id, account_id, livemode, entry_type, source_id, amount, fee, net_amount, available_at, created_at)
SELECT 'bal_' || md5(r.id || ':ledger'), r.account_id, r.livemode, 'refund', r.id, -r.amount, 0, -r.amount, r.created_at, r.created_at
FROM refunds r
WHERE r.status = 'succeeded' AND NOT EXISTS (SELECT 1 FROM balance_entries e WHERE e.source_id = r.id AND e.account_id = r.account_id)
ORDER BY r.seq;
