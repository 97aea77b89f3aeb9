//! Checkout sessions: stored, found by intent, page and expiry.

use super::*;

/// Checkout session number `n` of `scope`, paid through `intent`, expiring at `at(expires_in)`.
pub(super) fn checkout_session(scope: &Scope, intent: &PaymentIntent, n: u32, expires_in: i64) -> CheckoutSession {
    let id = CheckoutSessionId::from_random(&format!("checkout{n}"));
    let secret = ClientSecret::new(id.as_str(), "secret");
    let item = CheckoutLineItem {
        id: CheckoutSessionLineItemId::from_random(&format!("item{n}")),
        name: "Mug".into(),
        amount: 5_000,
        quantity: 2,
        description: None,
        image: None,
    };
    let details = NewCheckoutSession {
        line_items: vec![item],
        amount: Amount::new(10_000).unwrap(),
        currency: Currency::Php,
        success_url: RedirectUrl::new("https://shop.example/ok".into()).unwrap(),
        cancel_url: RedirectUrl::new("https://shop.example/cart".into()).unwrap(),
        payment_methods: vec![PaymentMethodType::Card],
        card_options: CardOptions::default(),
        customer_reference_id: Some(format!("order-{n}")),
        billing_details_collection: BillingDetailsCollection::Auto,
        description: None,
        submit_type: SubmitType::Pay,
        statement_descriptor: None,
        expires_at: at(expires_in),
        metadata: Some(metadata(&[("order", &n.to_string())])),
    };
    let url = format!("https://pay.example/checkout/{n}");
    CheckoutSession::create(
        id,
        scope.account_id.clone(),
        scope.livemode(),
        secret,
        url,
        intent.id().clone(),
        details,
        at(0),
    )
}

pub fn checkout_sessions_round_trip_and_are_found_by_intent_page_and_expiry(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first_intent, second_intent) = (new_intent(&scope, 1), new_intent(&scope, 2));
    let first = checkout_session(&scope, &first_intent, 1, 60);
    let second = checkout_session(&scope, &second_intent, 2, 3_600);
    write(store, |r| {
        r.payment_intents().insert(&first_intent)?;
        r.payment_intents().insert(&second_intent)?;
        r.checkout_sessions().insert(&first)?;
        r.checkout_sessions().insert(&second)
    });
    assert_eq!(read(store, |r| r.checkout_sessions().find(&scope, first.id())), Some(first.clone()));
    assert_eq!(read(store, |r| r.checkout_sessions().find_for_page(first.id())), Some(first.clone()));
    let by_intent = read(store, |r| r.checkout_sessions().find_by_payment_intent(&scope, second_intent.id()));
    assert_eq!(by_intent, Some(second.clone()));
    let id = |session: &CheckoutSession| session.id().to_string();
    let all = CheckoutSessionFilter::default();
    let list = |scope: &Scope, filter: &CheckoutSessionFilter, page: &PageRequest| {
        read(store, |r| r.checkout_sessions().list(scope, filter, page))
    };
    let page = list(&scope, &all, &PageRequest::new(Some(1), None, None).unwrap());
    assert_eq!((ids(&page, id), page.has_more), (vec![id(&second)], true), "newest first");
    let rest = list(&scope, &all, &PageRequest::new(Some(1), Some(id(&second)), None).unwrap());
    assert_eq!((ids(&rest, id), rest.has_more), (vec![id(&first)], false));
    let by_reference = CheckoutSessionFilter { customer_reference_id: Some("order-1".into()), ..all.clone() };
    assert_eq!(ids(&list(&scope, &by_reference, &PageRequest::default()), id), vec![id(&first)]);

    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.checkout_sessions().find(&elsewhere, first.id())), None, "from {elsewhere:?}");
        let by_intent = read(store, |r| r.checkout_sessions().find_by_payment_intent(&elsewhere, first_intent.id()));
        assert_eq!(by_intent, None, "from {elsewhere:?}");
        assert!(list(&elsewhere, &all, &PageRequest::default()).data.is_empty(), "from {elsewhere:?}");
        assert!(list(&elsewhere, &by_reference, &PageRequest::default()).data.is_empty(), "from {elsewhere:?}");
    }

    assert!(read(store, |r| r.checkout_sessions().expired(None, at(59), 10)).is_empty(), "none expired yet");
    assert_eq!(read(store, |r| r.checkout_sessions().expired(None, at(61), 10)), vec![first.clone()]);
    assert_eq!(read(store, |r| r.checkout_sessions().expired(Some(&scope), at(61), 10)), vec![first.clone()]);
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.checkout_sessions().expired(Some(&live), at(61), 10)).is_empty(), "not in live mode");
    let mut expired = first.clone();
    expired.expire(at(61)).unwrap();
    write(store, |r| r.checkout_sessions().update(&expired, first.version()));
    let stale = in_transaction(store, |r| Ok(r.checkout_sessions().update(&expired, first.version())?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.checkout_sessions().find(&scope, first.id())).unwrap();
    assert_eq!((stored.status(), stored.version()), (CheckoutSessionStatus::Expired, first.version() + 1));
    let due = read(store, |r| r.checkout_sessions().expired(None, at(4_000), 10));
    assert_eq!(due.iter().map(id).collect::<Vec<_>>(), vec![id(&second)], "only active sessions expire");
    for (status, expected) in
        [(CheckoutSessionStatus::Active, id(&second)), (CheckoutSessionStatus::Expired, id(&first))]
    {
        let by_status = CheckoutSessionFilter { status: Some(status), ..all.clone() };
        assert_eq!(ids(&list(&scope, &by_status, &PageRequest::default()), id), vec![expected], "{status:?}");
    }
    let completed = CheckoutSessionFilter { status: Some(CheckoutSessionStatus::Completed), ..by_reference };
    assert!(list(&scope, &completed, &PageRequest::default()).data.is_empty(), "every given filter must match");
}
