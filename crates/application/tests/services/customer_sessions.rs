//! The customer session and payment method services over in-memory fakes: what a browser holding a
//! session's client secret may see and delete, and for how long.

use crate::support::{customer, saved_card};
use payments_application::pagination::PageRequest;
use payments_application::services::Access;
use payments_application::testing::TestPorts;
use payments_application::ApplicationError;
use payments_domain::account::Mode;
use payments_domain::customer_session::{Component, ComponentName, Feature, Toggle};

fn components(features: &[Feature]) -> Vec<Component> {
    features
        .iter()
        .map(|&feature| Component { component: ComponentName::PaymentElement, feature, value: Toggle::Enabled })
        .collect()
}

#[test]
fn a_session_shows_its_customer_and_lets_a_browser_list_saved_cards() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let saved = saved_card(&ports, &scope, &customer);
    let sessions = ports.customer_session_service();
    let created = sessions.create(&scope, &customer.id, components(&[Feature::PaymentMethodRedisplay])).unwrap();
    assert_eq!((created.customer.id.clone(), created.expired), (customer.id.clone(), false));
    let secret = created.session.client_secret.reveal().to_owned();
    let id = created.session.id.to_string();

    let merchant = sessions.retrieve(&scope, &id, Access::SecretKey).unwrap();
    assert_eq!(merchant.payment_methods, None, "the merchant lists saved cards itself");
    let browser = sessions.retrieve(&scope, &id, Access::ClientSecret(Some(&secret))).unwrap();
    let shown: Vec<String> = browser.payment_methods.unwrap().iter().map(|m| m.id.to_string()).collect();
    assert_eq!(shown, vec![saved.clone()]);
    let listed = ports
        .payment_method_service()
        .list(&scope, customer.id.as_str(), Access::ClientSecret(Some(&secret)), &PageRequest::default())
        .unwrap();
    assert_eq!(listed.data.len(), 1);
    for wrong in [Access::ClientSecret(Some("wrong")), Access::ClientSecret(None)] {
        assert!(matches!(sessions.retrieve(&scope, &id, wrong), Err(ApplicationError::Validation(_))));
    }
}

#[test]
fn a_browser_deletes_a_saved_card_only_when_the_session_enables_it_and_has_not_expired() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let saved = saved_card(&ports, &scope, &customer);
    let sessions = ports.customer_session_service();
    let methods = ports.payment_method_service();
    let show_only = sessions.create(&scope, &customer.id, components(&[Feature::PaymentMethodRedisplay])).unwrap();
    let refused = methods.delete(
        &scope,
        customer.id.as_str(),
        &saved,
        Access::ClientSecret(Some(show_only.session.client_secret.reveal())),
    );
    assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");

    let remove = sessions.create(&scope, &customer.id, components(&[Feature::PaymentMethodRemove])).unwrap();
    let secret = remove.session.client_secret.reveal().to_owned();
    ports.clock.advance(24 * 3600);
    let expired = methods.delete(&scope, customer.id.as_str(), &saved, Access::ClientSecret(Some(&secret)));
    assert!(matches!(expired, Err(ApplicationError::Validation(_))), "an expired session: {expired:?}");
    let view = sessions.retrieve(&scope, remove.session.id.as_str(), Access::SecretKey).unwrap();
    assert!(view.expired);

    let fresh = sessions.create(&scope, &customer.id, components(&[Feature::PaymentMethodRemove])).unwrap();
    let secret = fresh.session.client_secret.reveal().to_owned();
    let deleted = methods.delete(&scope, customer.id.as_str(), &saved, Access::ClientSecret(Some(&secret))).unwrap();
    assert_eq!(deleted.id.to_string(), saved);
    let again = methods.delete(&scope, customer.id.as_str(), &saved, Access::SecretKey);
    assert!(matches!(again, Err(ApplicationError::NotFound { .. })), "{again:?}");
}

#[test]
fn sessions_and_saved_cards_stay_in_their_scope() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let saved = saved_card(&ports, &scope, &customer);
    let sessions = ports.customer_session_service();
    let session = sessions.create(&scope, &customer.id, components(&[Feature::PaymentMethodRemove])).unwrap();
    for elsewhere in [ports.scope(Mode::Live), ports.other_scope()] {
        let found = sessions.retrieve(&elsewhere, session.session.id.as_str(), Access::SecretKey);
        assert!(matches!(found, Err(ApplicationError::NotFound { .. })), "{found:?}");
        let created = sessions.create(&elsewhere, &customer.id, Vec::new());
        assert!(matches!(created, Err(ApplicationError::Validation(_))), "{created:?}");
        let methods = ports.payment_method_service();
        let listed = methods.list(&elsewhere, customer.id.as_str(), Access::SecretKey, &PageRequest::default());
        assert!(matches!(listed, Err(ApplicationError::NotFound { .. })), "{listed:?}");
        let deleted = methods.delete(&elsewhere, customer.id.as_str(), &saved, Access::SecretKey);
        assert!(matches!(deleted, Err(ApplicationError::NotFound { .. })), "{deleted:?}");
    }
    let listed = ports
        .payment_method_service()
        .list(&scope, customer.id.as_str(), Access::SecretKey, &PageRequest::default())
        .unwrap();
    assert_eq!(listed.data.len(), 1, "nothing deleted from elsewhere");
}
