//! The authorization flow's hooks, written once for both intents: a processing authorization the
//! processor answers later (settled by hand, or finished by the clock), and the setup intent's
//! intervention when its customer is deleted while a card waits.

use crate::support::{card, card_payment, customer, new_setup_intent};
use payments_application::pagination::PageRequest;
use payments_application::services::{
    Access, AttachOutcome, AuthorizationFlow, SetupAttachOutcome, SetupAttachRequest, SetupIntentView,
};
use payments_application::testing::{card_intent, TestPorts};
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::customer::Customer;
use payments_domain::payment_intent::{AuthorizationOutcome, PaymentError, PaymentIntentStatus, REDIRECT_SECONDS};
use payments_domain::pending_authorization::Verdict;
use payments_domain::setup_intent::SetupIntentStatus;

const PROCESSING_SECONDS: i64 = 60;

fn processing(ports: &TestPorts) -> AuthorizationOutcome {
    use payments_application::ports::Clock;
    AuthorizationOutcome::Processing { finishes_at: ports.clock.now().plus_seconds(PROCESSING_SECONDS) }
}

fn setup_request() -> SetupAttachRequest {
    SetupAttachRequest { card: card("4242424242424242"), billing: None, return_url: None }
}

/// A setup intent of `customer` whose card now waits for what the processor answered last.
fn waiting_setup_intent(ports: &TestPorts, scope: &Scope, customer: &Customer) -> SetupIntentView {
    let service = ports.setup_intent_service();
    let intent = service.create(scope, new_setup_intent(customer)).unwrap().intent;
    match service.attach(scope, intent.id().as_str(), Access::SecretKey, setup_request()).unwrap() {
        SetupAttachOutcome::Attached(view) => view,
        SetupAttachOutcome::Declined(_, error) => panic!("declined: {error:?}"),
    }
}

fn saved_cards(ports: &TestPorts, scope: &Scope, customer: &Customer) -> usize {
    let methods = ports.payment_method_service().list(scope, customer.id.as_str(), Access::SecretKey, &PageRequest::default());
    methods.unwrap().data.len()
}

#[test]
fn a_processing_payment_is_settled_by_hand_either_way_and_only_once() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let service = ports.payment_intent_service();
    let mut ids = Vec::new();
    for _ in 0..2 {
        ports.processor.answer(processing(&ports));
        let intent = service.create(&scope, card_intent(10_000)).unwrap().intent;
        let AttachOutcome::Attached(view) =
            service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap()
        else {
            panic!("a processing answer is no decline")
        };
        assert_eq!(view.intent.status(), PaymentIntentStatus::Processing);
        ids.push(intent.id().to_string());
    }

    let approved = service.settle_processing(&scope, &ids[0], &Verdict::Approve).unwrap();
    assert_eq!(approved.intent.status(), PaymentIntentStatus::Succeeded);
    assert!(approved.latest_payment.is_some(), "an approval makes the payment");

    let decline = PaymentError::new("insufficient_funds", "The card has insufficient funds.");
    let declined = service.settle_processing(&scope, &ids[1], &Verdict::Decline(Some(decline))).unwrap();
    assert_eq!(declined.intent.status(), PaymentIntentStatus::AwaitingPaymentMethod);
    assert_eq!(declined.intent.last_payment_error().map(|e| e.code.as_str()), Some("insufficient_funds"));

    let again = service.settle_processing(&scope, &ids[0], &Verdict::Decline(None));
    assert!(matches!(again, Err(ApplicationError::InvalidState(_))), "{again:?}");
    let other_mode = service.settle_processing(&ports.scope(Mode::Live), &ids[1], &Verdict::Approve);
    assert!(matches!(other_mode, Err(ApplicationError::NotFound { .. })), "{other_mode:?}");
}

#[test]
fn a_processing_authorization_finishes_by_the_clock_for_either_intent() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let payments = ports.payment_intent_service();
    ports.processor.answer(processing(&ports));
    let payment = payments.create(&scope, card_intent(10_000)).unwrap().intent;
    payments.attach(&scope, payment.id().as_str(), Access::SecretKey, card_payment()).unwrap();
    ports.processor.answer(processing(&ports));
    let setup = waiting_setup_intent(&ports, &scope, &customer).intent;
    assert_eq!(setup.status(), SetupIntentStatus::Processing);

    ports.clock.advance(PROCESSING_SECONDS - 1);
    assert_eq!(ports.due_work().run(10).unwrap(), 0, "nothing finishes before its time");
    ports.clock.advance(1);
    assert_eq!(ports.due_work().run(10).unwrap(), 2);

    let paid = payments.retrieve(&scope, payment.id().as_str(), Access::SecretKey).unwrap();
    assert_eq!(paid.intent.status(), PaymentIntentStatus::Succeeded);
    let saved = ports.setup_intent_service().retrieve(&scope, setup.id().as_str(), Access::SecretKey).unwrap();
    assert_eq!(saved.intent.status(), SetupIntentStatus::Succeeded);
    assert_eq!(saved_cards(&ports, &scope, &customer), 1);
    assert_eq!(ports.due_work().run(10).unwrap(), 0, "a finished authorization is not due again");
}

#[test]
fn a_card_waiting_for_its_customer_is_not_saved_once_the_customer_is_deleted() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let customer = customer(&ports, &scope);
    let service = ports.setup_intent_service();

    // Authenticated on the test page after the customer was deleted.
    ports.processor.answer(AuthorizationOutcome::RedirectRequired);
    let redirected = waiting_setup_intent(&ports, &scope, &customer).intent;
    let token = redirected.redirect_token().unwrap().to_owned();
    // Settled by hand after the customer was deleted.
    ports.processor.answer(processing(&ports));
    let settled = waiting_setup_intent(&ports, &scope, &customer).intent;
    // Left to the clock after the customer was deleted.
    ports.processor.answer(AuthorizationOutcome::RedirectRequired);
    let left = waiting_setup_intent(&ports, &scope, &customer).intent;

    ports.customer_service().delete(&scope, customer.id.as_str()).unwrap();

    let completion = service.complete_redirect(&token, true).unwrap();
    assert!(!completion.succeeded && !completion.already_used, "{completion:?}");
    let view = service.settle_processing(&scope, settled.id().as_str(), &Verdict::Approve).unwrap();
    assert_eq!(view.intent.status(), SetupIntentStatus::Canceled);
    ports.clock.advance(REDIRECT_SECONDS);
    assert_eq!(ports.due_work().run(10).unwrap(), 1);

    for id in [redirected.id(), settled.id(), left.id()] {
        let intent = service.retrieve(&scope, id.as_str(), Access::SecretKey).unwrap().intent;
        assert_eq!(intent.status(), SetupIntentStatus::Canceled, "{id}");
        assert!(intent.payment_method_id().is_none(), "{id} saved nothing");
    }
    let used = service.complete_redirect(&token, true).unwrap();
    assert!(used.already_used && !used.succeeded, "the page now only tells how it ended: {used:?}");
}
