//! Payment intent, refund and event services over in-memory fakes of every port.

use crate::support::card_payment;
use payments_application::pagination::PageRequest;
use payments_application::ports::{EventFilter, PaymentMethodInput};
use payments_application::services::{Access, AttachOutcome, AttachRequest, AuthorizationFlow, PaymentIntentView};
use payments_application::testing::{card_intent, TestPorts};
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::description::Description;
use payments_domain::money::{Amount, Currency};
use payments_domain::payment::PaymentStatus;
use payments_domain::payment_intent::{
    AuthorizationOutcome, CaptureType, CardOptions, NewPaymentIntent, PaymentError, PaymentIntentStatus, HOLD_SECONDS,
    REDIRECT_SECONDS,
};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::refund::NewRefund;
use payments_domain::refund::RefundReason;

fn new_intent(capture_type: CaptureType) -> NewPaymentIntent {
    NewPaymentIntent {
        amount: Amount::new(10_000).unwrap(),
        currency: Currency::Php,
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        statement_descriptor: None,
        description: Some(Description::new("Order 1".into()).unwrap()),
        metadata: None,
        customer_id: None,
        return_url: Some(
            payments_domain::redirect_url::RedirectUrl::new("https://shop.example/return".into()).unwrap(),
        ),
        card_options: CardOptions { capture_type, ..CardOptions::default() },
    }
}

fn attached(outcome: AttachOutcome) -> PaymentIntentView {
    match outcome {
        AttachOutcome::Attached(view) => view,
        AttachOutcome::Declined(_, error) => panic!("declined: {error:?}"),
    }
}

fn event_types(ports: &TestPorts, scope: &Scope) -> Vec<String> {
    let page = ports
        .event_service()
        .list(scope, &EventFilter::default(), &PageRequest::new(Some(100), None, None).unwrap())
        .unwrap();
    page.data.into_iter().rev().map(|e| e.event_type.as_str().to_owned()).collect()
}

#[test]
fn an_approved_card_succeeds_with_a_paid_payment_and_two_events() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    let intent = service.create(&scope, new_intent(CaptureType::Automatic)).unwrap().intent;
    let view = attached(service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap());
    assert_eq!(view.intent.status(), PaymentIntentStatus::Succeeded);
    let payment = view.latest_payment.unwrap();
    assert_eq!(
        (payment.status(), payment.amount(), payment.fee(), payment.net_amount()),
        (PaymentStatus::Paid, 10_000, 100, 9_900)
    );
    assert_eq!(payment.payment_method().card.as_ref().unwrap().last4, "4242");
    assert_eq!(event_types(&ports, &scope), vec!["payment_intent.succeeded", "payment.paid"]);
}

#[test]
fn a_decline_records_a_failed_payment_and_reports_its_code() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    let intent = service.create(&scope, new_intent(CaptureType::Automatic)).unwrap().intent;
    let error = PaymentError::new("funds_insufficient", "Not enough funds.");
    ports.processor.answer(AuthorizationOutcome::Declined(error.clone()));
    let AttachOutcome::Declined(view, reported) =
        service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap()
    else {
        panic!("expected a decline");
    };
    assert_eq!(reported, error);
    assert_eq!(view.intent.status(), PaymentIntentStatus::AwaitingPaymentMethod);
    assert_eq!(view.latest_payment.unwrap().status(), PaymentStatus::Failed);
    assert_eq!(event_types(&ports, &scope), vec!["payment.failed"]);
    ports.processor.answer(AuthorizationOutcome::Approved);
    let retried = attached(service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap());
    assert_eq!(retried.intent.status(), PaymentIntentStatus::Succeeded, "a declined intent can be paid again");
}

#[test]
fn a_manual_hold_is_captured_partially_and_refunded_up_to_the_capture() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    let intent = service.create(&scope, new_intent(CaptureType::Manual)).unwrap().intent;
    let held = attached(service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap());
    assert_eq!((held.intent.status(), held.intent.amount_capturable()), (PaymentIntentStatus::AwaitingCapture, 10_000));
    let captured = service.capture(&scope, intent.id().as_str(), Some(Amount::new(6_000).unwrap())).unwrap();
    let payment = captured.latest_payment.unwrap();
    assert_eq!((captured.intent.amount_received(), payment.amount()), (6_000, 6_000));
    let refund = |amount| NewRefund {
        amount,
        currency: Currency::Php,
        payment_id: payment.id().to_string(),
        reason: RefundReason::Others,
        description: None,
        remarks: None,
        metadata: None,
    };
    ports.refund_service().create(&scope, &refund(4_000)).unwrap();
    assert!(matches!(ports.refund_service().create(&scope, &refund(2_001)), Err(ApplicationError::Validation(_))));
    ports.refund_service().create(&scope, &refund(2_000)).unwrap();
    let refunded = ports.payment_service().retrieve(&scope, payment.id().as_str()).unwrap().payment;
    assert_eq!((refunded.amount_refunded(), refunded.refunded()), (6_000, true));
    assert_eq!(
        event_types(&ports, &scope),
        vec![
            "payment_intent.awaiting_capture",
            "payment_intent.succeeded",
            "payment.paid",
            "refund.created",
            "payment.refunded",
            "refund.created",
            "payment.refunded"
        ]
    );
}

#[test]
fn an_unused_hold_is_released_after_seven_days() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    let intent = service.create(&scope, new_intent(CaptureType::Manual)).unwrap().intent;
    service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap();
    assert_eq!(ports.due_work().run(10).unwrap(), 0);
    ports.clock.advance(HOLD_SECONDS);
    assert_eq!(ports.due_work().run(10).unwrap(), 1);
    let released = service.retrieve(&scope, intent.id().as_str(), Access::SecretKey).unwrap().intent;
    assert_eq!((released.status(), released.amount_capturable()), (PaymentIntentStatus::Canceled, 0));
    assert_eq!(event_types(&ports, &scope).last().map(String::as_str), Some("payment_intent.canceled"));
}

#[test]
fn a_redirect_is_completed_once_through_its_token_or_expires() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    ports.processor.answer(AuthorizationOutcome::RedirectRequired);
    let gcash = || AttachRequest {
        method: PaymentMethodInput::Redirect(PaymentMethodType::Gcash).into(),
        billing: None,
        return_url: None,
        save_with_session: None,
    };
    let first = service.create(&scope, new_intent(CaptureType::Automatic)).unwrap().intent;
    let waiting = attached(service.attach(&scope, first.id().as_str(), Access::SecretKey, gcash()).unwrap()).intent;
    let token = waiting.redirect_token().unwrap().to_owned();
    assert_eq!(service.redirect_page(&token).unwrap().method, PaymentMethodType::Gcash);
    let done = service.complete_redirect(&token, true).unwrap();
    assert!(done.succeeded);
    assert_eq!(done.return_url.as_deref(), Some("https://shop.example/return"));
    let again = service.complete_redirect(&token, false).unwrap();
    assert!(again.already_used && again.succeeded, "a used token only shows what happened: {again:?}");
    let events = ports.event_service().list(&scope, &EventFilter::default(), &PageRequest::default()).unwrap();
    let paid = events.data.iter().filter(|e| e.event_type == payments_domain::event::EventType::PaymentPaid).count();
    assert_eq!(paid, 1, "paid once");
    let unknown = service.complete_redirect("no-such-token", true);
    assert!(matches!(unknown, Err(ApplicationError::NotFound { .. })), "{unknown:?}");

    let second = service.create(&scope, new_intent(CaptureType::Automatic)).unwrap().intent;
    service.attach(&scope, second.id().as_str(), Access::SecretKey, gcash()).unwrap();
    ports.clock.advance(REDIRECT_SECONDS);
    assert_eq!(ports.due_work().run(10).unwrap(), 1);
    let expired = service.retrieve(&scope, second.id().as_str(), Access::SecretKey).unwrap().intent;
    assert_eq!(expired.status(), PaymentIntentStatus::AwaitingPaymentMethod);
    assert_eq!(expired.last_payment_error().unwrap().code, "authentication_expired");
}

#[test]
fn a_public_caller_needs_the_right_client_secret() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    let intent = service.create(&scope, new_intent(CaptureType::Automatic)).unwrap().intent;
    let id = intent.id().as_str();
    assert!(service.retrieve(&scope, id, Access::ClientSecret(Some(intent.client_secret().reveal()))).is_ok());
    assert!(matches!(
        service.retrieve(&scope, id, Access::ClientSecret(Some("wrong"))),
        Err(ApplicationError::Validation(_))
    ));
    assert!(matches!(service.retrieve(&scope, id, Access::ClientSecret(None)), Err(ApplicationError::Validation(_))));
}

#[test]
fn live_mode_without_a_processor_is_unavailable() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Live);
    let intent = service.create(&scope, new_intent(CaptureType::Automatic)).unwrap().intent;
    assert!(matches!(
        service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()),
        Err(ApplicationError::NotConfigured(reason)) if reason.contains("No live payment processor")
    ));
}

#[test]
fn wrong_moves_are_refused_with_the_current_status() {
    let ports = TestPorts::new();
    let service = ports.payment_intent_service();
    let scope = ports.scope(Mode::Test);
    let intent = service.create(&scope, new_intent(CaptureType::Automatic)).unwrap().intent;
    let capture = service.capture(&scope, intent.id().as_str(), Some(Amount::new(2_000).unwrap()));
    assert!(
        matches!(capture, Err(ApplicationError::InvalidState(ref m)) if m.to_string().contains("awaiting_payment_method")),
        "{capture:?}"
    );
    service.attach(&scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap();
    let cancel = service.cancel(&scope, intent.id().as_str());
    assert!(
        matches!(cancel, Err(ApplicationError::InvalidState(ref m)) if m.to_string().contains("succeeded")),
        "{cancel:?}"
    );
}

#[test]
fn the_overview_counts_the_last_days_intents_by_status_over_the_latest_ones_only() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let intents = ports.payment_intent_service();
    let overview = ports.overview_service();
    intents.create(&scope, card_intent(10_000)).unwrap();
    ports.clock.advance(2 * 24 * 60 * 60);
    let first = intents.create(&scope, card_intent(20_000)).unwrap();
    intents.create(&scope, card_intent(30_000)).unwrap();
    intents.cancel(&scope, first.intent.id().as_str()).unwrap();
    let counted = overview.overview(&scope, 10, 10).unwrap().counts;
    let by_status: Vec<(&str, i64)> = counted.counts.iter().map(|c| (c.status.as_str(), c.count)).collect();
    assert_eq!(by_status, [("awaiting_payment_method", 1), ("canceled", 1)], "not the one of two days ago");
    assert!(counted.complete);
    let latest_two = overview.overview(&scope, 10, 2).unwrap().counts;
    assert_eq!(latest_two.counts.iter().map(|c| c.count).sum::<i64>(), 2);
    assert!(!latest_two.complete, "both latest are recent: older recent ones may be left out");
    assert!(overview.overview(&ports.other_scope(), 10, 10).unwrap().counts.counts.is_empty());
}
