//! The ledger and payouts: balances summed by availability, a payout claiming exactly the unpaid
//! entries available by its time (a second claim of them is a conflict), its lines paged, versioned
//! moves, due scans, and schedules.

use super::*;
use payments_domain::balance::{Balance, BalanceEntry, EntryContext, SettlementDelays};
use payments_domain::ids::{BalanceEntryId, PayoutId, PayoutTransactionId};
use payments_domain::payout::{
    BankAccount, MadePayout, Payout, PayoutIds, PayoutInterval, PayoutOperation, PayoutSchedule,
};

fn entry_context(scope: &Scope, n: u32, offset: i64) -> EntryContext {
    EntryContext {
        id: BalanceEntryId::from_random(&format!("entry{n}")),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        now: at(offset),
    }
}

fn payout_ids(n: u32, lines: usize) -> PayoutIds {
    PayoutIds {
        payout: PayoutId::from_random(&format!("payout{n}")),
        entry: BalanceEntryId::from_random(&format!("payoutentry{n}")),
        transactions: (0..lines).map(|line| PayoutTransactionId::from_random(&format!("line{n}x{line}"))).collect(),
    }
}

pub fn the_ledger_sums_by_availability_and_payouts_claim_each_entry_once(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let elsewhere = account(store, "other");
    let delays = SettlementDelays::default();
    let paid = |n: u32, scope: &Scope, offset: i64, method: PaymentMethodType| {
        let payment = PaymentId::from_random(&format!("paid{n}"));
        BalanceEntry::payment(entry_context(scope, n, offset), (&payment, 10_000, 300, method), &delays)
    };
    let card = paid(1, &scope, 0, PaymentMethodType::Card);
    let gcash = paid(2, &scope, 0, PaymentMethodType::Gcash);
    let refund = BalanceEntry::refund(entry_context(&scope, 3, 10), &RefundId::from_random("refund3"), 4_000);
    let theirs = paid(4, &elsewhere, 0, PaymentMethodType::Gcash);
    write(store, |r| [&card, &gcash, &refund, &theirs].into_iter().try_for_each(|entry| r.balance().insert(entry)));
    let day = 24 * 60 * 60;
    assert_eq!(read(store, |r| r.balance().balance(&scope, at(5))), Balance { available: 0, pending: 19_400 });
    assert_eq!(read(store, |r| r.balance().balance(&scope, at(day))), Balance { available: 5_700, pending: 9_700 });
    assert_eq!(read(store, |r| r.balance().balance(&scope, at(2 * day))), Balance { available: 15_400, pending: 0 });
    let unpaid = read(store, |r| r.balance().unpaid(&scope, at(day)));
    assert_eq!(unpaid, vec![gcash.clone(), refund.clone()], "available by then, oldest first, of this scope");

    let made = Payout::make(
        payout_ids(1, unpaid.len()),
        &unpaid,
        BankAccount::test_default("Acme"),
        (&scope.account_id, false),
        at(day),
    )
    .expect("a payout");
    write(store, |r| r.payouts().insert(&made));
    assert_eq!(read(store, |r| r.payouts().find(&scope, made.payout.id())), Some(made.payout.clone()));
    assert_eq!(read(store, |r| r.payouts().find(&elsewhere, made.payout.id())), None);
    assert!(read(store, |r| r.balance().unpaid(&scope, at(day))).is_empty(), "paid out");
    assert_eq!(read(store, |r| r.balance().balance(&scope, at(day))), Balance { available: 0, pending: 9_700 });
    // The same entries again, as a second instance would try: refused whole.
    let again = MadePayout {
        payout: Payout::make(
            payout_ids(2, unpaid.len()),
            &unpaid,
            BankAccount::test_default("Acme"),
            (&scope.account_id, false),
            at(day),
        )
        .unwrap()
        .payout,
        ..made.clone()
    };
    let twice = in_transaction(store, |r| Ok(r.payouts().insert(&again)?));
    assert!(matches!(twice, Err(ApplicationError::Conflict)), "{twice:?}");
    // An entry made meanwhile that the payout did not read: refused, not taken unseen.
    let late = paid(5, &scope, day - 60, PaymentMethodType::Qrph);
    let late = BalanceEntry { available_at: at(day), ..late };
    write(store, |r| r.balance().insert(&late));
    let stale = Payout::make(
        payout_ids(3, 1),
        std::slice::from_ref(&card),
        BankAccount::test_default("Acme"),
        (&scope.account_id, false),
        at(2 * day),
    )
    .unwrap();
    let unseen = in_transaction(store, |r| Ok(r.payouts().insert(&stale)?));
    assert!(matches!(unseen, Err(ApplicationError::Conflict)), "{unseen:?}");
    assert_eq!(read(store, |r| r.balance().unpaid(&scope, at(2 * day))), vec![card, late]);

    let page = read(store, |r| {
        r.payouts().transactions(&scope, made.payout.id(), &PageRequest::new(Some(1), None, None).unwrap())
    });
    assert_eq!((page.data.len(), page.has_more), (1, true));
    assert_eq!(page.data[0].transaction_id, refund.source_id, "the last line first");
    let rest = read(store, |r| {
        r.payouts().transactions(
            &scope,
            made.payout.id(),
            &PageRequest::new(None, Some(page.data[0].id.to_string()), None).unwrap(),
        )
    });
    assert_eq!(
        rest.data.iter().map(|line| line.transaction_id.clone()).collect::<Vec<_>>(),
        vec![gcash.source_id.clone()]
    );
    assert!(read(store, |r| r.payouts().transactions(&elsewhere, made.payout.id(), &PageRequest::default()))
        .data
        .is_empty());

    // Moves are versioned, and the due scan finds what is due in its scope.
    let due_at = made.payout.action_due_at().unwrap();
    assert_eq!(read(store, |r| r.payouts().due(Some(&scope), due_at, 10)), vec![made.payout.clone()]);
    assert!(read(store, |r| r.payouts().due(Some(&elsewhere), due_at, 10)).is_empty());
    assert!(read(store, |r| r.payouts().due(None, due_at.plus_seconds(-1), 10)).is_empty());
    let mut sent = made.payout.clone();
    sent.apply(PayoutOperation::Send, BalanceEntryId::from_random("unused"), due_at).unwrap();
    write(store, |r| r.payouts().update(&sent, made.payout.version()));
    let stale = in_transaction(store, |r| Ok(r.payouts().update(&sent, made.payout.version())?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.payouts().find(&scope, sent.id())).unwrap();
    assert_eq!((stored.status(), stored.version()), (sent.status(), made.payout.version() + 1));
    let listed = read(store, |r| {
        r.payouts().list(
            &scope,
            &PayoutFilter { status: Some(sent.status()), ..PayoutFilter::default() },
            &PageRequest::default(),
        )
    });
    assert_eq!(listed.data.len(), 1);
    let none = read(store, |r| {
        r.payouts().list(
            &scope,
            &PayoutFilter { created_to: Some(at(day - 1)), ..PayoutFilter::default() },
            &PageRequest::default(),
        )
    });
    assert!(none.data.is_empty());
}

pub fn payout_schedules_are_saved_once_and_moved_by_version(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    assert_eq!(read(store, |r| r.payouts().schedule(&scope)), None);
    let schedule = PayoutSchedule::default_for(&scope.account_id, false, "Acme", at(0));
    write(store, |r| r.payouts().save_schedule(&schedule, None));
    let again = in_transaction(store, |r| Ok(r.payouts().save_schedule(&schedule, None)?));
    assert!(matches!(again, Err(ApplicationError::Conflict)), "made once: {again:?}");
    let stored = read(store, |r| r.payouts().schedule(&scope)).unwrap();
    assert_eq!(stored, schedule);
    let due_at = stored.next_payout_at.unwrap();
    assert_eq!(read(store, |r| r.payouts().due_schedules(None, due_at, 10)), vec![stored.clone()]);
    assert!(read(store, |r| r.payouts().due_schedules(Some(&scope), due_at.plus_seconds(-1), 10)).is_empty());
    let weekly = stored.changed(Some(PayoutInterval::Weekly(4)), None, due_at);
    write(store, |r| r.payouts().save_schedule(&weekly, Some(stored.version)));
    let stale = in_transaction(store, |r| Ok(r.payouts().save_schedule(&weekly, Some(stored.version))?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let moved = read(store, |r| r.payouts().schedule(&scope)).unwrap();
    assert_eq!(
        (moved.interval, moved.next_payout_at, moved.version),
        (PayoutInterval::Weekly(4), weekly.next_payout_at, 1)
    );
    let manual = moved.changed(Some(PayoutInterval::Manual), None, due_at);
    write(store, |r| r.payouts().save_schedule(&manual, Some(1)));
    assert!(read(store, |r| r.payouts().due_schedules(None, at(100 * 24 * 3600), 10)).is_empty(), "manual: never due");
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.payouts().schedule(&elsewhere)), None);
}
