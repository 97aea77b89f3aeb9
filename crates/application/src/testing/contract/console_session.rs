//! Console sessions: found by digest, touched and ended.

use super::*;

pub fn console_sessions_are_found_by_digest_touched_and_ended(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let open = |token: &str, at_offset: i64| {
        ConsoleSession::open(
            &SessionToken::new(token.into()),
            scope.account_id.clone(),
            Mode::Live,
            "f".into(),
            at(at_offset),
        )
    };
    let (first, second) = (open("first", 0), open("second", 10));
    write(store, |r| r.console_sessions().insert(&first));
    write(store, |r| r.console_sessions().insert(&second));
    assert_eq!(read(store, |r| r.console_sessions().find(&first.digest)), Some(first.clone()));
    assert_eq!(read(store, |r| r.console_sessions().find("unknown")), None);
    let again = in_transaction(store, |r| {
        r.console_sessions().insert(&first).map_err(|e| match e {
            StoreError::UniqueViolation(_) => ApplicationError::Conflict,
            other => ApplicationError::internal(&format!("{other:?}")),
        })
    });
    assert!(matches!(again, Err(ApplicationError::Conflict)), "a digest is stored once: {again:?}");
    write(store, |r| r.console_sessions().touch(&first.digest, at(30)));
    let touched = read(store, |r| r.console_sessions().find(&first.digest)).unwrap();
    assert_eq!(touched.last_seen_at, at(30));
    assert_eq!(write(store, |r| r.console_sessions().delete_seen_before(at(20))), 1, "the second, seen at 10");
    assert_eq!(read(store, |r| r.console_sessions().find(&second.digest)), None);
    write(store, |r| r.console_sessions().delete(&first.digest));
    write(store, |r| r.console_sessions().delete(&first.digest));
    assert_eq!(read(store, |r| r.console_sessions().find(&first.digest)), None);
}
