//! Webhook and delivery services over in-memory fakes: fan-out, leases, retries, giving up, what
//! disabling and deleting do to pending deliveries, the limits that keep one endpoint or account from
//! taking every slot, and the back-off of an endpoint that stops answering.

use payments_application::pagination::PageRequest;
use payments_application::ports::EventFilter;
use payments_application::services::DeliveryJob;
use payments_application::testing::TestPorts;
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::event::EventType;
use payments_domain::webhook::{NewWebhook, WebhookUrl};
use payments_domain::webhook_delivery::{AttemptOutcome, DeliveryLimits, DeliveryLoad};
use serde_json::json;

/// Limits that never bind in these tests but where a test says so.
const ROOMY: DeliveryLimits = DeliveryLimits { total: 64, per_endpoint: 16, per_account: 32 };

/// Claims what is due for `owner` with nothing in flight, leased for 30 s.
fn claim(ports: &TestPorts, owner: &str) -> Vec<DeliveryJob> {
    ports.delivery_service().claim_due(owner, 30_000, &DeliveryLoad::new(ROOMY)).unwrap().jobs
}

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
    let page = ports.event_service().list(scope, &EventFilter::default(), &PageRequest::default()).unwrap();
    page.data.iter().map(|e| e.pending_webhooks).sum()
}

fn outcome(status: u16) -> AttemptOutcome {
    AttemptOutcome { status_code: Some(status), error: None, duration_ms: 3, response_excerpt: None }
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
    let jobs = claim(&ports, "a");
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
    assert_eq!(claim(&ports, "a").len(), 1);
    assert!(claim(&ports, "b").is_empty());
    ports.clock.advance(31);
    let taken_over = claim(&ports, "b");
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
    let job = claim(&ports, "a").remove(0);
    deliveries.record("a", &[(job, outcome(500))]).unwrap();
    assert!(claim(&ports, "a").is_empty(), "not due before the backoff");
    ports.clock.advance(1);
    let job = claim(&ports, "a").remove(0);
    deliveries.record("a", &[(job, outcome(500))]).unwrap();
    ports.clock.advance(1);
    assert!(claim(&ports, "a").is_empty(), "the second wait is longer");
    ports.clock.advance(3_600);
    let job = claim(&ports, "a").remove(0);
    deliveries.record("a", &[(job, outcome(500))]).unwrap();
    ports.clock.advance(3_600);
    assert!(claim(&ports, "a").is_empty(), "failed for good");
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
    assert!(claim(&ports, "a").is_empty());
    service.enable(&scope, &id).unwrap();
    let one_ms_lease = ports.delivery_service().claim_due("a", 1, &DeliveryLoad::new(ROOMY)).unwrap().jobs;
    assert_eq!(one_ms_lease.len(), 1);
    ports.clock.advance(1);
    service.delete(&scope, &id).unwrap();
    assert!(claim(&ports, "b").is_empty());
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

fn no_answer() -> AttemptOutcome {
    AttemptOutcome { status_code: None, error: Some("timed out".into()), duration_ms: 10_000, response_excerpt: None }
}

fn webhook_ids(jobs: &[DeliveryJob]) -> Vec<String> {
    let mut ids: Vec<String> = jobs.iter().map(|job| job.delivery.webhook_id().to_string()).collect();
    ids.sort();
    ids
}

#[test]
fn an_event_sent_to_several_webhooks_reaches_each_of_them_in_one_claim() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let mut ids: Vec<String> = (0..3).map(|_| webhook(&ports, &scope, &["payment_intent.canceled"])).collect();
    ids.sort();
    emit(&ports, &scope);
    let jobs = claim(&ports, "a");
    assert_eq!(webhook_ids(&jobs), ids, "one claim, every webhook");
    assert!(jobs.iter().all(|job| job.body == jobs[0].body && !job.body.is_empty()), "the same event to each");
    assert_eq!(pending_webhooks(&ports, &scope), 3);
    let attempts: Vec<_> = jobs.into_iter().map(|job| (job, outcome(200))).collect();
    ports.delivery_service().record("a", &attempts).unwrap();
    assert_eq!(pending_webhooks(&ports, &scope), 0, "the live count went down with each delivery");
    assert!(claim(&ports, "b").is_empty(), "nothing was left locked or pending");
}

#[test]
fn a_full_endpoint_or_account_is_passed_over_so_another_accounts_delivery_goes() {
    let ports = TestPorts::new();
    let (busy, other) = (ports.scope(Mode::Test), ports.other_scope());
    let busy_webhook = webhook(&ports, &busy, &["payment_intent.canceled"]);
    let other_webhook = webhook(&ports, &other, &["payment_intent.canceled"]);
    for _ in 0..6 {
        emit(&ports, &busy);
    }
    emit(&ports, &other);
    let deliveries = ports.delivery_service();
    let limits = DeliveryLimits { total: 8, per_endpoint: 2, per_account: 4 };
    let mut load = DeliveryLoad::new(limits);
    let first = deliveries.claim_due("a", 30_000, &load).unwrap();
    assert!(first.more_due, "the busy endpoint had more due than its limit");
    assert_eq!(webhook_ids(&first.jobs), {
        let mut expected = vec![busy_webhook.clone(), busy_webhook.clone(), other_webhook.clone()];
        expected.sort();
        expected
    });
    for job in &first.jobs {
        load.start(&job.delivery, job.health);
    }
    // The busy endpoint is full: a look passes over its deliveries, older than any other's, and
    // says more may be due (the sender looks again when a slot frees).
    let second = deliveries.claim_due("a", 30_000, &load).unwrap();
    assert!(second.jobs.is_empty(), "{:?}", webhook_ids(&second.jobs));
    assert!(second.more_due, "the passed-over endpoint has more due");
    emit(&ports, &other);
    let third = deliveries.claim_due("a", 30_000, &load).unwrap();
    assert_eq!(webhook_ids(&third.jobs), vec![other_webhook], "the other account's new event goes at once");
    load.finish(&first.jobs[0].delivery);
    let after = deliveries.claim_due("a", 30_000, &load).unwrap().jobs;
    assert_eq!(after.len(), 1, "a freed slot takes the next one");
}

#[test]
fn an_endpoint_that_stops_answering_is_backed_off_with_all_its_deliveries() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    webhook(&ports, &scope, &["payment_intent.canceled"]);
    for _ in 0..10 {
        emit(&ports, &scope);
    }
    let deliveries = ports.delivery_service();
    let limits = DeliveryLimits { total: 8, per_endpoint: 3, per_account: 8 };
    let wave = deliveries.claim_due("a", 30_000, &DeliveryLoad::new(limits)).unwrap().jobs;
    assert_eq!(wave.len(), 3);
    ports.clock.advance(10);
    let timed_out: Vec<_> = wave.into_iter().map(|job| (job, no_answer())).collect();
    deliveries.record("a", &timed_out).unwrap();
    // Backed off for the schedule's first delay (1 s): its seven other deliveries wait too.
    assert!(claim(&ports, "a").is_empty(), "the whole endpoint waits");
    ports.clock.advance_millis(999);
    assert!(claim(&ports, "a").is_empty());
    ports.clock.advance_millis(1);
    let probe = claim(&ports, "a");
    assert_eq!(probe.len(), 1, "then one at a time while it does not answer");
    deliveries.record("a", &[(probe[0].clone(), no_answer())]).unwrap();
    ports.clock.advance_millis(1_999);
    assert!(claim(&ports, "a").is_empty(), "the next back-off is longer (2 s)");
    ports.clock.advance_millis(1);
    let probe = claim(&ports, "a");
    assert_eq!(probe.len(), 1);
    deliveries.record("a", &[(probe[0].clone(), outcome(503))]).unwrap();
    assert_eq!(claim(&ports, "a").len(), 9, "any answer ends the back-off: every other delivery goes at once");
}

#[test]
fn enabling_a_webhook_or_giving_it_another_url_tries_its_endpoint_afresh() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let id = webhook(&ports, &scope, &["payment_intent.canceled"]);
    for _ in 0..6 {
        emit(&ports, &scope);
    }
    let back_off = |ports: &TestPorts| {
        let silent: Vec<_> = claim(ports, "a").into_iter().map(|job| (job, no_answer())).collect();
        assert_eq!(silent.len(), 6);
        ports.delivery_service().record("a", &silent).unwrap();
    };
    back_off(&ports);
    assert!(claim(&ports, "b").is_empty(), "backed off");
    let service = ports.webhook_service();
    service.disable(&scope, &id).unwrap();
    service.enable(&scope, &id).unwrap();
    assert_eq!(claim(&ports, "b").len(), 6, "enabled: everything due at once");
    ports.clock.advance(31);
    back_off(&ports);
    assert!(claim(&ports, "c").is_empty(), "backed off again");
    let changes = payments_domain::webhook::WebhookChanges {
        url: Some(WebhookUrl::new("http://127.0.0.1:10/other".into()).unwrap()),
        ..Default::default()
    };
    service.update(&scope, &id, changes).unwrap();
    assert_eq!(claim(&ports, "c").len(), 6, "another receiver is tried at once");
}

#[test]
fn a_webhook_with_many_pending_deliveries_is_deleted_with_all_of_them() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let id = webhook(&ports, &scope, &["payment_intent.canceled"]);
    for _ in 0..50 {
        emit(&ports, &scope);
    }
    let service = ports.webhook_service();
    service.disable(&scope, &id).unwrap();
    assert_eq!(pending_webhooks(&ports, &scope), 10, "paused deliveries are outstanding (one page of events)");
    service.delete(&scope, &id).unwrap();
    assert_eq!(pending_webhooks(&ports, &scope), 0);
    assert!(claim(&ports, "a").is_empty());
}
