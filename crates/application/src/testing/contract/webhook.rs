//! Webhooks: stored, listed and filtered.

use super::*;

/// Webhook number `n` of `scope`, enabled for `events`.
///
/// # Panics
/// Never: its URL is valid.
#[must_use]
pub fn webhook(scope: &Scope, n: u32, events: Vec<EventType>) -> Webhook {
    let new = NewWebhook {
        url: WebhookUrl::new(format!("https://hooks.example/{n}")).unwrap(),
        events,
        description: Some(Description::new(format!("hook {n}")).unwrap()),
    };
    let id = WebhookId::from_random(&format!("hook{n}"));
    Webhook::create(id, scope.account_id.clone(), scope.livemode(), WebhookSecret::new("secret"), new, at(0))
}

pub fn webhooks_are_stored_listed_and_filtered(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut first = webhook(&scope, 1, vec![EventType::PaymentPaid, EventType::RefundCreated]);
    let second = webhook(&scope, 2, vec![EventType::PaymentFailed]);
    write(store, |r| {
        r.webhooks().insert(&first)?;
        r.webhooks().insert(&second)
    });
    assert_eq!(read(store, |r| r.webhooks().find(&scope, first.id())), Some(first.clone()));
    let version = first.version();
    let _paused = first.disable(at(1));
    first.update(
        WebhookChanges { description: Some(Description::new("renamed".into()).unwrap()), ..WebhookChanges::default() },
        at(2),
    );
    write(store, |r| r.webhooks().update(&first, version));
    let stale = in_transaction(store, |r| Ok(r.webhooks().update(&first, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.webhooks().find(&scope, first.id())).unwrap();
    assert_eq!(
        (stored.status(), stored.description().map(Description::as_str)),
        (WebhookStatus::Disabled, Some("renamed"))
    );
    let version = first.version();
    first.rotate_secret(WebhookSecret::new("rotated"), at(3), at(90_003), at(3));
    write(store, |r| r.webhooks().update(&first, version));
    assert_eq!(read(store, |r| r.webhooks().find(&scope, first.id())), Some(first.clone()), "with its previous secret");
    let enabled = read(store, |r| r.webhooks().enabled(&scope));
    assert_eq!(enabled, vec![(second.clone(), EndpointHealth::ANSWERING)]);
    let id = |w: &Webhook| w.id().to_string();
    let all = read(store, |r| r.webhooks().list(&scope, &WebhookFilter::default(), &PageRequest::default()));
    assert_eq!(ids(&all, id), vec![id(&second), id(&first)], "newest first");
    let by_url = WebhookFilter { url: Some("https://hooks.example/2".into()), ..WebhookFilter::default() };
    assert_eq!(
        ids(&read(store, |r| r.webhooks().list(&scope, &by_url, &PageRequest::default())), id),
        vec![id(&second)]
    );
    let by_description = WebhookFilter { description: Some("renamed".into()), ..WebhookFilter::default() };
    let found = read(store, |r| r.webhooks().list(&scope, &by_description, &PageRequest::default()));
    assert_eq!(ids(&found, id), vec![id(&first)]);
    for (status, expected) in [(WebhookStatus::Enabled, id(&second)), (WebhookStatus::Disabled, id(&first))] {
        let by_status = WebhookFilter { status: Some(status), ..WebhookFilter::default() };
        let found = read(store, |r| r.webhooks().list(&scope, &by_status, &PageRequest::default()));
        assert_eq!(ids(&found, id), vec![expected], "{status:?}");
    }
    let after_second = PageRequest::new(Some(5), Some(id(&second)), None).unwrap();
    let older = read(store, |r| r.webhooks().list(&scope, &WebhookFilter::default(), &after_second));
    assert_eq!(ids(&older, id), vec![id(&first)], "the cursor pages");
    let endpoints = read(store, |r| r.webhooks().endpoints(&[first.id().clone(), second.id().clone()]));
    assert_eq!(endpoints.len(), 2);
    assert!(endpoints.iter().all(|(_, health)| *health == EndpointHealth::ANSWERING), "never tried: answering");
    let backed_off = EndpointHealth { unanswered: 3, retry_at: at(100) };
    write(store, |r| r.webhooks().set_health(&first, &backed_off));
    let endpoints = read(store, |r| r.webhooks().endpoints(std::slice::from_ref(first.id())));
    assert_eq!(endpoints, vec![(first.clone(), backed_off)], "the webhook's version stays");
    // Another account's or mode's webhook of the same id is none of this one's business.
    write(store, |r| r.webhooks().set_health(&in_other_mode(&first), &EndpointHealth::ANSWERING));
    let endpoints = read(store, |r| r.webhooks().endpoints(std::slice::from_ref(first.id())));
    assert_eq!(endpoints, vec![(first.clone(), backed_off)], "unchanged by another mode's");
    write(store, |r| r.webhooks().delete(&first));
    assert_eq!(read(store, |r| r.webhooks().find(&scope, first.id())), None);
    assert!(read(store, |r| r.webhooks().endpoints(std::slice::from_ref(first.id()))).is_empty());
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.webhooks().find(&elsewhere, second.id())), None);
    assert!(read(store, |r| r.webhooks().enabled(&elsewhere)).is_empty());
}

/// The same webhook as it would be in the other mode of its account: what a query that forgot the
/// tenant would mistake for it.
pub(super) fn in_other_mode(hook: &Webhook) -> Webhook {
    Webhook::restore(StoredWebhook {
        id: hook.id().clone(),
        account_id: hook.account_id().clone(),
        livemode: !hook.livemode(),
        url: hook.url().clone(),
        events: hook.events().to_vec(),
        description: hook.description().cloned(),
        secret_key: hook.secret_key().clone(),
        previous_secret: hook.previous_secret().cloned(),
        status: hook.status(),
        created_at: hook.created_at(),
        updated_at: hook.updated_at(),
        version: hook.version(),
    })
}
