//! Events: appended with their deliveries, listed, counted, filtered and streamed in appending order.

use super::*;

/// Event number `n` of `scope`, waiting for `pending_webhooks`.
#[must_use]
pub fn event(scope: &Scope, n: u32, pending_webhooks: i64) -> Event {
    Event {
        id: EventId::from_random(&format!("event{n}")),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        event_type: EventType::PaymentPaid,
        object_id: format!("pay_object{n}"),
        pending_webhooks,
        created_at: at(i64::from(n)),
        body: format!(r#"{{"id":"evt_event{n}","resource":"event"}}"#),
    }
}

/// An event of a moved test clock happens in the clock's time; its deliveries fall due at the real
/// time the append names.
pub fn deliveries_fall_due_at_the_time_given_not_the_events(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    write(store, |r| r.webhooks().insert(&webhook(&scope, 1, vec![EventType::PaymentPaid])));
    let ahead = event(&scope, 86_400, 1);
    write(store, |r| r.events().append(std::slice::from_ref(&ahead), at(5)));
    let everything = PassOver::default();
    let due = read(store, |r| r.deliveries().due(at(5), 10, &everything));
    assert_eq!(due.iter().map(|d| (d.event_id(), d.next_attempt_at())).collect::<Vec<_>>(), vec![(&ahead.id, at(5))]);
}

pub fn events_are_appended_listed_and_counted(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let events: Vec<Event> = (1..=3).map(|n| event(&scope, n, 2)).collect();
    let hooks = [webhook(&scope, 1, vec![EventType::PaymentPaid]), webhook(&scope, 2, vec![EventType::PaymentPaid])];
    write(store, |r| {
        r.webhooks().insert(&hooks[0])?;
        r.webhooks().insert(&hooks[1])?;
        appended(r, &events[..1])
    });
    // Several appended in one statement keep their order.
    write(store, |r| appended(r, &events[1..]));
    assert_eq!(read(store, |r| r.events().find(&scope, &events[0].id)), Some(events[0].clone()), "to both webhooks");
    // The count read back is that of the deliveries outstanding now.
    let pending =
        |store: &dyn UnitOfWork| read(store, |r| r.events().find(&scope, &events[0].id)).unwrap().pending_webhooks;
    let due = read(store, |r| r.deliveries().due(at(10), 10, &PassOver::default()));
    let mut delivered =
        due.into_iter().find(|d| d.event_id() == &events[0].id && d.webhook_id() == hooks[0].id()).unwrap();
    let ok = AttemptOutcome { status_code: Some(200), error: None, duration_ms: 1, response_excerpt: None };
    let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
    delivered.record(&ok, &schedule, at(2), 0.0);
    assert_eq!(
        write(store, |r| r.deliveries().claim(std::slice::from_ref(delivered.id()), "a", at(2), at(30))).len(),
        1
    );
    assert!(write(store, |r| r.deliveries().settle(&delivered, "a")));
    assert_eq!(pending(store), 1, "one of two delivered");
    let paused = hooks[1].clone().disable(at(3));
    write(store, |r| r.deliveries().move_all(&hooks[1], &paused));
    assert_eq!(pending(store), 1, "a paused delivery is still outstanding");
    for change in hooks[1].deletion() {
        write(store, |r| r.deliveries().move_all(&hooks[1], &change));
    }
    assert_eq!(pending(store), 0, "a canceled one is not");
    let all = EventFilter::default();
    let listed = read(store, |r| r.events().list(&scope, &all, &PageRequest::default()));
    assert_eq!(listed.data.iter().map(|e| e.pending_webhooks).collect::<Vec<_>>(), vec![1, 1, 0], "newest first");
    assert_eq!(read(store, |r| r.events().find_many(std::slice::from_ref(&events[1].id)))[0].pending_webhooks, 1);
    let id = |e: &Event| e.id.to_string();
    let page = PageRequest::new(Some(2), None, None).unwrap();
    let newest = read(store, |r| r.events().list(&scope, &all, &page));
    assert_eq!((ids(&newest, id), newest.has_more), (vec![id(&events[2]), id(&events[1])], true));
    let older = PageRequest::new(Some(2), Some(id(&events[1])), None).unwrap();
    assert_eq!(ids(&read(store, |r| r.events().list(&scope, &all, &older)), id), vec![id(&events[0])]);
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.events().find(&elsewhere, &events[0].id)), None);
    assert!(read(store, |r| r.events().list(&elsewhere, &all, &PageRequest::default())).data.is_empty());
    let unknown = reading(store, |r| r.events().list(&elsewhere, &all, &older).map_err(|e| older.explain(e)));
    assert!(
        matches!(unknown, Err(ApplicationError::Validation(_))),
        "another account's event is no cursor: {unknown:?}"
    );
}

/// The stream follows the order of appending, not the events' times (a moved test clock's events
/// may be dated anywhere), within one scope.
pub fn events_are_streamed_once_in_the_order_they_were_appended(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let elsewhere = account(store, "other");
    let [late, early, third, fourth] = [30, 10, 20, 40].map(|n| event(&scope, n, 1));
    assert_eq!(read(store, |r| r.events().stream_end(&scope)), None, "nothing yet");
    write(store, |r| appended(r, std::slice::from_ref(&late)));
    write(store, |r| appended(r, std::slice::from_ref(&event(&elsewhere, 5, 0))));
    write(store, |r| appended(r, std::slice::from_ref(&early)));
    // Several appended in one change keep their order.
    write(store, |r| appended(r, &[third.clone(), fourth.clone()]));
    let id = |e: &Event| e.id.to_string();
    // On PostgreSQL a transaction of any database of the cluster (another test's) can hold the
    // stream back for a moment: wait for what is expected.
    let stream = |after: Option<&Event>, limit, expected: usize| {
        let read_now = || read(store, |r| r.events().stream(&scope, after.map(|e| &e.id), limit));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut streamed = read_now();
        while streamed.len() < expected && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            streamed = read_now();
        }
        streamed.iter().map(id).collect::<Vec<_>>()
    };
    assert_eq!(stream(None, 10, 4), [&late, &early, &third, &fourth].map(id));
    let all = read(store, |r| r.events().stream(&scope, None, 10));
    assert!(all.iter().all(|e| e.pending_webhooks == 0 && e.body.starts_with('{')), "{all:?}");
    assert_eq!(stream(None, 2, 2), [&late, &early].map(id), "the limit");
    assert_eq!(stream(Some(&early), 10, 2), [&third, &fourth].map(id));
    assert_eq!(stream(Some(&fourth), 10, 0), Vec::<String>::new(), "nothing after the last");
    assert_eq!(read(store, |r| r.events().stream_end(&scope)), Some(fourth.id.clone()));
    let foreign = read(store, |r| Ok(r.events().stream(&elsewhere, Some(&late.id), 10)));
    assert!(matches!(foreign, Err(StoreError::UnknownCursor)), "another account's event is no cursor: {foreign:?}");
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    assert_eq!(read(store, |r| r.events().stream(&live, None, 10)), Vec::<Event>::new(), "live mode has its own");
}

pub fn events_are_filtered_by_type_and_object(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut events: Vec<Event> = (1..=4).map(|n| event(&scope, n, 0)).collect();
    events[1].event_type = EventType::RefundCreated;
    events[2].object_id = events[0].object_id.clone();
    let mut elsewhere = event(&account(store, "other"), 5, 0);
    elsewhere.object_id = events[0].object_id.clone();
    write(store, |r| appended(r, &events));
    write(store, |r| appended(r, std::slice::from_ref(&elsewhere)));
    let id = |e: &Event| e.id.to_string();
    let list = |filter: &EventFilter, page: &PageRequest| read(store, |r| r.events().list(&scope, filter, page));
    let paid = EventFilter { event_type: Some(EventType::PaymentPaid), object_ids: Vec::new() };
    assert_eq!(ids(&list(&paid, &PageRequest::default()), id), vec![id(&events[3]), id(&events[2]), id(&events[0])]);
    let of_object = EventFilter { event_type: None, object_ids: vec![events[0].object_id.clone()] };
    assert_eq!(ids(&list(&of_object, &PageRequest::default()), id), vec![id(&events[2]), id(&events[0])]);
    let both = EventFilter { event_type: Some(EventType::RefundCreated), ..of_object.clone() };
    assert!(list(&both, &PageRequest::default()).data.is_empty(), "every given filter must match");
    // A cursor names any event of the scope, whether or not it matches the filter.
    let after_refund = PageRequest::new(Some(1), Some(id(&events[1])), None).unwrap();
    let page = list(&paid, &after_refund);
    assert_eq!((ids(&page, id), page.has_more), (vec![id(&events[0])], false));
    let before_refund = PageRequest::new(Some(1), None, Some(id(&events[1]))).unwrap();
    let page = list(&paid, &before_refund);
    assert_eq!((ids(&page, id), page.has_more), (vec![id(&events[2])], true));
}

/// An event appended reaches every enabled webhook of its account and mode that lists its type, and
/// no other; webhooks written in the same change count.
pub fn appended_events_reach_the_webhooks_that_listen_to_them(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let listening = webhook(&scope, 1, vec![EventType::RefundCreated, EventType::PaymentPaid]);
    let other_type = webhook(&scope, 2, vec![EventType::RefundCreated]);
    let mut disabled = webhook(&scope, 3, vec![EventType::PaymentPaid]);
    let _paused = disabled.disable(at(1));
    let live = webhook(&Scope { mode: Mode::Live, ..scope.clone() }, 4, vec![EventType::PaymentPaid]);
    let other_account = webhook(&account(store, "other"), 5, vec![EventType::PaymentPaid]);
    write(store, |r| {
        for hook in [&other_type, &disabled, &live, &other_account] {
            r.webhooks().insert(hook)?;
        }
        Ok(())
    });
    let events = [event(&scope, 1, 1), event(&scope, 2, 1)];
    write(store, |r| {
        r.webhooks().insert(&listening)?;
        appended(r, &events)
    });
    let due = read(store, |r| r.deliveries().due(at(10), 10, &PassOver::default()));
    let mut reached: Vec<(&str, &str)> = due.iter().map(|d| (d.webhook_id().as_str(), d.event_id().as_str())).collect();
    reached.sort_unstable();
    let mut expected: Vec<(&str, &str)> = events.iter().map(|e| (listening.id().as_str(), e.id.as_str())).collect();
    expected.sort_unstable();
    assert_eq!(reached, expected, "only the enabled webhook of the scope that lists the type");
    assert!(due
        .iter()
        .all(|d| d.next_attempt_at() == events[0].created_at || d.next_attempt_at() == events[1].created_at));
}
