//! The payout state machine: every operation from every status, allowed or refused; what a payout
//! is made of; the ledger's invariants over a payout that fails and the one that pays its money
//! out again; and, as a property over any history of payments, refunds, payouts and failures, that
//! the entries no payout took sum to the balance.

use payments_domain::balance::{
    Balance, BalanceEntry, Centavos, EntryContext, EntrySource, EntryType, SettlementDelays,
};
use payments_domain::error::DomainError;
use payments_domain::ids::{AccountId, BalanceEntryId, PaymentId, PayoutId, PayoutTransactionId, RefundId};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::payout::{
    BankAccount, BankOutcome, MadePayout, Payout, PayoutIds, PayoutOperation, PayoutStatus, PayoutStep,
    TransactionSource, ARRIVE_AFTER_SECONDS, SEND_AFTER_SECONDS,
};
use payments_domain::time::Timestamp;
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, Ordering};
use PayoutStatus::{Failed, InTransit, Pending, Successful};

const DAY: i64 = 24 * 60 * 60;

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_seconds(1_700_000_000 + seconds)
}

fn account() -> AccountId {
    AccountId::from_random("acct")
}

fn cents(centavos: i64) -> Centavos {
    Centavos::new(centavos)
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

fn shop() -> BankAccount {
    BankAccount::new("Shop", "000123456789", "Test Bank").unwrap()
}

fn made(account: &AccountId, entries: &[BalanceEntry], now: Timestamp) -> MadePayout {
    Payout::make(ids(entries.len()), entries, shop(), (account, false), now).expect("a payout")
}

fn returned(code: &str) -> PayoutOperation {
    PayoutOperation::Settle(BankOutcome::Returned { code: code.to_owned() })
}

const DEPOSITED: PayoutOperation = PayoutOperation::Settle(BankOutcome::Deposited);

/// A payout brought to `status` through its transitions.
fn payout_in(status: PayoutStatus) -> Payout {
    let account = account();
    let mut payout = made(&account, &[paid(&account, 10_000, 250, at(0))], at(DAY)).payout;
    let steps = match status {
        Pending => vec![],
        InTransit => vec![PayoutOperation::Send],
        Successful => vec![PayoutOperation::Send, DEPOSITED],
        Failed => vec![PayoutOperation::Send, returned("account_closed")],
    };
    for step in steps {
        payout.apply(step, entry_id(), at(2 * DAY)).unwrap();
    }
    assert_eq!(payout.status(), status);
    payout
}

#[test]
fn every_operation_from_every_status() {
    let operations = [PayoutOperation::Send, DEPOSITED, returned("could_not_process")];
    let allowed = [
        (Pending, operations[0].clone(), InTransit),
        (InTransit, operations[1].clone(), Successful),
        (InTransit, operations[2].clone(), Failed),
    ];
    for status in PayoutStatus::ALL {
        for operation in &operations {
            let mut payout = payout_in(status);
            let before = payout.clone();
            let outcome = payout.apply(operation.clone(), entry_id(), at(3 * DAY));
            match allowed.iter().find(|(from, op, _)| *from == status && op == operation) {
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
fn the_service_sends_a_payout_then_learns_how_the_bank_answered_at_their_times() {
    let pending = payout_in(Pending);
    assert_eq!((pending.due_step(), pending.action_due_at()), (Some(PayoutStep::Send), Some(at(DAY + SEND_AFTER_SECONDS))));
    let mut sent = pending.clone();
    sent.apply(PayoutOperation::Send, entry_id(), at(DAY + SEND_AFTER_SECONDS)).unwrap();
    assert_eq!((sent.due_step(), sent.action_due_at()), (Some(PayoutStep::Settle), Some(at(DAY + ARRIVE_AFTER_SECONDS))));
    let mut to_closed = sent.clone();
    to_closed.apply(returned("account_closed"), entry_id(), at(DAY + ARRIVE_AFTER_SECONDS)).unwrap();
    assert_eq!((to_closed.status(), to_closed.failure_code()), (Failed, Some("account_closed")), "the bank's reason");
    for done in [Successful, Failed] {
        assert_eq!((payout_in(done).due_step(), payout_in(done).action_due_at()), (None, None));
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
    let MadePayout { payout, transactions, entry } = made(&account, &entries, at(DAY + DAY / 2));
    let lines: Vec<(TransactionSource, i64, i64)> =
        transactions.iter().map(|line| (line.source.clone(), line.amount.get(), line.net_amount.get())).collect();
    let source = |entry: &BalanceEntry| TransactionSource::of(entry.source()).unwrap();
    assert_eq!(lines, [(source(&early), 10_000, 9_750), (source(&refund), -2_000, -2_000)]);
    assert_eq!((payout.amount().get(), payout.net_amount().get(), payout.status()), (8_000, 7_750, Pending));
    assert_eq!(payout.net_amount(), transactions.iter().map(|line| line.net_amount).sum());
    assert_eq!((entry.entry_type(), entry.net_amount().get()), (EntryType::Payout, -7_750));
    // After the payout, what is available is what no payout took.
    let ledger = [early, late, refund, entry];
    assert_eq!(Balance::of(&ledger, at(2 * DAY)).available, cents(4_850));
}

#[test]
fn nothing_or_less_makes_no_payout_and_waits() {
    let account = account();
    assert!(Payout::make(ids(0), &[], shop(), (&account, false), at(DAY)).is_none(), "nothing");
    let negative = [paid(&account, 3_000, 100, at(0)), refunded(&account, 5_000, at(DAY / 2))];
    assert!(Payout::make(ids(negative.len()), &negative, shop(), (&account, false), at(DAY)).is_none(), "less than nothing");
    assert_eq!(Balance::of(&negative, at(DAY)).available, cents(-2_100), "carried forward, not dropped");
}

#[test]
fn a_failed_payouts_money_comes_back_and_is_paid_out_again_as_an_adjustment() {
    let account = account();
    let payment = paid(&account, 10_000, 250, at(0));
    let MadePayout { mut payout, entry, .. } = made(&account, std::slice::from_ref(&payment), at(DAY));
    payout.apply(PayoutOperation::Send, entry_id(), at(DAY + SEND_AFTER_SECONDS)).unwrap();
    let back = payout.apply(returned("could_not_process"), entry_id(), at(2 * DAY)).unwrap().expect("its money back");
    assert_eq!(
        (payout.failure_code(), back.source(), back.net_amount().get()),
        (Some("could_not_process"), &EntrySource::PayoutFailure(payout.id().clone()), 9_750)
    );
    let ledger = [payment, entry, back.clone()];
    assert_eq!(Balance::of(&ledger, at(2 * DAY)).available, cents(9_750), "back in the balance");
    let again = made(&account, std::slice::from_ref(&back), at(3 * DAY));
    assert_eq!(again.transactions.len(), 1);
    let line = &again.transactions[0];
    assert_eq!((&line.source, line.net_amount.get()), (&TransactionSource::Adjustment(payout.id().clone()), 9_750));
}

/// One thing that happens to an account's money.
#[derive(Debug, Clone)]
enum Happening {
    Paid { amount: i64, fee: i64 },
    Refunded { amount: i64 },
    /// A payout of what is available, made `hours` after the last happening.
    PaidOut,
    /// The bank answers the oldest payout in transit: deposited, or returned.
    Answered { deposited: bool },
    /// Time goes on.
    Waited { hours: i64 },
}

fn happening() -> impl Strategy<Value = Happening> {
    prop_oneof![
        (2_000_i64..100_000, 0_i64..2_000).prop_map(|(amount, fee)| Happening::Paid { amount, fee }),
        (1_i64..50_000).prop_map(|amount| Happening::Refunded { amount }),
        Just(Happening::PaidOut),
        any::<bool>().prop_map(|deposited| Happening::Answered { deposited }),
        (1_i64..72).prop_map(|hours| Happening::Waited { hours }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever happens, in whatever order: at the ledger's present the entries no payout took sum
    /// to the balance (available and pending), each entry is paid out at most once, and a payout's
    /// amounts are its lines'.
    #[test]
    fn the_entries_no_payout_took_sum_to_the_balance(history in proptest::collection::vec(happening(), 1..40)) {
        let account = account();
        let mut now = at(0);
        let mut ledger: Vec<BalanceEntry> = Vec::new();
        let mut paid_out: HashSet<BalanceEntryId> = HashSet::new();
        let mut in_transit: Vec<Payout> = Vec::new();
        for happening in history {
            match happening {
                Happening::Paid { amount, fee } => ledger.push(paid(&account, amount, fee, now)),
                Happening::Refunded { amount } => ledger.push(refunded(&account, amount, now)),
                Happening::PaidOut => {
                    let unpaid: Vec<BalanceEntry> = ledger
                        .iter()
                        .filter(|entry| entry.entry_type().paid_out() && !paid_out.contains(entry.id()) && entry.available_at() <= now)
                        .cloned()
                        .collect();
                    if let Some(MadePayout { mut payout, transactions, entry }) = Payout::make(ids(unpaid.len()), &unpaid, shop(), (&account, false), now) {
                        prop_assert_eq!(payout.net_amount(), transactions.iter().map(|line| line.net_amount).sum());
                        prop_assert_eq!(payout.amount(), transactions.iter().map(|line| line.amount).sum());
                        for line in &transactions {
                            prop_assert!(paid_out.insert(line.entry_id.clone()), "{:?} paid out twice", line.entry_id);
                        }
                        ledger.push(entry);
                        payout.apply(PayoutOperation::Send, entry_id(), now).unwrap();
                        in_transit.push(payout);
                    } else {
                        let left: Centavos = unpaid.iter().map(BalanceEntry::net_amount).sum();
                        prop_assert!(!left.is_positive(), "{left} left unpaid");
                    }
                }
                Happening::Answered { deposited } => {
                    if !in_transit.is_empty() {
                        let mut payout = in_transit.remove(0);
                        let answer = if deposited { DEPOSITED } else { returned("account_closed") };
                        if let Some(back) = payout.apply(answer, entry_id(), now).unwrap() {
                            ledger.push(back);
                        }
                    }
                }
                Happening::Waited { hours } => now = now.plus_seconds(hours * 3_600),
            }
            prop_assert_eq!(Balance::of_unpaid(&ledger, &paid_out, now), Balance::of(&ledger, now));
            let total: Centavos = ledger.iter().map(BalanceEntry::net_amount).sum();
            let unpaid: Centavos = ledger
                .iter()
                .filter(|entry| entry.entry_type().paid_out() && !paid_out.contains(entry.id()))
                .map(BalanceEntry::net_amount)
                .sum();
            prop_assert_eq!(total, unpaid);
        }
    }
}
