//! Setup intents: stored, found by redirect token and due time.

use super::*;

pub fn setup_intents_round_trip_and_are_found_by_redirect_token_and_due_time(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customer = customer(&scope, 1);
    let id = SetupIntentId::from_random("setup1");
    let new = NewSetupIntent {
        customer_id: customer.id.clone(),
        payment_methods: vec![PaymentMethodType::Card],
        usage: Usage::OffSession,
        description: Some(Description::new("Card on file".into()).unwrap()),
        metadata: Some(metadata(&[("plan", "gold")])),
        return_url: Some(RedirectUrl::new("https://shop.example/saved".into()).unwrap()),
        card_options: CardOptions::default(),
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    let mut intent = SetupIntent::create(id, scope.account_id.clone(), scope.livemode(), secret, new, at(0));
    write(store, |r| {
        r.customers().insert(&customer)?;
        r.setup_intents().insert(&intent)
    });
    assert_eq!(read(store, |r| r.setup_intents().find(&scope, intent.id())), Some(intent.clone()));
    let version = intent.version();
    let pending = PendingSetup { payment_method_id: PaymentMethodId::from_random("saved1"), verified: verified_card() };
    let redirect = Some(("token1".to_owned(), "http://127.0.0.1/test/authorize/token1".to_owned()));
    intent.record_verification(pending, AuthorizationOutcome::RedirectRequired, redirect, None, at(10)).unwrap();
    write(store, |r| r.setup_intents().update(&intent, version));
    let stale = in_transaction(store, |r| Ok(r.setup_intents().update(&intent, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    assert_eq!(read(store, |r| r.setup_intents().find(&scope, intent.id())), Some(intent.clone()), "pending kept");
    assert_eq!(read(store, |r| r.setup_intents().find_by_redirect_token("token1")), Some(intent.clone()));
    let due_at = intent.action_due_at().unwrap();
    assert!(read(store, |r| r.setup_intents().due(None, due_at.plus_seconds(-1), 10)).is_empty());
    assert_eq!(read(store, |r| r.setup_intents().due(None, due_at, 10)), vec![intent.clone()]);
    assert_eq!(read(store, |r| r.setup_intents().due(Some(&scope), due_at, 10)), vec![intent.clone()]);
    let elsewhere = account(store, "bystander");
    assert!(read(store, |r| r.setup_intents().due(Some(&elsewhere), due_at, 10)).is_empty(), "not elsewhere");
    let version = intent.version();
    intent.complete_redirect(&Verdict::Approve, at(20)).unwrap();
    write(store, |r| r.setup_intents().update(&intent, version));
    let stored = read(store, |r| r.setup_intents().find_by_redirect_token("token1")).unwrap();
    assert_eq!((stored.status(), stored.pending()), (SetupIntentStatus::Succeeded, None));
    assert!(read(store, |r| r.setup_intents().due(None, at(100_000), 10)).is_empty(), "nothing is due");
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.setup_intents().find(&elsewhere, intent.id())), None);
}
