//! Customers: stored in their scope; a statement prefix taken once per scope.

use super::*;

pub fn customers_round_trip_and_stay_in_their_scope(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let mut original = customer(&scope, 1);
    original.metadata = Some(metadata(&[("k", "v")]));
    original.billing = Some(Billing { phone: Some("+63 2 1234".into()), address: None });
    write(store, |r| r.customers().insert(&original));
    assert_eq!(read(store, |r| r.customers().find(&scope, &original.id)), Some(original.clone()));
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    let second = customer(&scope, 2);
    write(store, |r| r.customers().insert(&second));
    let ids = [original.id.clone(), second.id.clone(), CustomerId::from_random("none")];
    assert_eq!(read(store, |r| r.customers().find_many(&scope, &ids)).len(), 2, "found together");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.customers().find(&elsewhere, &original.id)), None, "from {elsewhere:?}");
        assert!(read(store, |r| r.customers().find_many(&elsewhere, &ids)).is_empty(), "from {elsewhere:?}");
    }
}

pub fn a_taken_statement_prefix_is_a_unique_violation(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let first = customer(&scope, 1);
    write(store, |r| r.customers().insert(&first));
    let mut second = customer(&scope, 2);
    second.billing_statement_prefix = first.billing_statement_prefix.clone();
    let refused = write(store, |r| Ok(matches!(r.customers().insert(&second), Err(StoreError::UniqueViolation(_)))));
    assert!(refused, "a taken prefix is refused");
    let prefix = &first.billing_statement_prefix;
    let in_use = read(store, |r| {
        Ok((
            r.customers().prefix_in_use(&scope, prefix, None)?,
            r.customers().prefix_in_use(&scope, prefix, Some(&first.id))?,
        ))
    });
    assert_eq!(in_use, (true, false));
}
