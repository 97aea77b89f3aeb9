//! Test clocks over in-memory fakes: an advance moves one account's test mode only, never back, and
//! performs what fell due in the order it fell due, each at its own time; the background job visits
//! moved clocks.

use crate::support::card_payment;
use payments_application::pagination::PageRequest;
use payments_application::ports::{Clock, EventFilter, PaymentMethodInput};
use payments_application::services::{Access, AttachRequest};
use payments_application::testing::{card_intent, TestPorts};
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::payment_intent::{
    AuthorizationOutcome, CaptureType, CardOptions, NewPaymentIntent, PaymentIntentStatus, HOLD_SECONDS,
};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::pending_authorization::REDIRECT_SECONDS;
use payments_domain::test_clock::ClockMove;
use payments_domain::time::Timestamp;
use payments_domain::validation::ErrorCode;

/// A ₱100.00 intent for cards and GCash, captured as `capture_type` says.
fn intent(capture_type: CaptureType) -> NewPaymentIntent {
    NewPaymentIntent {
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        card_options: CardOptions { capture_type, ..CardOptions::default() },
        ..card_intent(10_000)
    }
}

/// The scope's events as (type, time), oldest first.
fn events(ports: &TestPorts, scope: &Scope) -> Vec<(String, Timestamp)> {
    let page = PageRequest::new(Some(100), None, None).unwrap();
    let listed = ports.event_service().list(scope, &EventFilter::default(), &page).unwrap();
    listed.data.into_iter().rev().map(|e| (e.event_type.as_str().to_owned(), e.created_at)).collect()
}

#[test]
fn an_advance_performs_what_fell_due_in_order_each_at_its_time() {
    let ports = TestPorts::new();
    let intents = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    let start = ports.clock.now();
    let held = intents.create(&scope, intent(CaptureType::Manual)).unwrap().intent;
    intents.attach(&scope, held.id().as_str(), Access::SecretKey, card_payment()).unwrap();
    ports.processor.answer(AuthorizationOutcome::RedirectRequired);
    let wallet = intents.create(&scope, intent(CaptureType::Automatic)).unwrap().intent;
    let gcash = AttachRequest {
        method: PaymentMethodInput::Redirect(PaymentMethodType::Gcash).into(),
        billing: None,
        return_url: None,
        save_with_session: None,
    };
    intents.attach(&scope, wallet.id().as_str(), Access::SecretKey, gcash).unwrap();

    let clock = ports.test_clock_service().advance(&scope, ClockMove::By { seconds: HOLD_SECONDS + 60 }).unwrap();
    assert_eq!(clock.seconds_ahead(), HOLD_SECONDS + 60);
    let read = |id: &str| intents.retrieve(&scope, id, Access::SecretKey).unwrap().intent;
    assert_eq!(read(held.id().as_str()).status(), PaymentIntentStatus::Canceled);
    assert_eq!(read(wallet.id().as_str()).status(), PaymentIntentStatus::AwaitingPaymentMethod);
    let due: Vec<(String, Timestamp)> =
        events(&ports, &scope).into_iter().filter(|(kind, _)| kind != "payment_intent.awaiting_capture").collect();
    assert_eq!(
        due,
        vec![
            ("payment.failed".to_owned(), start.plus_seconds(REDIRECT_SECONDS)),
            ("payment_intent.canceled".to_owned(), start.plus_seconds(HOLD_SECONDS)),
        ],
        "the abandoned redirect first, then the hold, each at its time"
    );
}

#[test]
fn a_clock_moves_only_its_accounts_test_mode_and_never_back() {
    let ports = TestPorts::new();
    let service = ports.test_clock_service();
    let scope = ports.scope(Mode::Test);
    service.advance(&scope, ClockMove::By { seconds: 3_600 }).unwrap();
    assert_eq!(ports.clock.now_in(&scope).unwrap(), ports.clock.now().plus_seconds(3_600));
    assert_eq!(ports.clock.now_in(&ports.other_scope()).unwrap(), ports.clock.now(), "another account");
    assert_eq!(ports.clock.now_in(&ports.scope(Mode::Live)).unwrap(), ports.clock.now(), "live mode");
    let back = service.advance(&scope, ClockMove::To(ports.clock.now())).unwrap_err();
    let ApplicationError::Validation(errors) = back else { panic!("{back:?}") };
    assert_eq!((errors[0].parameter.as_str(), errors[0].code), ("to", ErrorCode::ParameterBelowMinimum));
    let live = service.retrieve(&ports.scope(Mode::Live));
    assert!(matches!(live, Err(ApplicationError::Validation(_))), "{live:?}");
    assert_eq!(service.retrieve(&scope).unwrap().seconds_ahead(), 3_600, "a refused move moved nothing");
}

#[test]
fn the_background_job_visits_moved_clocks() {
    let ports = TestPorts::new();
    let intents = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    ports.test_clock_service().advance(&scope, ClockMove::By { seconds: 86_400 }).unwrap();
    let held = intents.create(&scope, intent(CaptureType::Manual)).unwrap().intent;
    intents.attach(&scope, held.id().as_str(), Access::SecretKey, card_payment()).unwrap();
    // Seven days on the account's clock, but a day less in real time: only its clock says it is due.
    ports.clock.advance(HOLD_SECONDS + 1);
    assert_eq!(ports.due_work().run(10).unwrap(), 1);
    let released = intents.retrieve(&scope, held.id().as_str(), Access::SecretKey).unwrap().intent;
    assert_eq!(released.status(), PaymentIntentStatus::Canceled);
}
