//! Webhook deliveries: leased, settled, moved, requeued after failing; failed attempts as the domain
//! defines them.

use super::*;

/// A webhook of account "acme" and its delivery of one event, which failed for good at 50.
pub(super) fn failed_delivery(store: &dyn UnitOfWork) -> (Webhook, Delivery) {
    let scope = account(store, "acme");
    let hook = webhook(&scope, 1, vec![EventType::RefundCreated]);
    let paid = event(&scope, 1, 1);
    let mut delivery = Delivery::new(DeliveryId::from_random("d1"), &hook, paid.id.clone(), at(0));
    write(store, |r| {
        r.webhooks().insert(&hook)?;
        appended(r, std::slice::from_ref(&paid))?;
        r.deliveries().insert(std::slice::from_ref(&delivery))
    });
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(delivery.id()), "a", at(50), at(80))).len(),
        1
    );
    let no_retries = RetrySchedule { base_ms: 1_000, cap_ms: 1_000, jitter: 0.0, give_up_after_ms: 0 };
    let refused = AttemptOutcome { status_code: Some(500), error: None, duration_ms: 1, response_excerpt: None };
    delivery.record(&refused, &no_retries, at(50), 0.0);
    assert!(write(store, |r| r.deliveries().settle(&delivery, "a")));
    (hook, delivery)
}

pub fn failed_deliveries_are_requeued_from_the_time_they_failed(store: &dyn UnitOfWork) {
    let (hook, mut delivery) = failed_delivery(store);
    let everything = PassOver::default();
    assert!(read(store, |r| r.deliveries().due(at(100), 10, &everything)).is_empty(), "failed: never due");
    let recovery = hook.recovery(at(100));
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(51), &recovery)), 0, "it failed before that");
    let elsewhere = webhook(&account(store, "other"), 1, vec![EventType::RefundCreated]);
    assert_eq!(write(store, |r| r.deliveries().recover(&elsewhere, at(0), &recovery)), 0, "another account's");
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(50), &recovery)), 1);
    assert!(delivery.recover(at(50), &recovery));
    assert_eq!(read(store, |r| r.deliveries().due(at(100), 10, &everything)), vec![delivery.clone()], "due at once");
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(0), &recovery)), 0, "pending now");
}

pub fn failed_attempts_are_those_the_domain_calls_undelivered(store: &dyn UnitOfWork) {
    let (_, delivery) = failed_delivery(store);
    let scope = Scope::of(delivery.account_id(), delivery.livemode());
    let outcomes = [
        (Some(200), None, true),
        (Some(299), None, true),
        (Some(199), None, false),
        (Some(300), None, false),
        (Some(503), None, false),
        (None, Some("timed out"), false),
        (Some(200), Some("the body was cut off"), false),
    ];
    let attempts: Vec<DeliveryAttempt> = outcomes
        .iter()
        .enumerate()
        .map(|(n, (status_code, error, _))| {
            let outcome = AttemptOutcome {
                status_code: *status_code,
                error: error.map(str::to_owned),
                duration_ms: 1,
                response_excerpt: None,
            };
            DeliveryAttempt::of(&delivery, at(100 + i64::try_from(n).unwrap_or(0)), &outcome)
        })
        .collect();
    write(store, |r| r.deliveries().record_attempts(&attempts));
    let expected: Vec<DeliveryAttempt> =
        attempts.iter().rev().filter(|attempt| !attempt.delivered()).cloned().collect();
    assert_eq!(expected.len(), outcomes.iter().filter(|(.., delivered)| !delivered).count(), "the domain's word");
    assert_eq!(read(store, |r| r.deliveries().failed_attempts(&scope, 100)), expected, "newest first");
    assert_eq!(read(store, |r| r.deliveries().failed_attempts(&scope, 2)), expected[..2].to_vec());
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.deliveries().failed_attempts(&live, 10)).is_empty(), "another mode's");
}

pub fn a_disabled_webhooks_recovered_deliveries_are_held_until_it_is_enabled(store: &dyn UnitOfWork) {
    let (mut hook, delivery) = failed_delivery(store);
    let version = hook.version();
    let paused = hook.disable(at(60));
    write(store, |r| {
        r.webhooks().update(&hook, version)?;
        r.deliveries().move_all(&hook, &paused)
    });
    let recovery = hook.recovery(at(100));
    assert_eq!(write(store, |r| r.deliveries().recover(&hook, at(50), &recovery)), 1);
    let everything = PassOver::default();
    assert!(read(store, |r| r.deliveries().due(at(200), 10, &everything)).is_empty(), "held while disabled");
    let version = hook.version();
    let resumed = hook.enable(at(300));
    write(store, |r| {
        r.webhooks().update(&hook, version)?;
        r.deliveries().move_all(&hook, &resumed)
    });
    let due = read(store, |r| r.deliveries().due(at(300), 10, &everything));
    assert_eq!(due.iter().map(Delivery::id).collect::<Vec<_>>(), vec![delivery.id()], "sent once enabled");
}

pub fn deliveries_are_leased_settled_and_moved(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    // Listening to another type than the events': their deliveries are the ones made here.
    let mut hook = webhook(&scope, 1, vec![EventType::RefundCreated]);
    let (first_event, second_event) = (event(&scope, 1, 1), event(&scope, 2, 1));
    let mut first = Delivery::new(DeliveryId::from_random("d1"), &hook, first_event.id.clone(), at(0));
    let second = Delivery::new(DeliveryId::from_random("d2"), &hook, second_event.id.clone(), at(5));
    write(store, |r| {
        r.webhooks().insert(&hook)?;
        appended(r, &[first_event.clone(), second_event.clone()])?;
        r.deliveries().insert(&[first.clone(), second.clone()])
    });
    let everything = PassOver::default();
    let due = read(store, |r| r.deliveries().due(at(10), 10, &everything));
    assert_eq!(due, vec![first.clone(), second.clone()], "due ones, the longest waiting first");
    assert_eq!(read(store, |r| r.deliveries().due(at(1), 10, &everything)), vec![first.clone()]);
    let full_webhook = PassOver { webhooks: vec![hook.id().clone()], accounts: Vec::new() };
    assert!(read(store, |r| r.deliveries().due(at(10), 10, &full_webhook)).is_empty(), "its endpoint takes no more");
    let full_account = PassOver { webhooks: Vec::new(), accounts: vec![scope.account_id.clone()] };
    assert!(read(store, |r| r.deliveries().due(at(10), 10, &full_account)).is_empty(), "its account takes no more");

    let lease = at(40);
    let both = [first.id().clone(), second.id().clone()];
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(first.id()), "a", at(10), lease)),
        vec![first.id().clone()]
    );
    assert_eq!(
        write(store, |r| r.deliveries().claim(&both, "b", at(11), at(41))),
        vec![second.id().clone()],
        "first is leased to a"
    );
    assert_eq!(write(store, |r| r.deliveries().release(&both, "b")), 1, "only b's own lease is given back");
    assert_eq!(read(store, |r| r.deliveries().due(at(11), 10, &everything)), vec![second.clone()], "due again");
    assert_eq!(
        read(store, |r| r.deliveries().due(at(12), 10, &everything)),
        vec![second.clone()],
        "a leased one is not due"
    );
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(first.id()), "b", lease, at(70))),
        vec![first.id().clone()],
        "taken over when the lease ends"
    );

    let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
    let failure =
        AttemptOutcome { status_code: Some(503), error: None, duration_ms: 4, response_excerpt: Some("busy".into()) };
    first.record(&failure, &schedule, at(41), 0.5);
    assert!(!write(store, |r| r.deliveries().settle(&first, "a")), "a lost its lease");
    assert!(write(store, |r| r.deliveries().settle(&first, "b")));
    let attempt = DeliveryAttempt::of(&first, at(41), &failure);
    write(store, |r| r.deliveries().record_attempts(std::slice::from_ref(&attempt)));
    assert_eq!(read(store, |r| r.deliveries().attempts(&hook, 10)), vec![attempt.clone()]);
    assert_eq!(read(store, |r| r.deliveries().attempts_of_event(&scope, first.event_id())), vec![attempt.clone()]);
    assert!(read(store, |r| r.deliveries().attempts_of_event(&scope, second.event_id())).is_empty());
    let elsewhere = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.deliveries().attempts_of_event(&elsewhere, first.event_id())).is_empty());
    let retried = read(store, |r| r.deliveries().due(at(43), 10, &everything));
    assert_eq!(retried.iter().find(|d| d.id() == first.id()), Some(&first), "due again after its backoff");

    // Backed off: due ones wait until then, a leased one is left to its sender, later ones stay.
    assert_eq!(write(store, |r| r.deliveries().claim(std::slice::from_ref(second.id()), "a", at(43), at(90))).len(), 1);
    assert_eq!(write(store, |r| r.deliveries().postpone(&hook, at(45), at(43))), 1);
    assert!(read(store, |r| r.deliveries().due(at(44), 10, &everything)).is_empty());
    let waited = read(store, |r| r.deliveries().due(at(45), 10, &everything));
    assert_eq!(waited.iter().map(|d| (d.id(), d.next_attempt_at())).collect::<Vec<_>>(), vec![(first.id(), at(45))]);
    assert_eq!(write(store, |r| r.deliveries().postpone(&hook, at(44), at(43))), 0, "never earlier");
    first.postpone(at(45));
    // A test clock jumped over the wait: due at once, but a leased one is left to its sender.
    let elsewhere_hook = in_other_mode(&hook);
    assert_eq!(write(store, |r| r.deliveries().bring_forward(&elsewhere_hook, at(46), at(44))), 0, "another mode's");
    assert_eq!(write(store, |r| r.deliveries().bring_forward(&hook, at(46), at(44))), 1);
    assert_eq!(write(store, |r| r.deliveries().bring_forward(&hook, at(46), at(44))), 0, "already due");
    assert!(first.bring_forward(at(46), at(44)));
    let brought = read(store, |r| r.deliveries().due(at(44), 10, &everything));
    assert_eq!(brought.iter().map(|d| (d.id(), d.next_attempt_at())).collect::<Vec<_>>(), vec![(first.id(), at(44))]);
    assert!(write(store, |r| r.deliveries().settle(&second, "a")));

    let paused = hook.disable(at(50));
    assert_eq!(write(store, |r| r.deliveries().move_all(&hook, &paused)), 2);
    assert!(read(store, |r| r.deliveries().due(at(100), 10, &everything)).is_empty(), "paused ones wait");
    let resumed = hook.enable(at(60));
    assert_eq!(write(store, |r| r.deliveries().move_all(&hook, &resumed)), 2);
    let due = read(store, |r| r.deliveries().due(at(60), 10, &everything));
    assert!(due.iter().all(|d| d.status() == DeliveryStatus::Pending && d.next_attempt_at() == at(60)), "{due:?}");
    assert_eq!(due.len(), 2, "due at once when resumed");
    // Deleted while one is being sent: the sender's late outcome does not bring it back.
    assert_eq!(write(store, |r| r.deliveries().claim(std::slice::from_ref(first.id()), "a", at(60), at(90))).len(), 1);
    for change in hook.deletion() {
        write(store, |r| r.deliveries().move_all(&hook, &change));
    }
    assert!(!write(store, |r| r.deliveries().settle(&first, "a")), "a canceled delivery stays canceled");
    assert!(read(store, |r| r.deliveries().due(at(100), 10, &everything)).is_empty(), "canceled ones are never due");
}
