//! What every change and read does, whatever it touches: versions, all or nothing, lists paged newest
//! first, reads that refuse to write, writes that keep to their tenant.

use super::*;

pub fn a_stale_version_is_a_conflict(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut customer = customer(&scope, 1);
    write(store, |r| r.customers().insert(&customer));
    customer.version = 2;
    write(store, |r| r.customers().update(&customer, 1));
    customer.version = 3;
    let stale = in_transaction(store, |r| Ok(r.customers().update(&customer, 1)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
}

pub fn lists_page_newest_first_with_cursors_and_filters(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customers: Vec<Customer> = (1..=5)
        .map(|n| {
            let mut customer = customer(&scope, n);
            customer.metadata = Some(metadata(&[("tier", if n % 2 == 0 { "gold" } else { "plain" })]));
            customer
        })
        .collect();
    for customer in &customers {
        write(store, |r| r.customers().insert(customer));
    }
    let list = |page: PageRequest, filter: CustomerFilter| {
        reading(store, |r| r.customers().list(&scope, &filter, &page).map_err(|e| page.explain(e)))
    };
    let id = |c: &Customer| c.id.to_string();
    let all = CustomerFilter::default;
    let first = list(PageRequest::new(Some(2), None, None).unwrap(), all()).unwrap();
    assert_eq!((ids(&first, id), first.has_more), (vec![id(&customers[4]), id(&customers[3])], true));
    let last = list(PageRequest::new(Some(2), Some(id(&customers[1])), None).unwrap(), all()).unwrap();
    assert_eq!((ids(&last, id), last.has_more), (vec![id(&customers[0])], false));
    let back = list(PageRequest::new(Some(2), None, Some(id(&customers[1]))).unwrap(), all()).unwrap();
    assert_eq!((ids(&back, id), back.has_more), (vec![id(&customers[3]), id(&customers[2])], true));
    let by_email = CustomerFilter { email: Some("c3@example.com".into()), ..all() };
    assert_eq!(ids(&list(PageRequest::default(), by_email).unwrap(), id), vec![id(&customers[2])]);
    let gold = MetadataMatch { key: "tier".into(), value: Some("gold".into()) };
    let by_pair = CustomerFilter { metadata: vec![gold], ..all() };
    assert_eq!(ids(&list(PageRequest::default(), by_pair).unwrap(), id), vec![id(&customers[3]), id(&customers[1])]);
    let by_key = CustomerFilter { metadata: vec![MetadataMatch { key: "tier".into(), value: None }], ..all() };
    assert_eq!(list(PageRequest::default(), by_key).unwrap().data.len(), 5);
    let unknown = list(PageRequest::new(None, Some("cus_unknown".into()), None).unwrap(), all());
    assert!(matches!(unknown, Err(ApplicationError::Validation(_))), "{unknown:?}");
}

/// A change's writes (a payment, its intent's versioned update, two events and their deliveries)
/// are stored whole; with a stale version, the conflict undoes the writes before it and after it,
/// wherever the store reports it. (The stale change's payment is a failed one: a second paid payment
/// of the intent would be refused by its own unique index, which would hide a missing version check.)
pub fn a_change_is_all_or_nothing(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let hook = webhook(&scope, 1, vec![EventType::PaymentPaid]);
    write(store, |r| r.webhooks().insert(&hook));
    let mut intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    let change = |n: u32, payment: &Payment, intent: &PaymentIntent, version: i64| {
        let events = [event(&scope, 2 * n, 1), event(&scope, 2 * n + 1, 1)];
        let outcome = in_transaction(store, |r| {
            r.payments().insert(payment)?;
            r.payment_intents().update(intent, version)?;
            Ok(appended(r, &events)?)
        });
        (outcome, events)
    };

    let version = intent.version();
    intent.record_attempt(gcash_attempt(1), AuthorizationOutcome::Approved, None, None, at(5)).unwrap();
    let rate = FeeRate { basis_points: 230, fixed: 0 };
    let paid = Payment::paid(PaymentId::from_random("pay1"), &intent, 10_000, gcash_attempt(1), rate, at(5));
    let (stored, events) = change(1, &paid, &intent, version);
    stored.unwrap();
    assert_eq!(read(store, |r| r.payment_intents().find(&scope, intent.id())), Some(intent.clone()));
    assert_eq!(read(store, |r| r.payments().find(&scope, paid.id())), Some(paid));
    assert_eq!(read(store, |r| r.events().find_many(&[events[0].id.clone(), events[1].id.clone()])).len(), 2);
    assert_eq!(read(store, |r| r.deliveries().backlog()).pending, 2, "each event to the one webhook");

    let failed = Payment::failed(PaymentId::from_random("pay2"), &intent, gcash_attempt(2), at(6));
    let (stale, events) = change(2, &failed, &intent, version);
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    assert_eq!(read(store, |r| r.payments().find(&scope, failed.id())), None, "the write before it is undone");
    assert!(read(store, |r| r.events().find_many(&[events[0].id.clone(), events[1].id.clone()])).is_empty());
    assert_eq!(read(store, |r| r.deliveries().backlog()).pending, 2, "no delivery was added");
}

/// A read-only unit of work refuses a write as a failure of its own, and the write never lands.
pub fn a_read_refuses_to_write(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let hook = webhook(&scope, 1, vec![EventType::PaymentPaid]);
    let refused = reading(store, |r| Ok(r.webhooks().insert(&hook)?));
    assert!(matches!(refused, Err(ApplicationError::Internal(_))), "{refused:?}");
    assert!(read(store, |r| r.webhooks().find(&scope, hook.id())).is_none(), "the write never landed");
}

/// A write names its tenant as a lookup does: an object of another account or mode with the same
/// id (as a forged or confused caller would hand in) changes nothing of this tenant's rows.
pub fn a_write_keeps_to_its_tenant(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let other = account(store, "other");
    let original = customer(&scope, 1);
    write(store, |r| r.customers().insert(&original));
    for elsewhere in [Scope { mode: Mode::Live, ..scope.clone() }, other.clone()] {
        let mut forged = original.clone();
        (forged.account_id, forged.livemode) = (elsewhere.account_id.clone(), elsewhere.livemode());
        forged.email = Email::new("forged@example.com".into()).unwrap();
        forged.version = original.version + 1;
        let update = in_transaction(store, |r| Ok(r.customers().update(&forged, original.version)?));
        assert!(matches!(update, Err(ApplicationError::Conflict)), "from {elsewhere:?}: {update:?}");
    }
    assert_eq!(read(store, |r| r.customers().find(&scope, &original.id)), Some(original.clone()), "unchanged");

    // A webhook's deliveries and attempts are moved and read for that webhook in its tenant only.
    // (It listens to another type than the event's: its one delivery is the one made here.)
    let hook = webhook(&scope, 1, vec![EventType::RefundCreated]);
    let forged_hook = Webhook::create(
        hook.id().clone(),
        other.account_id.clone(),
        other.livemode(),
        WebhookSecret::new("secret"),
        NewWebhook { url: hook.url().clone(), events: vec![EventType::RefundCreated], description: None },
        at(0),
    );
    let paid = event(&scope, 1, 1);
    let delivery = Delivery::new(DeliveryId::from_random("d1"), &hook, paid.id.clone(), at(0));
    write(store, |r| {
        r.webhooks().insert(&hook)?;
        appended(r, std::slice::from_ref(&paid))?;
        r.deliveries().insert(std::slice::from_ref(&delivery))
    });
    let ok = AttemptOutcome { status_code: Some(200), error: None, duration_ms: 3, response_excerpt: None };
    let attempt = DeliveryAttempt::of(&delivery, at(1), &ok);
    write(store, |r| r.deliveries().record_attempts(std::slice::from_ref(&attempt)));
    assert!(read(store, |r| r.deliveries().attempts(&forged_hook, 10)).is_empty());
    assert_eq!(read(store, |r| r.deliveries().attempts(&hook, 10)), vec![attempt]);
    let pause = DeliveryMove { from: DeliveryStatus::Pending, to: DeliveryStatus::Paused, due_at: None };
    assert_eq!(write(store, |r| r.deliveries().move_all(&forged_hook, &pause)), 0);
    assert_eq!(read(store, |r| r.events().find(&scope, &paid.id)).unwrap().pending_webhooks, 1);
    assert_eq!(read(store, |r| r.deliveries().due(at(10), 10, &PassOver::default())), vec![delivery]);
    write(store, |r| r.webhooks().delete(&forged_hook));
    assert_eq!(read(store, |r| r.webhooks().find(&scope, hook.id())), Some(hook.clone()), "not deleted");
}
