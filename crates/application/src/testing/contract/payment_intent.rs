//! Payment intents: stored, found by redirect token and due time, listed, filtered and counted.

use super::*;

/// Payment intent number `n` of `scope`, awaiting a payment method.
#[must_use]
pub fn new_intent(scope: &Scope, n: u32) -> PaymentIntent {
    new_intent_at(scope, n, 0)
}

/// As [`new_intent`], created at `offset` seconds.
#[must_use]
pub fn new_intent_at(scope: &Scope, n: u32, offset: i64) -> PaymentIntent {
    let id = PaymentIntentId::from_random(&format!("intent{n}"));
    let new = NewPaymentIntent {
        amount: Amount::new(10_000).unwrap(),
        currency: Currency::Php,
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        statement_descriptor: None,
        description: Some(Description::new("Order 1".into()).unwrap()),
        metadata: Some(metadata(&[("order", "1")])),
        customer_id: None,
        return_url: Some(RedirectUrl::new("https://shop.example/done".into()).unwrap()),
        card_options: CardOptions::default(),
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    PaymentIntent::create(id, scope.account_id.clone(), scope.livemode(), secret, new, at(offset))
}

pub(super) fn gcash_attempt(n: u32) -> Attempt {
    Attempt {
        payment_method_id: format!("pm_{n}"),
        payment_method: PaymentMethodRecord { method: PaymentMethodType::Gcash, card: None, qrph: None },
        billing: None,
        save_for: None,
        payment_id: None,
    }
}

pub fn payment_intents_round_trip_and_are_found_by_redirect_token_and_due_time(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    assert_eq!(read(store, |r| r.payment_intents().find(&scope, intent.id())), Some(intent.clone()));
    assert_eq!(read(store, |r| r.payment_intents().due(None, at(3_600), 10)), vec![], "nothing is due");
    let ids = [intent.id().clone(), PaymentIntentId::from_random("none")];
    assert_eq!(read(store, |r| r.payment_intents().find_many(&scope, &ids)), vec![intent.clone()]);
    let other = account(store, "stranger");
    assert!(read(store, |r| r.payment_intents().find_many(&other, &ids)).is_empty());

    let version = intent.version();
    let redirect = Some(("token1".to_owned(), "http://127.0.0.1/test/authorize/token1".to_owned()));
    intent.record_attempt(gcash_attempt(1), AuthorizationOutcome::RedirectRequired, redirect, None, at(10)).unwrap();
    write(store, |r| r.payment_intents().update(&intent, version));
    let stale = in_transaction(store, |r| Ok(r.payment_intents().update(&intent, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    assert_eq!(read(store, |r| r.payment_intents().find_by_redirect_token("token1")), Some(intent.clone()));
    assert_eq!(read(store, |r| r.payment_intents().find_by_redirect_token("other")), None);
    assert_eq!(read(store, |r| r.payment_intents().find_for_page(intent.id())), Some(intent.clone()), "any scope's");
    let due_at = intent.action_due_at().unwrap();
    assert!(read(store, |r| r.payment_intents().due(None, due_at.plus_seconds(-1), 10)).is_empty());
    assert_eq!(
        read(store, |r| r.payment_intents().due(None, due_at, 10)),
        vec![intent.clone()],
        "the redirect expires"
    );
    assert_eq!(
        read(store, |r| r.payment_intents().due(Some(&scope), due_at, 10)),
        vec![intent.clone()],
        "in its scope"
    );
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "bystander");
    assert!(read(store, |r| r.payment_intents().due(Some(&live), due_at, 10)).is_empty(), "not in live mode");
    assert!(read(store, |r| r.payment_intents().due(Some(&other), due_at, 10)).is_empty(), "not in another account");

    let version = intent.version();
    intent.complete_redirect(&Verdict::Decline(None), at(20)).unwrap();
    write(store, |r| r.payment_intents().update(&intent, version));
    let after_use = read(store, |r| r.payment_intents().find_by_redirect_token("token1")).unwrap();
    assert_eq!(after_use.status(), PaymentIntentStatus::AwaitingPaymentMethod);
    assert!(after_use.pending().is_none(), "a used page still finds its intent, with nothing pending");
    assert!(read(store, |r| r.payment_intents().due(None, at(100_000), 10)).is_empty(), "no action is due");
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.payment_intents().find(&elsewhere, intent.id())), None);
}

pub fn payment_intents_are_listed_filtered_and_counted(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customer = customer(&scope, 1);
    write(store, |r| r.customers().insert(&customer));
    let mut intents: Vec<PaymentIntent> = (0..5).map(|n| new_intent_at(&scope, n + 1, i64::from(n) * 100)).collect();
    for (n, intent) in (0_i64..).zip(intents.iter_mut()) {
        let changes = PaymentIntentChanges {
            amount: Some(Amount::new(10_000 * (n + 1)).unwrap()),
            metadata: Some(metadata(&[("order", &format!("A-{n}")), ("note", "shared")])),
            customer_id: (n % 2 == 0).then(|| customer.id.clone()),
            ..PaymentIntentChanges::default()
        };
        intent.update(changes, at(n * 100)).unwrap();
    }
    for intent in &intents {
        write(store, |r| r.payment_intents().insert(intent));
    }
    let elsewhere = new_intent(&account(store, "other"), 9);
    write(store, |r| r.payment_intents().insert(&elsewhere));
    // The metadata of intent 1 changes: its old value is no longer found, its new one is.
    let mut changed = intents[1].clone();
    let version = changed.version();
    let changes = PaymentIntentChanges { metadata: Some(metadata(&[("order", "B-1")])), ..Default::default() };
    changed.update(changes, at(150)).unwrap();
    write(store, |r| r.payment_intents().update(&changed, version));
    // Intent 4 is canceled.
    let mut canceled = intents[4].clone();
    let version = canceled.version();
    canceled.cancel(at(500)).unwrap();
    write(store, |r| r.payment_intents().update(&canceled, version));

    let id = |i: &PaymentIntent| i.id().to_string();
    let list = |filter: &PaymentIntentFilter, page: &PageRequest| {
        read(store, |r| r.payment_intents().list(&scope, filter, page))
    };
    let all = PaymentIntentFilter::default();
    let newest_first: Vec<String> = intents.iter().rev().map(id).collect();
    assert_eq!(ids(&list(&all, &PageRequest::default()), id), newest_first);
    let status = PaymentIntentFilter { status: Some(PaymentIntentStatus::Canceled), ..all.clone() };
    assert_eq!(ids(&list(&status, &PageRequest::default()), id), vec![id(&intents[4])]);
    let of_customer = PaymentIntentFilter { customers: Some(vec![customer.id.clone()]), ..all.clone() };
    assert_eq!(
        ids(&list(&of_customer, &PageRequest::default()), id),
        vec![id(&intents[4]), id(&intents[2]), id(&intents[0])]
    );
    let nobody = PaymentIntentFilter { customers: Some(vec![]), ..all.clone() };
    assert!(list(&nobody, &PageRequest::default()).data.is_empty(), "no customers, no intents");
    let amounts = PaymentIntentFilter { amount_from: Some(20_000), amount_to: Some(30_000), ..all.clone() };
    assert_eq!(ids(&list(&amounts, &PageRequest::default()), id), vec![id(&intents[2]), id(&intents[1])]);
    let created = PaymentIntentFilter { created_from: Some(at(100)), created_to: Some(at(200)), ..all.clone() };
    assert_eq!(ids(&list(&created, &PageRequest::default()), id), vec![id(&intents[2]), id(&intents[1])]);
    let value = |text: &str| PaymentIntentFilter { metadata_value: Some(text.into()), ..all.clone() };
    assert_eq!(ids(&list(&value("A-3"), &PageRequest::default()), id), vec![id(&intents[3])]);
    assert!(list(&value("A-1"), &PageRequest::default()).data.is_empty(), "the value it had before");
    assert_eq!(ids(&list(&value("B-1"), &PageRequest::default()), id), vec![id(&intents[1])]);
    assert_eq!(list(&value("shared"), &PageRequest::default()).data.len(), 4, "every intent with it, none elsewhere");
    assert!(list(&value("1"), &PageRequest::default()).data.is_empty(), "values, not keys or parts");
    let page = PageRequest::new(Some(2), Some(id(&intents[3])), None).unwrap();
    let older = list(&value("shared"), &page);
    assert_eq!((ids(&older, id), older.has_more), (vec![id(&intents[2]), id(&intents[0])], false));
    let unknown = PageRequest::new(None, Some(id(&elsewhere)), None).unwrap();
    let refused = reading(store, |r| r.payment_intents().list(&scope, &all, &unknown).map_err(|e| unknown.explain(e)));
    assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");

    let outcome =
        |i: &PaymentIntent| IntentOutcome { status: i.status(), amount_received: 0, created_at: i.created_at() };
    let latest = read(store, |r| r.payment_intents().latest_outcomes(&scope, 2));
    assert_eq!(latest, vec![outcome(&canceled), outcome(&intents[3])], "newest first, as many as asked");
    assert_eq!(read(store, |r| r.payment_intents().latest_outcomes(&scope, 100)).len(), 5, "its own only");
}
