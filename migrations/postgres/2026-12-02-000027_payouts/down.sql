DROP TABLE payout_schedules;
DROP TABLE payout_transactions;
DROP TABLE payouts;
DROP TABLE balance_entries;
