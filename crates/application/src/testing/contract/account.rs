//! Accounts: found by key digest, listed, their objects deleted by mode; test clocks moved only forward.

use super::*;

pub fn accounts_are_found_by_key_digest(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let digest = format!("digest-{}", scope.account_id);
    let (found, missing, count) =
        read(store, |r| Ok((r.accounts().find_key(&digest)?, r.accounts().find_key("nope")?, r.accounts().count()?)));
    let found = found.expect("the key is found");
    assert_eq!((found.account_id, found.kind, found.mode), (scope.account_id, KeyKind::Secret, Mode::Test));
    assert!(missing.is_none());
    assert_eq!(count, 1);
}

/// Accounts list in id order; deleting an account's test data leaves its live mode, keys and
/// other accounts; deleting the account takes everything of it.
pub fn accounts_are_listed_and_their_objects_deleted_by_mode(store: &dyn UnitOfWork) {
    let test = account(store, "acme");
    let live = Scope { account_id: test.account_id.clone(), mode: Mode::Live };
    let other = account(store, "other");
    let hook = webhook(&test, 1, vec![EventType::PaymentPaid]);
    write(store, |r| {
        r.customers().insert(&customer(&test, 1))?;
        r.customers().insert(&customer(&live, 2))?;
        r.customers().insert(&customer(&other, 3))?;
        r.webhooks().insert(&hook)?;
        r.payment_intents().insert(&new_intent(&test, 1))?;
        appended(r, &[event(&test, 1, 1)])
    });
    let listed = read(store, |r| r.accounts().list(None, 10));
    let mut expected = vec![test.account_id.clone(), other.account_id.clone()];
    expected.sort();
    assert_eq!(listed.iter().map(|a| a.id.clone()).collect::<Vec<_>>(), expected);
    assert_eq!(read(store, |r| r.accounts().list(Some(&expected[0]), 10)).len(), 1, "after a cursor");
    assert!(read(store, |r| r.accounts().has_test_data(&test.account_id)));
    assert!(write(store, |r| r.accounts().move_test_clock(&test.account_id, 0, 60_000)));

    let deleted = write(store, |r| r.accounts().delete_test_data(&test.account_id));
    let count = |name: &str| deleted.iter().find(|(table, _)| *table == name).map(|(_, n)| *n);
    assert_eq!(
        (count("customers"), count("payment_intents"), count("events"), count("webhooks")),
        (Some(1), Some(1), Some(1), Some(1))
    );
    assert_eq!(count("webhook_deliveries"), Some(1), "{deleted:?}");
    assert!(!read(store, |r| r.accounts().has_test_data(&test.account_id)));
    assert_eq!(read(store, |r| r.accounts().test_clock_offset(&test.account_id)), 0);
    assert!(read(store, |r| r.customers().find(&test, &customer(&test, 1).id)).is_none());
    assert!(read(store, |r| r.customers().find(&live, &customer(&live, 2).id)).is_some());
    assert!(read(store, |r| r.accounts().find_key(&format!("digest-{}", test.account_id))).is_some());

    assert!(write(store, |r| r.accounts().delete(&test.account_id)));
    assert!(read(store, |r| r.accounts().find(&test.account_id)).is_none());
    assert!(read(store, |r| r.accounts().find_key(&format!("digest-{}", test.account_id))).is_none());
    assert!(read(store, |r| r.customers().find(&live, &customer(&live, 2).id)).is_none());
    assert!(read(store, |r| r.customers().find(&other, &customer(&other, 3).id)).is_some(), "another account stays");
    assert!(!write(store, |r| r.accounts().delete(&test.account_id)), "an unknown account");
}

pub fn test_clocks_move_only_from_where_they_stand(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let other = account(store, "other");
    let offset = |scope: &Scope| read(store, |r| r.accounts().test_clock_offset(&scope.account_id));
    let moved = |after: Option<&AccountId>| read(store, |r| r.accounts().with_moved_test_clock(after, 10));
    assert_eq!((offset(&scope), offset(&other)), (0, 0), "a clock starts at real time");
    assert_eq!(moved(None), vec![]);
    assert!(write(store, |r| r.accounts().move_test_clock(&scope.account_id, 0, 5_000)));
    assert!(!write(store, |r| r.accounts().move_test_clock(&scope.account_id, 0, 9_000)), "it no longer stands at 0");
    assert_eq!((offset(&scope), offset(&other)), (5_000, 0), "only its own account's clock moved");
    assert!(write(store, |r| r.accounts().move_test_clock(&other.account_id, 0, 1_000)));
    let mut both = vec![scope.account_id.clone(), other.account_id.clone()];
    both.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    assert_eq!(moved(None), both);
    assert_eq!(moved(Some(&both[0])), vec![both[1].clone()], "after an account, in id order");
    let unknown = AccountId::from_random("nobody");
    assert_eq!(read(store, |r| r.accounts().test_clock_offset(&unknown)), 0);
    assert!(!write(store, |r| r.accounts().move_test_clock(&unknown, 0, 1_000)), "no account, no clock");
}
