//! The setup intent service over in-memory fakes: saving a card, declines, 3-D Secure, expiry,
//! cancellation, client secrets and scopes.

use crate::support::{card, customer, new_setup_intent};
use payments_application::pagination::PageRequest;
use payments_application::ports::EventFilter;
use payments_application::services::{
    Access, AuthorizationFlow, SetupAttachOutcome, SetupAttachRequest, SetupIntentView,
};
use payments_application::testing::TestPorts;
use payments_application::ApplicationError;
use payments_domain::account::Mode;
use payments_domain::event::EventType;
use payments_domain::payment_intent::{AuthorizationOutcome, PaymentError, REDIRECT_SECONDS};
use payments_domain::setup_intent::SetupIntentStatus;

fn request() -> SetupAttachRequest {
    SetupAttachRequest { card: card("4242424242424242"), billing: None, return_url: None }
}

fn attached(outcome: SetupAttachOutcome) -> SetupIntentView {
    match outcome {
        SetupAttachOutcome::Attached(view) => view,
        SetupAttachOutcome::Declined(_, error) => panic!("declined: {error:?}"),
    }
}

fn event_types(ports: &TestPorts, scope: &payments_application::Scope) -> Vec<EventType> {
    let page = ports
        .event_service()
        .list(scope, &EventFilter::default(), &PageRequest::new(Some(100), None, None).unwrap())
        .unwrap();
    page.data.into_iter().rev().map(|event| event.event_type).collect()
}

#[test]
fn an_approved_card_is_saved_for_the_customer() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let service = ports.setup_intent_service();
    let intent = service.create(&scope, new_setup_intent(&customer)).unwrap().intent;
    assert_eq!(intent.status(), SetupIntentStatus::AwaitingPaymentMethod);
    let view = attached(service.attach(&scope, intent.id().as_str(), Access::SecretKey, request()).unwrap());
    assert_eq!(view.intent.status(), SetupIntentStatus::Succeeded);
    let saved = view.intent.payment_method_id().unwrap().to_string();
    let methods = ports
        .payment_method_service()
        .list(&scope, customer.id.as_str(), Access::SecretKey, &PageRequest::default())
        .unwrap();
    assert_eq!(methods.data.iter().map(|m| m.id.to_string()).collect::<Vec<_>>(), vec![saved]);
    assert_eq!(methods.data[0].verified.card.last4, "4242");
    assert_eq!(event_types(&ports, &scope), vec![EventType::SetupIntentSucceeded]);
}

#[test]
fn a_declined_card_saves_nothing_and_says_why() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let service = ports.setup_intent_service();
    let intent = service.create(&scope, new_setup_intent(&customer)).unwrap().intent;
    ports
        .processor
        .answer(AuthorizationOutcome::Declined(PaymentError::new("card_declined", "The card was declined.")));
    let outcome = service.attach(&scope, intent.id().as_str(), Access::SecretKey, request()).unwrap();
    let SetupAttachOutcome::Declined(view, error) = outcome else { panic!("approved a declined card") };
    assert_eq!(error.code, "card_declined");
    assert_eq!(view.intent.status(), SetupIntentStatus::AwaitingPaymentMethod);
    assert_eq!(view.intent.last_setup_error().map(|e| e.code.as_str()), Some("card_declined"));
    let methods = ports
        .payment_method_service()
        .list(&scope, customer.id.as_str(), Access::SecretKey, &PageRequest::default())
        .unwrap();
    assert!(methods.data.is_empty(), "nothing saved");
}

#[test]
fn a_three_d_secure_card_is_saved_once_authenticated_and_not_when_the_wait_runs_out() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let service = ports.setup_intent_service();
    ports.processor.answer(AuthorizationOutcome::RedirectRequired);

    let first = service.create(&scope, new_setup_intent(&customer)).unwrap().intent;
    let waiting = attached(service.attach(&scope, first.id().as_str(), Access::SecretKey, request()).unwrap()).intent;
    assert_eq!(waiting.status(), SetupIntentStatus::AwaitingNextAction);
    let token = waiting.redirect_token().unwrap().to_owned();
    let done = service.complete_redirect(&token, true).unwrap();
    assert!(done.succeeded && !done.already_used, "{done:?}");
    let again = service.complete_redirect(&token, false).unwrap();
    assert!(again.already_used && again.succeeded, "a used page only shows what happened: {again:?}");
    let saved = service.retrieve(&scope, first.id().as_str(), Access::SecretKey).unwrap().intent;
    assert_eq!(saved.status(), SetupIntentStatus::Succeeded);

    let second = service.create(&scope, new_setup_intent(&customer)).unwrap().intent;
    service.attach(&scope, second.id().as_str(), Access::SecretKey, request()).unwrap();
    ports.clock.advance(REDIRECT_SECONDS);
    assert_eq!(ports.due_work().run(10).unwrap(), 1);
    let expired = service.retrieve(&scope, second.id().as_str(), Access::SecretKey).unwrap().intent;
    assert_eq!(expired.status(), SetupIntentStatus::AwaitingPaymentMethod);
    assert_eq!(expired.last_setup_error().map(|e| e.code.as_str()), Some("authentication_expired"));
    let methods = ports
        .payment_method_service()
        .list(&scope, customer.id.as_str(), Access::SecretKey, &PageRequest::default())
        .unwrap();
    assert_eq!(methods.data.len(), 1, "only the authenticated card is saved");
}

#[test]
fn a_canceled_intent_cannot_be_attached_nor_canceled_again() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let service = ports.setup_intent_service();
    let intent = service.create(&scope, new_setup_intent(&customer)).unwrap().intent;
    let canceled = service.cancel(&scope, intent.id().as_str()).unwrap().intent;
    assert_eq!(canceled.status(), SetupIntentStatus::Canceled);
    let attach = service.attach(&scope, intent.id().as_str(), Access::SecretKey, request());
    assert!(
        matches!(attach, Err(ApplicationError::InvalidState(ref m)) if m.to_string().contains("canceled")),
        "{attach:?}"
    );
    let cancel = service.cancel(&scope, intent.id().as_str());
    assert!(matches!(cancel, Err(ApplicationError::InvalidState(_))), "{cancel:?}");
}

#[test]
fn a_browser_needs_the_client_secret_and_other_scopes_see_nothing() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let service = ports.setup_intent_service();
    let intent = service.create(&scope, new_setup_intent(&customer)).unwrap().intent;
    let id = intent.id().as_str();
    assert!(service.retrieve(&scope, id, Access::ClientSecret(Some(intent.client_secret().reveal()))).is_ok());
    for wrong in [Access::ClientSecret(Some("wrong")), Access::ClientSecret(None)] {
        assert!(matches!(service.retrieve(&scope, id, wrong), Err(ApplicationError::Validation(_))));
        assert!(matches!(service.attach(&scope, id, wrong, request()), Err(ApplicationError::Validation(_))));
    }
    for elsewhere in [ports.scope(Mode::Live), ports.other_scope()] {
        let found = service.retrieve(&elsewhere, id, Access::SecretKey);
        assert!(matches!(found, Err(ApplicationError::NotFound { .. })), "{found:?}");
        let canceled = service.cancel(&elsewhere, id);
        assert!(matches!(canceled, Err(ApplicationError::NotFound { .. })), "{canceled:?}");
    }
    assert_eq!(service.retrieve(&scope, id, Access::SecretKey).unwrap().intent.status(), intent.status());
}

#[test]
fn a_customer_of_another_scope_cannot_get_a_setup_intent() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let created = ports.setup_intent_service().create(&ports.other_scope(), new_setup_intent(&customer));
    assert!(matches!(created, Err(ApplicationError::Validation(_))), "{created:?}");
}
