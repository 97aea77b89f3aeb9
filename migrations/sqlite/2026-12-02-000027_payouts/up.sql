-- The ledger: one row per movement of an account's balance, its money never changed. The payout
-- that takes an entry is written on it once (`payout_id`), so a payout claims what is unpaid with
-- one update, and finds it through an index of the unpaid entries alone.
CREATE TABLE balance_entries (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    livemode     BOOLEAN NOT NULL,
    entry_type   TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    amount       BIGINT NOT NULL,
    fee          BIGINT NOT NULL,
    net_amount   BIGINT NOT NULL,
    available_at BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    payout_id    TEXT
);
CREATE INDEX balance_entries_unpaid ON balance_entries (account_id, livemode, available_at)
    WHERE payout_id IS NULL AND entry_type <> 'payout';
-- The balance sums every entry of a scope.
CREATE INDEX balance_entries_listing ON balance_entries (account_id, livemode, seq) WHERE seq > 0;

CREATE TABLE payouts (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    livemode      BOOLEAN NOT NULL,
    amount        BIGINT NOT NULL,
    net_amount    BIGINT NOT NULL,
    destination   TEXT NOT NULL,
    status        TEXT NOT NULL,
    failure_code  TEXT,
    action_due_at BIGINT,
    version       BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX payouts_listing ON payouts (account_id, livemode, seq) WHERE seq > 0;
CREATE INDEX payouts_due ON payouts (action_due_at) WHERE action_due_at IS NOT NULL;
CREATE INDEX payouts_due_in_scope ON payouts (account_id, livemode, action_due_at) WHERE action_due_at IS NOT NULL;

-- A payout's lines: an entry is in one payout at most.
CREATE TABLE payout_transactions (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    account_id       TEXT NOT NULL REFERENCES accounts (id),
    livemode         BOOLEAN NOT NULL,
    payout_id        TEXT NOT NULL REFERENCES payouts (id),
    entry_id         TEXT NOT NULL UNIQUE REFERENCES balance_entries (id),
    transaction_type TEXT NOT NULL,
    transaction_id   TEXT NOT NULL,
    amount           BIGINT NOT NULL,
    net_amount       BIGINT NOT NULL,
    created_at       BIGINT NOT NULL
);
CREATE INDEX payout_transactions_of_payout ON payout_transactions (payout_id, seq);

-- Each account's payout schedule in each mode, with its bank account.
CREATE TABLE payout_schedules (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    livemode        BOOLEAN NOT NULL,
    payout_interval TEXT NOT NULL,
    weekly_anchor   TEXT,
    monthly_anchor  INTEGER,
    destination     TEXT NOT NULL,
    next_payout_at  BIGINT,
    version         BIGINT NOT NULL,
    UNIQUE (account_id, livemode)
);
CREATE INDEX payout_schedules_due ON payout_schedules (next_payout_at) WHERE next_payout_at IS NOT NULL;

-- The accounts made before payouts get the schedule a new account gets: daily in test mode, at the
-- next midnight in the Philippines (16:00 UTC), to the test bank account that receives; none in
-- live mode, which has no processor to pay out from.
INSERT INTO payout_schedules (account_id, livemode, payout_interval, destination, next_payout_at, version)
SELECT id, FALSE, 'daily', json_object('account_name', name, 'account_number', '000123456789', 'bank_name', 'Test Bank of the Philippines'),
       ((CAST(strftime('%s', 'now') AS INTEGER) - 57600) / 86400 + 1) * 86400 + 57600, 0
FROM accounts;
INSERT INTO payout_schedules (account_id, livemode, payout_interval, destination, next_payout_at, version)
SELECT id, TRUE, 'daily', json_object('account_name', name, 'account_number', '000123456789', 'bank_name', 'Test Bank of the Philippines'), NULL, 0
FROM accounts;
