//! Customer sessions: stored in their scope.

use super::*;

pub fn customer_sessions_round_trip_in_their_scope(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let customer = customer(&scope, 1);
    let id = CustomerSessionId::from_random("session1");
    let secret = ClientSecret::new(id.as_str(), "secret");
    let components = vec![Component {
        component: ComponentName::PaymentElement,
        feature: Feature::PaymentMethodRemove,
        value: Toggle::Enabled,
    }];
    let session = CustomerSession::create(
        id,
        scope.account_id.clone(),
        scope.livemode(),
        secret,
        customer.id.clone(),
        components,
        at(0),
    );
    write(store, |r| {
        r.customers().insert(&customer)?;
        r.customer_sessions().insert(&session)
    });
    assert_eq!(read(store, |r| r.customer_sessions().find(&scope, &session.id)), Some(session.clone()));
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.customer_sessions().find(&elsewhere, &session.id)), None, "from {elsewhere:?}");
        assert!(read(store, |r| r.customer_sessions().of_customer(&elsewhere, &customer.id, 10)).is_empty());
    }
    let second_id = CustomerSessionId::from_random("session2");
    let second = CustomerSession::create(
        second_id.clone(),
        scope.account_id.clone(),
        scope.livemode(),
        ClientSecret::new(second_id.as_str(), "secret"),
        customer.id.clone(),
        session.components.clone(),
        at(1),
    );
    write(store, |r| r.customer_sessions().insert(&second));
    let of_customer = read(store, |r| r.customer_sessions().of_customer(&scope, &customer.id, 10));
    assert_eq!(of_customer, vec![second.clone(), session.clone()], "newest first");
    assert_eq!(read(store, |r| r.customer_sessions().of_customer(&scope, &customer.id, 1)), vec![second]);
}
