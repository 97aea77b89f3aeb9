//! The ledger: entries stored as made and read back whole, balances summed by availability, and the
//! unpaid entries of a scope available by a time, oldest first.

use super::*;
use payments_domain::balance::{Balance, BalanceEntry, Centavos, EntryContext, SettlementDelays, StoredBalanceEntry};
use payments_domain::ids::BalanceEntryId;

pub(super) const DAY: i64 = 24 * 60 * 60;

pub(super) fn entry_context(scope: &Scope, n: u32, offset: i64) -> EntryContext {
    EntryContext {
        id: BalanceEntryId::from_random(&format!("entry{n}")),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        now: at(offset),
    }
}

/// Entry `n`: a payment of 100.00 with a 3.00 fee, paid `offset` seconds in, by `method`.
pub(super) fn paid(n: u32, scope: &Scope, offset: i64, method: PaymentMethodType) -> BalanceEntry {
    let payment = PaymentId::from_random(&format!("paid{n}"));
    BalanceEntry::payment(
        entry_context(scope, n, offset),
        (&payment, 10_000, 300, method),
        &SettlementDelays::default(),
    )
}

/// Entry `n`: a refund of 40.00, `offset` seconds in.
pub(super) fn refunded(n: u32, scope: &Scope, offset: i64) -> BalanceEntry {
    BalanceEntry::refund(entry_context(scope, n, offset), &RefundId::from_random(&format!("refund{n}")), 4_000)
}

/// `entry` as if it became available at `available_at`.
pub(super) fn available_at(entry: &BalanceEntry, available_at: Timestamp) -> BalanceEntry {
    BalanceEntry::restore(StoredBalanceEntry { available_at, ..entry.stored() }).expect("a whole entry")
}

fn balance(available: i64, pending: i64) -> Balance {
    Balance { available: Centavos::new(available), pending: Centavos::new(pending) }
}

/// A card payment and a GCash payment made at once, and a refund ten seconds later, in `scope`; and
/// a GCash payment in `elsewhere`: stored, and answered in that order.
pub(super) fn a_few_entries(store: &dyn UnitOfWork, scope: &Scope, elsewhere: &Scope) -> [BalanceEntry; 4] {
    let entries = [
        paid(1, scope, 0, PaymentMethodType::Card),
        paid(2, scope, 0, PaymentMethodType::Gcash),
        refunded(3, scope, 10),
        paid(4, elsewhere, 0, PaymentMethodType::Gcash),
    ];
    write(store, |r| entries.iter().try_for_each(|entry| r.balance().insert(entry)));
    entries
}

pub fn the_ledger_sums_by_availability_and_finds_what_is_unpaid(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let elsewhere = account(store, "other");
    let [card, gcash, refund, _] = a_few_entries(store, &scope, &elsewhere);
    assert_eq!(read(store, |r| r.balance().find(&scope, card.id())), Some(card.clone()), "read back whole");
    assert_eq!(read(store, |r| r.balance().find(&elsewhere, card.id())), None, "another account's");
    assert_eq!(read(store, |r| r.balance().balance(&scope, at(5))), balance(0, 19_400));
    assert_eq!(read(store, |r| r.balance().balance(&scope, at(DAY))), balance(5_700, 9_700));
    assert_eq!(read(store, |r| r.balance().balance(&scope, at(2 * DAY))), balance(15_400, 0));
    let unpaid = read(store, |r| r.balance().unpaid(&scope, at(DAY)));
    assert_eq!(unpaid, vec![gcash, refund], "available by then, oldest first, of this scope");
    let later = read(store, |r| r.balance().unpaid(&scope, at(2 * DAY)));
    assert_eq!(later.first(), Some(&card));
}
