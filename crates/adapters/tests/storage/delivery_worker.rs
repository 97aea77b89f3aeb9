//! The delivery worker's loop over the in-memory fakes, with a sender whose receivers are scripted
//! per URL: one receiver never answers, and the other account's deliveries still go out at once,
//! while the silent endpoint holds no more than its own limit.

use payments_adapters::metrics::Metrics;
use payments_adapters::webhooks::{DeliveryWorker, WorkerSettings};
use payments_application::ports::{OutgoingWebhook, Sending, WebhookSender};
use payments_application::testing::{card_intent, TestPorts};
use payments_application::Scope;
use payments_domain::account::Mode;
use payments_domain::event::EventType;
use payments_domain::webhook::{NewWebhook, WebhookUrl};
use payments_domain::webhook_delivery::{AttemptOutcome, DeliveryLimits};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

const SILENT: &str = "http://silent.example/hooks";
const ANSWERING: &str = "http://answering.example/hooks";

/// Sends nothing: a delivery to [`SILENT`] never ends, any other is answered 200 at once. Records
/// every URL it was asked to send to, with when.
#[derive(Default)]
struct ScriptedSender {
    sent: Mutex<Vec<(String, Instant)>>,
}

impl ScriptedSender {
    fn sent_to(&self, url: &str) -> Vec<Instant> {
        let sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        sent.iter().filter(|(to, _)| to == url).map(|(_, at)| *at).collect()
    }
}

impl WebhookSender for ScriptedSender {
    fn send<'a>(&'a self, webhook: OutgoingWebhook<'a>) -> Sending<'a> {
        self.sent.lock().unwrap_or_else(PoisonError::into_inner).push((webhook.url.to_owned(), Instant::now()));
        let silent = webhook.url == SILENT;
        Box::pin(async move {
            if silent {
                std::future::pending::<()>().await;
            }
            AttemptOutcome { status_code: Some(200), error: None, duration_ms: 1, response_excerpt: None }
        })
    }
}

fn register(ports: &TestPorts, scope: &Scope, url: &str) {
    let new = NewWebhook {
        url: WebhookUrl::new(url.to_owned()).unwrap(),
        events: vec![EventType::PaymentIntentCanceled],
        description: None,
    };
    ports.webhook_service().create(scope, new).unwrap();
}

/// One `payment_intent.canceled` event of `scope`.
fn emit(ports: &TestPorts, scope: &Scope) {
    let service = ports.payment_intent_service();
    let intent = service.create(scope, card_intent(5_000)).unwrap().intent;
    service.cancel(scope, intent.id().as_str()).unwrap();
}

async fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !condition() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_endpoint_holds_only_its_own_slots_while_other_accounts_deliveries_go_out() {
    let ports = TestPorts::new();
    let (silent_account, other_account) = (ports.scope(Mode::Test), ports.other_scope());
    register(&ports, &silent_account, SILENT);
    register(&ports, &other_account, ANSWERING);
    for _ in 0..50 {
        emit(&ports, &silent_account);
    }
    let sender = Arc::new(ScriptedSender::default());
    let wake = Arc::new(Notify::new());
    let settings = WorkerSettings {
        limits: DeliveryLimits { total: 8, per_endpoint: 3, per_account: 4 },
        lease: Duration::from_secs(60),
        poll_interval: Duration::from_millis(50),
    };
    let worker = DeliveryWorker::new(
        Arc::new(ports.delivery_service()),
        sender.clone(),
        ports.clock.clone(),
        wake.clone(),
        settings,
        "worker".into(),
        Arc::new(Metrics::new()),
    );
    let running = tokio::spawn(worker.run(std::future::pending()));
    wait_until("the silent endpoint gets its three", || sender.sent_to(SILENT).len() == 3).await;

    for n in 1..=5 {
        emit(&ports, &other_account);
        let emitted = Instant::now();
        wake.notify_one();
        wait_until("the other account's event goes out", || sender.sent_to(ANSWERING).len() == n).await;
        let waited = sender.sent_to(ANSWERING)[n - 1].saturating_duration_since(emitted);
        assert!(waited < Duration::from_millis(500), "event {n} waited {waited:?}");
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(sender.sent_to(SILENT).len(), 3, "the silent endpoint never got more than its limit");
    running.abort();
}
