//! Webhook and delivery services over in-memory fakes: fan-out, leases, retries, giving up, and what
//! disabling and deleting do to pending deliveries.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use payments_application::pagination::PageRequest;
use payments_application::testing::TestPorts;
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::event::EventType;
use payments_domain::webhook::{AttemptOutcome, NewWebhook, WebhookUrl};
use serde_json::json;

fn webhook(ports: &TestPorts, scope: &Scope, events: &[&str]) -> String {
    let names: Vec<String> = events.iter().map(|e| (*e).to_owned()).collect();
    let new = NewWebhook {
        url: WebhookUrl::new("http://127.0.0.1:9/hooks".into()).unwrap(),
        events: EventType::parse_list(&names).unwrap(),
        description: None,
    };
    ports.webhook_service().create(scope, new).unwrap().id().to_string()
}

/// Appends an event the way services do, through a refund-free path: a payment intent cancel.
fn emit(ports: &TestPorts, scope: &Scope) {
    let service = ports.payment_intent_service();
    let new = payments_domain::payment_intent::NewPaymentIntent {
        amount: payments_domain::money::Amount::new(5_000).unwrap(),
        currency: payments_domain::money::Currency::Php,
        payment_methods: vec![payments_domain::payment_method::PaymentMethodType::Card],
        statement_descriptor: None,
        description: None,
        metadata: None,
        customer_id: None,
        return_url: None,
        card_options: payments_domain::payment_intent::CardOptions::default(),
    };
    let intent = service.create(scope, new).unwrap().intent;
    service.cancel(scope, intent.id().as_str()).unwrap();
}

fn pending_webhooks(ports: &TestPorts, scope: &Scope) -> i64 {
    let page = ports.event_service().list(scope, &PageRequest::default()).unwrap();
    page.data.iter().map(|e| e.pending_webhooks).sum()
}

fn outcome(status: u16) -> AttemptOutcome {
    AttemptOutcome { status_code: Some(status), error: None, duration_ms: 3 }
}

#[test]
fn an_event_is_delivered_to_each_enabled_webhook_that_lists_its_type() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    webhook(&ports, &scope, &[EventType::PaymentIntentCanceled.as_str()]);
    webhook(&ports, &scope, &["payment.paid"]);
    let disabled = webhook(&ports, &scope, &[EventType::PaymentIntentCanceled.as_str()]);
    ports.webhook_service().disable(&scope, &disabled).unwrap();
    webhook(&ports, &ports.scope(Mode::Live), &[EventType::PaymentIntentCanceled.as_str()]);
    emit(&ports, &scope);
    assert_eq!(pending_webhooks(&ports, &scope), 1);
    let jobs = ports.delivery_service().claim_due("a", 10, 30_000).unwrap();
    assert_eq!(jobs.len(), 1);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&jobs[0].body).unwrap()["type"],
        json!("payment_intent.canceled")
    );
}

#[test]
fn a_claimed_delivery_is_not_claimed_again_until_its_lease_runs_out() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    webhook(&ports, &scope, &["payment_intent.canceled"]);
    emit(&ports, &scope);
    let deliveries = ports.delivery_service();
    assert_eq!(deliveries.claim_due("a", 10, 30_000).unwrap().len(), 1);
    assert!(deliveries.claim_due("b", 10, 30_000).unwrap().is_empty());
    ports.clock.advance(31);
    let taken_over = deliveries.claim_due("b", 10, 30_000).unwrap();
    assert_eq!(taken_over.len(), 1, "a dead owner's delivery is taken over");
    deliveries.record("a", &[(taken_over[0].clone(), outcome(200))]).unwrap();
    assert_eq!(pending_webhooks(&ports, &scope), 1, "the old owner's late answer is ignored");
    deliveries.record("b", &[(taken_over[0].clone(), outcome(200))]).unwrap();
    assert_eq!(pending_webhooks(&ports, &scope), 0);
}

#[test]
fn failures_are_retried_with_backoff_and_given_up_after_the_window() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let id = webhook(&ports, &scope, &["payment_intent.canceled"]);
    emit(&ports, &scope);
    let deliveries = ports.delivery_service();
    let job = deliveries.claim_due("a", 10, 30_000).unwrap().remove(0);
    deliveries.record("a", &[(job, outcome(500))]).unwrap();
    assert!(deliveries.claim_due("a", 10, 30_000).unwrap().is_empty(), "not due before the backoff");
    ports.clock.advance(1);
    let job = deliveries.claim_due("a", 10, 30_000).unwrap().remove(0);
    deliveries.record("a", &[(job, outcome(500))]).unwrap();
    ports.clock.advance(1);
    assert!(deliveries.claim_due("a", 10, 30_000).unwrap().is_empty(), "the second wait is longer");
    ports.clock.advance(3_600);
    let job = deliveries.claim_due("a", 10, 30_000).unwrap().remove(0);
    deliveries.record("a", &[(job, outcome(500))]).unwrap();
    ports.clock.advance(3_600);
    assert!(deliveries.claim_due("a", 10, 30_000).unwrap().is_empty(), "failed for good");
    assert_eq!(pending_webhooks(&ports, &scope), 0);
    assert_eq!(ports.webhook_service().attempts(&scope, &id, 10).unwrap().len(), 3);
}

#[test]
fn disabling_pauses_deliveries_and_deleting_cancels_them() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let id = webhook(&ports, &scope, &["payment_intent.canceled"]);
    emit(&ports, &scope);
    let service = ports.webhook_service();
    service.disable(&scope, &id).unwrap();
    assert!(ports.delivery_service().claim_due("a", 10, 30_000).unwrap().is_empty());
    service.enable(&scope, &id).unwrap();
    assert_eq!(ports.delivery_service().claim_due("a", 10, 1).unwrap().len(), 1);
    ports.clock.advance(1);
    service.delete(&scope, &id).unwrap();
    assert!(ports.delivery_service().claim_due("b", 10, 30_000).unwrap().is_empty());
    assert_eq!(pending_webhooks(&ports, &scope), 0);
    assert!(matches!(service.retrieve(&scope, &id), Err(ApplicationError::NotFound { .. })));
}

#[test]
fn a_refused_url_is_a_parameter_error() {
    let ports = TestPorts::new();
    let url = WebhookUrl::new("http://refused/".into()).unwrap();
    let new = NewWebhook { url, events: vec![EventType::PaymentPaid], description: None };
    let refused = ports.webhook_service().create(&ports.scope(Mode::Live), new);
    assert!(matches!(refused, Err(ApplicationError::Validation(ref errors)) if errors[0].parameter == "url"));
}
