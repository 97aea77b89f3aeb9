//! Payouts: a payout claiming exactly the unpaid entries available by its time (a second claim of
//! them is a conflict), its lines paged, versioned moves, due scans, and schedules.

use super::balance::{self, available_at, paid, DAY};
use super::*;
use payments_domain::balance::{Balance, BalanceEntry, Centavos, SettlementDelays};
use payments_domain::ids::{BalanceEntryId, PayoutId, PayoutTransactionId};
use payments_domain::payout::{
    BankAccount, MadePayout, Payout, PayoutIds, PayoutInterval, PayoutOperation, PayoutSchedule, TransactionSource,
};

fn payout_ids(n: u32, lines: usize) -> PayoutIds {
    PayoutIds {
        payout: PayoutId::from_random(&format!("payout{n}")),
        entry: BalanceEntryId::from_random(&format!("payoutentry{n}")),
        transactions: (0..lines).map(|line| PayoutTransactionId::from_random(&format!("line{n}x{line}"))).collect(),
    }
}

fn destination() -> BankAccount {
    BankAccount::new("Acme", "000123456789", "Test Bank").expect("a bank account")
}

pub fn payouts_claim_each_entry_once_and_move_by_version(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let elsewhere = account(store, "other");
    let [card, gcash, refund, _] = balance::a_few_entries(store, &scope, &elsewhere);
    let day = DAY;
    let unpaid = read(store, |r| r.balance().unpaid(&scope, at(day)));

    let made = Payout::make(payout_ids(1, unpaid.len()), &unpaid, destination(), (&scope.account_id, false), at(day))
        .expect("a payout");
    write(store, |r| r.payouts().insert(&made));
    assert_eq!(read(store, |r| r.payouts().find(&scope, made.payout.id())), Some(made.payout.clone()));
    assert_eq!(read(store, |r| r.payouts().find(&elsewhere, made.payout.id())), None);
    assert!(read(store, |r| r.balance().unpaid(&scope, at(day))).is_empty(), "paid out");
    assert_eq!(
        read(store, |r| r.balance().balance(&scope, at(day))),
        Balance { available: Centavos::ZERO, pending: Centavos::new(9_700) }
    );
    // The same entries again, as a second instance would try: refused whole.
    let again = MadePayout {
        payout: Payout::make(payout_ids(2, unpaid.len()), &unpaid, destination(), (&scope.account_id, false), at(day))
            .unwrap()
            .payout,
        ..made.clone()
    };
    let twice = in_transaction(store, |r| Ok(r.payouts().insert(&again)?));
    assert!(matches!(twice, Err(ApplicationError::Conflict)), "{twice:?}");
    // An entry made meanwhile that the payout did not read: refused, not taken unseen.
    let late = available_at(&paid(5, &scope, day - 60, PaymentMethodType::Qrph), at(day));
    write(store, |r| r.balance().insert(&late));
    let stale = Payout::make(
        payout_ids(3, 1),
        std::slice::from_ref(&card),
        destination(),
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
    assert_eq!(Some(&page.data[0].source), TransactionSource::of(refund.source()).as_ref(), "the last line first");
    let rest = read(store, |r| {
        r.payouts().transactions(
            &scope,
            made.payout.id(),
            &PageRequest::new(None, Some(page.data[0].id.to_string()), None).unwrap(),
        )
    });
    assert_eq!(
        rest.data.iter().map(|line| Some(line.source.clone())).collect::<Vec<_>>(),
        vec![TransactionSource::of(gcash.source())]
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

/// A payout of a customer's payment, another payment and a refund of the first: each line with the
/// payment a merchant reconciles it to (a refund's, its payment's), in the order the lines were made,
/// in pages after a line.
pub fn a_payouts_lines_reconcile_to_their_payments(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let shopper = customer(&scope, 1);
    write(store, |r| r.customers().insert(&shopper));
    let with_customer = NewPaymentIntent {
        amount: Amount::new(10_000).unwrap(),
        currency: Currency::Php,
        payment_methods: vec![PaymentMethodType::Gcash],
        statement_descriptor: None,
        description: Some(Description::new("Order 7".into()).unwrap()),
        metadata: Some(metadata(&[("order", "7")])),
        customer_id: Some(shopper.id.clone()),
        return_url: None,
        card_options: CardOptions::default(),
    };
    let id = PaymentIntentId::from_random("intentreconciled");
    let secret = ClientSecret::new(id.as_str(), "secret");
    let intent = PaymentIntent::create(id, scope.account_id.clone(), false, secret, with_customer, at(0));
    let other_intent = new_intent(&scope, 2);
    write(store, |r| r.payment_intents().insert(&intent).and_then(|()| r.payment_intents().insert(&other_intent)));
    let rate = FeeRate { basis_points: 0, fixed: 0 };
    let mut ordered =
        Payment::paid(PaymentId::from_random("payordered"), &intent, 10_000, gcash_attempt(1), rate, at(1));
    let other = Payment::paid(PaymentId::from_random("payother"), &other_intent, 10_000, gcash_attempt(2), rate, at(1));
    let refund = NewRefund {
        amount: 2_000,
        currency: Currency::Php,
        payment_id: ordered.id().to_string(),
        reason: RefundReason::RequestedByCustomer,
        description: None,
        remarks: None,
        metadata: None,
    };
    let refund = ordered.refund(RefundId::from_random("rereconciled"), refund, at(2)).unwrap();
    write(store, |r| {
        r.payments().insert(&ordered)?;
        r.payments().insert(&other)?;
        r.refunds().insert(&refund)
    });
    let settled = SettlementDelays { gcash_seconds: 0, ..SettlementDelays::default() };
    let payment_entry = |n: u32, payment: &Payment| {
        let context = balance::entry_context(&scope, n, 3);
        BalanceEntry::payment(context, (payment.id(), payment.amount(), 0, PaymentMethodType::Gcash), &settled)
    };
    let entries = [
        payment_entry(11, &ordered),
        payment_entry(12, &other),
        BalanceEntry::refund(balance::entry_context(&scope, 13, 3), refund.id(), refund.amount()),
    ];
    write(store, |r| entries.iter().try_for_each(|entry| r.balance().insert(entry)));
    let unpaid = read(store, |r| r.balance().unpaid(&scope, at(DAY)));
    let made =
        Payout::make(payout_ids(9, unpaid.len()), &unpaid, destination(), (&scope.account_id, false), at(DAY)).unwrap();
    write(store, |r| r.payouts().insert(&made));

    let lines = read(store, |r| r.payouts().reconciliation(&scope, made.payout.id(), None, 10));
    type Seen = (String, Option<String>, Option<String>, Option<String>);
    let seen: Vec<Seen> = lines
        .iter()
        .map(|reconciled| {
            let payment = reconciled.payment.as_ref();
            (
                reconciled.line.source.id().to_owned(),
                payment.map(|payment| payment.id.to_string()),
                payment.and_then(|payment| payment.description.clone()),
                payment.and_then(|payment| payment.customer_email.clone()),
            )
        })
        .collect();
    let ordered_id = Some(ordered.id().to_string());
    assert_eq!(
        seen,
        vec![
            (ordered.id().to_string(), ordered_id.clone(), Some("Order 7".into()), Some("c1@example.com".into())),
            (other.id().to_string(), Some(other.id().to_string()), Some("Order 1".into()), None),
            (refund.id().to_string(), ordered_id, Some("Order 7".into()), Some("c1@example.com".into())),
        ],
        "the first line first; a refund reconciles to its payment"
    );
    assert_eq!(
        lines[0].payment.as_ref().and_then(|payment| payment.metadata.clone()),
        Some(metadata(&[("order", "7")]))
    );
    let after_first = read(store, |r| r.payouts().reconciliation(&scope, made.payout.id(), Some(&lines[0].line.id), 1));
    assert_eq!(after_first.iter().map(|line| line.line.id.clone()).collect::<Vec<_>>(), vec![lines[1].line.id.clone()]);
    let elsewhere = account(store, "other");
    assert!(read(store, |r| r.payouts().reconciliation(&elsewhere, made.payout.id(), None, 10)).is_empty());
}

pub fn payout_schedules_are_saved_once_and_moved_by_version(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    assert_eq!(read(store, |r| r.payouts().schedule(&scope)), None);
    let schedule = PayoutSchedule::default_for(&scope.account_id, false, destination(), at(0));
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
