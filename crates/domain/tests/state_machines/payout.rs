//! The payout state machine: every operation from every status, allowed or refused; what a payout
//! is made of; and the ledger's invariants over a payout that fails and the one that pays its money
//! out again.

use payments_domain::balance::{Balance, BalanceEntry, EntryContext, EntryType, SettlementDelays};
use payments_domain::error::DomainError;
use payments_domain::ids::{AccountId, BalanceEntryId, PaymentId, PayoutId, PayoutTransactionId, RefundId};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::payout::{
    BankAccount, MadePayout, Payout, PayoutIds, PayoutOperation, PayoutStatus, TransactionType, ARRIVE_AFTER_SECONDS,
    SEND_AFTER_SECONDS,
};
use payments_domain::time::Timestamp;
use std::sync::atomic::{AtomicU32, Ordering};
use PayoutStatus::{Failed, InTransit, Pending, Successful};

const DAY: i64 = 24 * 60 * 60;

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_seconds(1_700_000_000 + seconds)
}

fn account() -> AccountId {
    AccountId::from_random("acct")
}

static NEXT: AtomicU32 = AtomicU32::new(0);

fn entry_id() -> BalanceEntryId {
    BalanceEntryId::from_random(&format!("e{}", NEXT.fetch_add(1, Ordering::Relaxed)))
}

fn context(account: &AccountId, now: Timestamp) -> EntryContext {
    EntryContext { id: entry_id(), account_id: account.clone(), livemode: false, now }
}

fn ids(lines: usize) -> PayoutIds {
    let next = || NEXT.fetch_add(1, Ordering::Relaxed);
    PayoutIds {
        payout: PayoutId::from_random(&format!("po{}", next())),
        entry: entry_id(),
        transactions: (0..lines).map(|_| PayoutTransactionId::from_random(&format!("t{}", next()))).collect(),
    }
}

fn paid(account: &AccountId, amount: i64, fee: i64, now: Timestamp) -> BalanceEntry {
    let payment = PaymentId::from_random(&format!("p{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    BalanceEntry::payment(context(account, now), (&payment, amount, fee, PaymentMethodType::Gcash), &SettlementDelays::default())
}

fn refunded(account: &AccountId, amount: i64, now: Timestamp) -> BalanceEntry {
    let refund = RefundId::from_random(&format!("r{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    BalanceEntry::refund(context(account, now), &refund, amount)
}

fn made(account: &AccountId, entries: &[BalanceEntry], destination: BankAccount, now: Timestamp) -> MadePayout {
    Payout::make(ids(entries.len()), entries, destination, (account, false), now).expect("a payout")
}

/// A payout brought to `status` through its transitions, to a bank account that receives (or, for
/// `failed`, returns) it.
fn payout_in(status: PayoutStatus) -> Payout {
    let account = account();
    let number = if status == Failed { "000111111116" } else { "000123456789" };
    let destination = BankAccount::new("Shop", number, "Test Bank").unwrap();
    let mut payout = made(&account, &[paid(&account, 10_000, 250, at(0))], destination, at(DAY)).payout;
    let steps: &[PayoutOperation] = match status {
        Pending => &[],
        InTransit => &[PayoutOperation::Send],
        Successful => &[PayoutOperation::Send, PayoutOperation::Deposit],
        Failed => &[PayoutOperation::Send, PayoutOperation::Fail],
    };
    for step in steps {
        payout.apply(*step, entry_id(), at(2 * DAY)).unwrap();
    }
    assert_eq!(payout.status(), status);
    payout
}

#[test]
fn every_operation_from_every_status() {
    let allowed = [
        (Pending, PayoutOperation::Send, InTransit),
        (InTransit, PayoutOperation::Deposit, Successful),
        (InTransit, PayoutOperation::Fail, Failed),
    ];
    for status in PayoutStatus::ALL {
        for operation in PayoutOperation::ALL {
            let mut payout = payout_in(status);
            let before = payout.clone();
            let outcome = payout.apply(operation, entry_id(), at(3 * DAY));
            match allowed.iter().find(|(from, op, _)| *from == status && *op == operation) {
                Some((_, _, to)) => {
                    let returned = outcome.unwrap_or_else(|e| panic!("{operation:?} from {status:?}: {e}"));
                    assert_eq!(payout.status(), *to, "{operation:?} from {status:?}");
                    assert_eq!(returned.is_some(), *to == Failed, "only a failure gives money back");
                }
                None => {
                    assert!(
                        matches!(outcome, Err(DomainError::InvalidState { resource: "payout", .. })),
                        "{operation:?} from {status:?}: {outcome:?}"
                    );
                    assert_eq!(payout, before, "a refused operation changes nothing");
                }
            }
        }
    }
}

#[test]
fn the_service_sends_a_payout_then_sees_how_the_bank_answered_at_their_times() {
    let pending = payout_in(Pending);
    assert_eq!((pending.due_operation(), pending.action_due_at()), (Some(PayoutOperation::Send), Some(at(DAY + SEND_AFTER_SECONDS))));
    let mut sent = pending.clone();
    sent.apply(PayoutOperation::Send, entry_id(), at(DAY + SEND_AFTER_SECONDS)).unwrap();
    assert_eq!((sent.due_operation(), sent.action_due_at()), (Some(PayoutOperation::Deposit), Some(at(DAY + ARRIVE_AFTER_SECONDS))));
    let returned = payout_in(InTransit);
    let account = returned.account_id().clone();
    let closed = BankAccount::new("Shop", "000111111116", "Test Bank").unwrap();
    let to_closed = made(&account, &[paid(&account, 10_000, 250, at(0))], closed, at(DAY)).payout;
    let mut to_closed = to_closed;
    to_closed.apply(PayoutOperation::Send, entry_id(), at(DAY + SEND_AFTER_SECONDS)).unwrap();
    assert_eq!(to_closed.due_operation(), Some(PayoutOperation::Fail));
    for done in [Successful, Failed] {
        assert_eq!((payout_in(done).due_operation(), payout_in(done).action_due_at()), (None, None));
    }
}

#[test]
fn a_payout_is_the_sum_of_its_lines_and_takes_only_what_is_available() {
    let account = account();
    let early = paid(&account, 10_000, 250, at(0));
    let late = paid(&account, 5_000, 150, at(DAY));
    let refund = refunded(&account, 2_000, at(DAY / 2));
    let elsewhere = paid(&AccountId::from_random("other"), 7_000, 0, at(0));
    let entries = [early.clone(), late.clone(), refund.clone(), elsewhere];
    // A GCash payment settles in a day: at 1.5 days the late one is not available yet.
    let MadePayout { payout, transactions, entry } =
        made(&account, &entries, BankAccount::test_default("Shop"), at(DAY + DAY / 2));
    let lines: Vec<(TransactionType, &str, i64, i64)> = transactions
        .iter()
        .map(|line| (line.transaction_type, line.transaction_id.as_str(), line.amount, line.net_amount))
        .collect();
    assert_eq!(
        lines,
        [
            (TransactionType::Payment, early.source_id.as_str(), 10_000, 9_750),
            (TransactionType::Refund, refund.source_id.as_str(), -2_000, -2_000),
        ]
    );
    assert_eq!((payout.amount(), payout.net_amount(), payout.status()), (8_000, 7_750, Pending));
    assert_eq!(payout.net_amount(), transactions.iter().map(|line| line.net_amount).sum::<i64>());
    assert_eq!((entry.entry_type, entry.net_amount), (EntryType::Payout, -7_750));
    // After the payout, what is available is what no payout took.
    let ledger = [early, late, refund, entry];
    assert_eq!(Balance::of(&ledger, at(2 * DAY)).available, 4_850);
}

#[test]
fn nothing_or_less_makes_no_payout_and_waits() {
    let account = account();
    let destination = BankAccount::test_default("Shop");
    assert!(Payout::make(ids(0), &[], destination.clone(), (&account, false), at(DAY)).is_none(), "nothing");
    let negative = [paid(&account, 3_000, 100, at(0)), refunded(&account, 5_000, at(DAY / 2))];
    assert!(Payout::make(ids(negative.len()), &negative, destination, (&account, false), at(DAY)).is_none(), "less than nothing");
    assert_eq!(Balance::of(&negative, at(DAY)).available, -2_100, "carried forward, not dropped");
}

#[test]
fn a_failed_payouts_money_comes_back_and_is_paid_out_again_as_an_adjustment() {
    let account = account();
    let closed = BankAccount::new("Shop", "000222222227", "Test Bank").unwrap();
    let payment = paid(&account, 10_000, 250, at(0));
    let MadePayout { mut payout, entry, .. } = made(&account, std::slice::from_ref(&payment), closed, at(DAY));
    payout.apply(PayoutOperation::Send, entry_id(), at(DAY + SEND_AFTER_SECONDS)).unwrap();
    let back = payout.apply(PayoutOperation::Fail, entry_id(), at(2 * DAY)).unwrap().expect("its money back");
    assert_eq!((payout.failure_code(), back.entry_type, back.net_amount), (Some("could_not_process"), EntryType::PayoutFailure, 9_750));
    let ledger = [payment, entry, back.clone()];
    assert_eq!(Balance::of(&ledger, at(2 * DAY)).available, 9_750, "back in the balance");
    let again = made(&account, std::slice::from_ref(&back), BankAccount::test_default("Shop"), at(3 * DAY));
    assert_eq!(again.transactions.len(), 1);
    let line = &again.transactions[0];
    assert_eq!(
        (line.transaction_type, line.transaction_id.as_str(), line.net_amount),
        (TransactionType::Adjustment, payout.id().as_str(), 9_750)
    );
}
