//! The request log: listed, filtered, pruned, kept within a byte cap.

use super::*;

/// Logged request number `n` of `scope`: `GET /payment_intents/pi_n` answered 200 at `n` seconds.
#[must_use]
pub fn request_log(scope: &Scope, n: u32) -> RequestLog {
    RequestLog {
        id: RequestLogId::from_random(&format!("log{n}{}", scope.account_id.as_str().len())),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        source: RequestSource::Api,
        key_kind: KeyKind::Secret,
        method: "GET".into(),
        path: format!("/payment_intents/pi_{n}"),
        query: String::new(),
        status: 200,
        duration_ms: i64::from(n),
        idempotency_key: None,
        replayed: false,
        object_id: Some(format!("pi_{n}")),
        request_body: None,
        response_body: Some(format!(r#"{{"id":"pi_{n}"}}"#)),
        created_at: at(i64::from(n)),
    }
}

pub fn request_logs_are_listed_filtered_and_pruned(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let mut entries: Vec<RequestLog> = (1..=5).map(|n| request_log(&scope, n)).collect();
    entries[1].method = "POST".into();
    entries[1].path = "/refunds".into();
    entries[1].status = 402;
    entries[1].source = RequestSource::Dashboard;
    entries[1].idempotency_key = Some("key-1".into());
    entries[1].replayed = true;
    entries[1].request_body = Some(r#"{"amount":5000}"#.into());
    entries[2].status = 404;
    entries[2].object_id = None;
    entries[2].key_kind = KeyKind::Public;
    entries[2].query = "expand=x".into();
    let mut other_mode = request_log(&live, 6);
    other_mode.id = RequestLogId::from_random("livelog6");
    let other_account = request_log(&account(store, "other"), 7);
    write(store, |r| r.request_logs().append(&entries[..2]));
    write(store, |r| r.request_logs().append(&[entries[2].clone(), other_mode.clone(), other_account.clone()]));
    write(store, |r| r.request_logs().append(&entries[3..]));
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &entries[1].id)), Some(entries[1].clone()));
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &entries[2].id)), Some(entries[2].clone()));
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &other_mode.id)), None, "another mode's");
    assert_eq!(read(store, |r| r.request_logs().find(&scope, &other_account.id)), None, "another account's");
    let id = |e: &RequestLog| e.id.to_string();
    let list =
        |filter: &RequestLogFilter, page: &PageRequest| read(store, |r| r.request_logs().list(&scope, filter, page));
    let all = RequestLogFilter::default();
    let newest_first: Vec<String> = entries.iter().rev().map(id).collect();
    assert_eq!(ids(&list(&all, &PageRequest::default()), id), newest_first);
    let failed = RequestLogFilter { status: StatusRange::parse("4xx"), ..all.clone() };
    assert_eq!(ids(&list(&failed, &PageRequest::default()), id), vec![id(&entries[2]), id(&entries[1])]);
    let not_found = RequestLogFilter { status: StatusRange::parse("404"), ..all.clone() };
    assert_eq!(ids(&list(&not_found, &PageRequest::default()), id), vec![id(&entries[2])]);
    let posts = RequestLogFilter { method: Some("POST".into()), ..all.clone() };
    assert_eq!(ids(&list(&posts, &PageRequest::default()), id), vec![id(&entries[1])]);
    let dashboard = RequestLogFilter { source: Some(RequestSource::Dashboard), ..all.clone() };
    assert_eq!(ids(&list(&dashboard, &PageRequest::default()), id), vec![id(&entries[1])]);
    let object = RequestLogFilter { object_id: Some("pi_4".into()), ..all.clone() };
    assert_eq!(ids(&list(&object, &PageRequest::default()), id), vec![id(&entries[3])]);
    // A path filter is a prefix, and `_` and `%` in it are themselves.
    let intents = RequestLogFilter { path_prefix: Some("/payment_intents/pi_".into()), ..all.clone() };
    assert_eq!(list(&intents, &PageRequest::default()).data.len(), 4);
    let wildcard = RequestLogFilter { path_prefix: Some("/payment%".into()), ..all.clone() };
    assert!(list(&wildcard, &PageRequest::default()).data.is_empty());
    let underscore = RequestLogFilter { path_prefix: Some("/payment_intents/pi_5".into()), ..all.clone() };
    assert_eq!(ids(&list(&underscore, &PageRequest::default()), id), vec![id(&entries[4])]);
    let page = PageRequest::new(Some(2), Some(id(&entries[3])), None).unwrap();
    let older = list(&all, &page);
    assert_eq!((ids(&older, id), older.has_more), (vec![id(&entries[2]), id(&entries[1])], true));
    let before = PageRequest::new(Some(1), None, Some(id(&entries[1]))).unwrap();
    assert_eq!(ids(&list(&posts, &before), id), Vec::<String>::new(), "a cursor pages within the filter");
    let unknown = PageRequest::new(None, Some(id(&other_account)), None).unwrap();
    let refused = reading(store, |r| r.request_logs().list(&scope, &all, &unknown).map_err(|e| unknown.explain(e)));
    assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");

    // Older than the retention goes; then each tenant keeps its newest rows up to the cap.
    let retention = Retention { max_age_seconds: 100, max_rows: 2, max_bytes: u64::MAX };
    let pruned = write(store, |r| r.request_logs().prune(retention, at(102)));
    assert_eq!(pruned, 3, "entry 1 by age, entries 2 and 3 by the cap");
    assert_eq!(ids(&list(&all, &PageRequest::default()), id), vec![id(&entries[4]), id(&entries[3])]);
    assert_eq!(read(store, |r| r.request_logs().find(&live, &other_mode.id)), Some(other_mode.clone()));
    assert_eq!(write(store, |r| r.request_logs().prune(retention, at(102))), 0, "pruning again finds nothing");
    let everything = Retention { max_age_seconds: 0, max_rows: 1_000, max_bytes: u64::MAX };
    assert_eq!(write(store, |r| r.request_logs().prune(everything, at(1_000))), 4);
}

pub fn request_logs_keep_their_newest_entries_within_a_byte_cap(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let other = account(store, "other");
    let sized = |scope: &Scope, n: u32, body_bytes: usize| RequestLog {
        response_body: Some("x".repeat(body_bytes)),
        ..request_log(scope, n)
    };
    let entries = [sized(&scope, 1, 1_000), sized(&scope, 2, 3_000), sized(&scope, 3, 2_000), sized(&scope, 4, 1_000)];
    let elsewhere = sized(&other, 5, 5_000);
    write(store, |r| r.request_logs().append(&entries));
    write(store, |r| r.request_logs().append(std::slice::from_ref(&elsewhere)));
    // The newest two fit in 3,200 bytes; the third would take them past it.
    let newest_two = entries[2].size_bytes() + entries[3].size_bytes();
    assert!(newest_two < 3_200 && newest_two + entries[1].size_bytes() > 3_200);
    let retention = Retention { max_age_seconds: 1_000_000, max_rows: 1_000, max_bytes: 3_200 };
    assert_eq!(write(store, |r| r.request_logs().prune(retention, at(10))), 3, "two of acme's, and other's one");
    let kept = read(store, |r| r.request_logs().list(&scope, &RequestLogFilter::default(), &PageRequest::default()));
    assert_eq!(
        ids(&kept, |e: &RequestLog| e.id.to_string()),
        vec![entries[3].id.to_string(), entries[2].id.to_string()]
    );
    assert_eq!(write(store, |r| r.request_logs().prune(retention, at(10))), 0, "pruning again finds nothing");
}

pub fn request_logs_are_trimmed_to_their_caps_one_scope_at_a_time(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let sized = |scope: &Scope, n: u32, body_bytes: usize| RequestLog {
        id: RequestLogId::from_random(&format!("trim{n}{}", scope.livemode())),
        response_body: Some("x".repeat(body_bytes)),
        ..request_log(scope, n)
    };
    let entries: Vec<RequestLog> = (1..=5).map(|n| sized(&scope, n, 1_000)).collect();
    let other_mode: Vec<RequestLog> = (6..=8).map(|n| sized(&live, n, 1_000)).collect();
    write(store, |r| r.request_logs().append(&entries));
    write(store, |r| r.request_logs().append(&other_mode));
    let two = entries[3].size_bytes() + entries[4].size_bytes();
    let retention = Retention { max_age_seconds: 1, max_rows: 1_000, max_bytes: two };
    // Age is the prune's: a trim goes by the caps alone, and only in its scope.
    assert_eq!(write(store, |r| r.request_logs().trim(&scope, retention)), 3);
    let listed = |scope: &Scope| {
        let page = read(store, |r| r.request_logs().list(scope, &RequestLogFilter::default(), &PageRequest::default()));
        ids(&page, |e: &RequestLog| e.id.to_string())
    };
    assert_eq!(listed(&scope), vec![entries[4].id.to_string(), entries[3].id.to_string()]);
    assert_eq!(listed(&live).len(), 3, "another mode is trimmed on its own");
    let one_row = Retention { max_rows: 1, max_bytes: u64::MAX, ..retention };
    assert_eq!(write(store, |r| r.request_logs().trim(&live, one_row)), 2);
    assert_eq!(listed(&live), vec![other_mode[2].id.to_string()]);
    assert_eq!(write(store, |r| r.request_logs().trim(&scope, retention)), 0, "trimming again finds nothing");
}
