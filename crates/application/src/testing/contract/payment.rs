//! Payments and refunds: stored with versioned updates.

use super::*;

pub fn payments_and_refunds_round_trip_with_versioned_updates(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    let rate = FeeRate { basis_points: 230, fixed: 0 };
    let mut payment = Payment::paid(PaymentId::from_random("pay1"), &intent, 10_000, gcash_attempt(1), rate, at(5));
    write(store, |r| r.payments().insert(&payment));
    assert_eq!(read(store, |r| r.payments().find(&scope, payment.id())), Some(payment.clone()));

    let version = payment.version();
    let new = NewRefund {
        amount: 2_500,
        currency: Currency::Php,
        payment_id: payment.id().to_string(),
        reason: RefundReason::RequestedByCustomer,
        description: Some(Description::new("Returned".into()).unwrap()),
        remarks: None,
        metadata: None,
    };
    let mut refund = payment.refund(RefundId::from_random("re1"), new, at(6)).unwrap();
    write(store, |r| {
        r.payments().update(&payment, version)?;
        r.refunds().insert(&refund)
    });
    let stale = in_transaction(store, |r| Ok(r.payments().update(&payment, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.payments().find(&scope, payment.id())).unwrap();
    assert_eq!((stored.amount_refunded(), stored.refunded()), (2_500, true));
    assert_eq!(read(store, |r| r.refunds().find(&scope, refund.id())), Some(refund.clone()));

    let version = refund.version();
    refund.update(Some(metadata(&[("ticket", "7")])), at(7));
    write(store, |r| r.refunds().update(&refund, version));
    assert_eq!(read(store, |r| r.refunds().find(&scope, refund.id())), Some(refund.clone()));
    let stale = in_transaction(store, |r| Ok(r.refunds().update(&refund, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.payments().find(&elsewhere, payment.id())), None);
    assert_eq!(read(store, |r| r.refunds().find(&elsewhere, refund.id())), None);

    // An intent's payments, and a payment's refunds, oldest first and in their scope only.
    let other_intent = new_intent(&scope, 2);
    write(store, |r| r.payment_intents().insert(&other_intent));
    let other = Payment::paid(PaymentId::from_random("pay2"), &other_intent, 10_000, gcash_attempt(2), rate, at(8));
    write(store, |r| r.payments().insert(&other));
    let payment = read(store, |r| r.payments().find(&scope, payment.id())).unwrap();
    assert_eq!(read(store, |r| r.payments().of_intent(&scope, intent.id())), vec![payment.clone()]);
    assert_eq!(read(store, |r| r.payments().of_intent(&scope, other_intent.id())), vec![other.clone()]);
    assert_eq!(
        read(store, |r| r.refunds().of_payments(&scope, std::slice::from_ref(payment.id()))),
        vec![refund.clone()]
    );
    assert!(read(store, |r| r.payments().of_intent(&elsewhere, intent.id())).is_empty());
    assert!(read(store, |r| r.refunds().of_payments(&elsewhere, std::slice::from_ref(payment.id()))).is_empty());
    assert!(read(store, |r| r.refunds().of_payments(&scope, &[PaymentId::from_random("none")])).is_empty());
    assert!(read(store, |r| r.refunds().of_payments(&scope, &[])).is_empty());

    // Found together, in their scope only.
    let both = [payment.id().clone(), other.id().clone(), PaymentId::from_random("none")];
    let mut found: Vec<String> =
        read(store, |r| r.payments().find_many(&scope, &both)).iter().map(|p| p.id().to_string()).collect();
    found.sort();
    let mut expected = vec![payment.id().to_string(), other.id().to_string()];
    expected.sort();
    assert_eq!(found, expected);
    assert!(read(store, |r| r.payments().find_many(&elsewhere, &both)).is_empty());
    assert!(read(store, |r| r.payments().find_many(&scope, &[])).is_empty());

    // Lists, newest first, in their scope; payments by status.
    let id = |p: &Payment| p.id().to_string();
    let listed = read(store, |r| r.payments().list(&scope, &PaymentFilter::default(), &PageRequest::default()));
    assert_eq!(ids(&listed, id), vec![id(&other), id(&payment)]);
    let failed = PaymentFilter { status: Some(PaymentStatus::Failed), ..PaymentFilter::default() };
    assert!(read(store, |r| r.payments().list(&scope, &failed, &PageRequest::default())).data.is_empty());
    let older = PageRequest::new(Some(1), Some(id(&other)), None).unwrap();
    assert_eq!(
        ids(&read(store, |r| r.payments().list(&scope, &PaymentFilter::default(), &older)), id),
        vec![id(&payment)]
    );
    assert!(read(store, |r| r.payments().list(&elsewhere, &PaymentFilter::default(), &PageRequest::default()))
        .data
        .is_empty());
    let refunds = read(store, |r| r.refunds().list(&scope, &PageRequest::default()));
    assert_eq!(refunds.data, vec![refund.clone()]);
    assert!(read(store, |r| r.refunds().list(&elsewhere, &PageRequest::default())).data.is_empty());
    let unknown = PageRequest::new(None, Some("re_none".into()), None).unwrap();
    let refused = reading(store, |r| r.refunds().list(&scope, &unknown).map_err(|e| unknown.explain(e)));
    assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");
}

pub(super) fn verified_card() -> VerifiedCard {
    VerifiedCard {
        card: CardSummary {
            brand: "visa".into(),
            first6: "424242".into(),
            last4: "4242".into(),
            exp_month: 12,
            exp_year: 2040,
            funding: Funding::Credit,
        },
        billing: None,
        processor_reference: "approve".into(),
    }
}
