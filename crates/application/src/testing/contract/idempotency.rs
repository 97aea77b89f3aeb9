//! Idempotency keys: recorded and replayed per API key.

use super::*;

pub fn idempotency_keys_record_and_replay_per_api_key(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let secret = Caller { scope: scope.clone(), key_kind: KeyKind::Secret };
    let public = Caller { scope, key_kind: KeyKind::Public };
    let record = |caller: &Caller| IdempotencyRecord {
        caller: caller.clone(),
        key: "key-1".into(),
        fingerprint: "f".into(),
        state: IdempotencyState::InFlight,
        created_at: at(100),
    };
    write(store, |r| r.idempotency_keys().insert(&record(&secret)));
    let again = write(store, |r| {
        Ok(matches!(r.idempotency_keys().insert(&record(&secret)), Err(StoreError::UniqueViolation(_))))
    });
    assert!(again, "a second insert of the key is a unique violation");
    write(store, |r| r.idempotency_keys().insert(&record(&public)));
    write(store, |r| r.idempotency_keys().complete(&secret, "key-1", 201, b"{\"a\":1}"));
    let found = read(store, |r| r.idempotency_keys().find(&secret, "key-1")).unwrap();
    assert_eq!(found.state, IdempotencyState::Completed { status: 201, body: b"{\"a\":1}".to_vec() });
    let other_key = read(store, |r| r.idempotency_keys().find(&public, "key-1")).unwrap();
    assert_eq!(other_key.state, IdempotencyState::InFlight, "the public key's record is its own");
    write(store, |r| r.idempotency_keys().delete(&public, "key-1"));
    assert_eq!(write(store, |r| r.idempotency_keys().delete_created_before(at(101))), 1);
    assert!(read(store, |r| r.idempotency_keys().find(&secret, "key-1")).is_none());
}
