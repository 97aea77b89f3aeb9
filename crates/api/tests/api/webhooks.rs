//! Webhooks over HTTP with a real receiver on a loopback port: signed delivery, retries with growing
//! gaps, a receiver that comes up late, timeouts, disable and enable, the endpoint's rules, and
//! exactly-once delivery across two instances on one PostgreSQL.
//!
//! Timing rules (when a retry falls due, that nothing is sent while disabled or after deletion) are
//! checked step by step: the test sends what is due and moves the clock, so a slow machine cannot
//! make them pass or fail. Delivery in the background, in real time, is checked end to end by the
//! rest.

use crate::helpers::{error_codes, read, single_error, TestApp};
use crate::instance::{form_pairs, Instance};
use crate::receiver::{Receiver, Reply};
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::Value;
use sha2::Sha256;
use std::time::Duration;

on_both_backends!(
    a_paid_intent_reaches_the_receiver_signed_and_verifiable,
    a_failing_receiver_is_retried_in_the_background_until_it_answers,
    a_timeout_counts_as_a_failed_attempt,
    webhook_endpoints_follow_their_rules,
    an_event_reaches_every_webhook_that_wants_it_at_once,
    a_webhook_with_a_backlog_of_any_size_is_deleted,
);

// A receiver's timeout of 5 s, so a batch barrier would hold the other account's events for
// seconds, far from what a loaded machine adds to a delivery.
on_both_backends_with!(
    |settings| {
        settings.webhooks.timeout_seconds = crate::webhooks::HANGING_TIMEOUT.as_secs();
        settings.webhooks.lease_seconds = 2 * crate::webhooks::HANGING_TIMEOUT.as_secs();
    } =>
    a_hanging_receiver_does_not_hold_up_another_accounts_webhooks,
);

on_both_backends_stepping_deliveries!(
    retries_fall_due_after_growing_waits_and_are_signed_at_the_clocks_time,
    a_receiver_that_is_down_gets_the_event_when_it_comes_up,
    disabling_stops_retries_and_enabling_resumes_them,
    a_deleted_webhook_is_gone_and_its_retries_with_it,
    failed_deliveries_are_requeued_when_the_receiver_is_fixed,
    a_disabled_webhooks_recovered_deliveries_wait_until_it_is_enabled,
);

on_both_backends_with!(
    |settings: &mut payments_api::settings::Settings| settings.webhooks.allow_private_targets_in_test = false =>
    a_shared_deployment_refuses_private_targets_in_test_mode,
);

const WAIT: Duration = Duration::from_secs(10);
/// The receivers' timeout where one of them hangs.
const HANGING_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) async fn register(app: &TestApp, url: &str, events: &[&str]) -> Value {
    let events: String = events.iter().map(|e| format!("&events[]={e}")).collect();
    let (status, webhook) = app.post("/webhooks", &format!("url={url}&description=Shop{events}")).await;
    assert_eq!(status, 200, "{webhook}");
    webhook
}

pub(crate) async fn pay(app: &TestApp) -> String {
    let intent = app.create_intent(10_000, "").await;
    let id = intent["id"].as_str().unwrap().to_owned();
    let (status, _) = app.attach_card(&id, "4242424242424242").await;
    assert_eq!(status, 200);
    id
}

/// Verifies a `Payrex-Signature` header the way PayRex's libraries do.
pub(crate) fn verify(header: &str, body: &str, secret: &str) -> bool {
    let parts: Vec<&str> = header.split(',').collect();
    let [t, te, li] = parts.as_slice() else { return false };
    let (Some(t), Some(te), Some(li)) = (t.strip_prefix("t="), te.strip_prefix("te="), li.strip_prefix("li=")) else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{body}").as_bytes());
    let expected = hex::encode(mac.finalize().into_bytes());
    li.is_empty() && te == expected
}

async fn a_paid_intent_reaches_the_receiver_signed_and_verifiable(app: TestApp) {
    let receiver = Receiver::start(Vec::new());
    let webhook = register(&app, &receiver.url, &["payment_intent.succeeded", "payment.paid"]).await;
    let secret = webhook["secret_key"].as_str().unwrap();
    assert!(secret.starts_with("whsk_") && webhook["id"].as_str().unwrap().starts_with("wh_"));
    let intent_id = pay(&app).await;
    let received = receiver.wait_for(2, WAIT).await;
    let mut types = Vec::new();
    for delivery in &received {
        assert!(delivery.content_type.starts_with("application/json"));
        assert!(verify(&delivery.signature, &delivery.body, secret), "{} does not verify", delivery.signature);
        assert!(!verify(&delivery.signature, &format!("{} ", delivery.body), secret), "a changed body fails");
        let event: Value = serde_json::from_str(&delivery.body).unwrap();
        assert_eq!((event["resource"].as_str(), event["livemode"].as_bool()), (Some("event"), Some(false)));
        types.push(event["type"].as_str().unwrap().to_owned());
        assert_eq!(event["pending_webhooks"], 1, "sent to one webhook");
        if event["type"] == "payment_intent.succeeded" {
            assert_eq!(event["data"]["id"], intent_id.as_str());
            write_sample_for_the_client_check(&delivery.body, &delivery.signature, secret);
        }
    }
    types.sort();
    assert_eq!(types, vec!["payment.paid", "payment_intent.succeeded"]);
    let attempts = wait_for_attempts(&app, &format!("/webhooks/{}/attempts", webhook["id"].as_str().unwrap()), 2).await;
    assert!(attempts.iter().all(|a| a["status_code"] == 200), "{attempts:?}");
    assert_eq!(live_pending_webhooks(&app).await, 0, "delivered events are no longer pending");
    for delivery in &received {
        let id = serde_json::from_str::<Value>(&delivery.body).unwrap()["id"].as_str().unwrap().to_owned();
        let served = app.get(&format!("/events/{id}")).await.text().await.unwrap();
        let delivered = delivery.body.replace(r#""pending_webhooks":1"#, r#""pending_webhooks":0"#);
        assert_eq!(served, delivered, "GET /events/:id is the bytes the receiver got, with the live count");
    }
    assert_eq!(receiver.received().len(), 2, "each event once");
}

/// Leaves a received event where `.ci/run` verifies it with PayRex's Python library.
fn write_sample_for_the_client_check(body: &str, signature: &str, secret: &str) {
    let sample = serde_json::json!({"payload": body, "signature": signature, "secret_key": secret});
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/webhook-sample.json");
    std::fs::write(path, sample.to_string()).expect("write the webhook sample");
}

async fn a_failing_receiver_is_retried_in_the_background_until_it_answers(app: TestApp) {
    let receiver = Receiver::start(vec![Reply::Status(500), Reply::Status(500)]);
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    pay(&app).await;
    let received = receiver.wait_for(3, WAIT).await;
    let first_gap = received[1].at - received[0].at;
    assert!(first_gap >= Duration::from_millis(250), "backoff before the first retry: {first_gap:?}");
    let path = format!("/webhooks/{}/attempts", webhook["id"].as_str().unwrap());
    let attempts = wait_for_attempts(&app, &path, 3).await;
    let codes: Vec<i64> = attempts.iter().map(|a| a["status_code"].as_i64().unwrap()).collect();
    assert_eq!(codes, vec![200, 500, 500], "newest first");
    assert_eq!(live_pending_webhooks(&app).await, 0, "delivered at the third attempt");
}

/// The webhook's recorded attempts, newest first, once there are `count` of them (recording runs
/// beside sending in the background worker).
async fn wait_for_attempts(app: &TestApp, path: &str, count: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let (status, attempts) = read(app.get(path).await).await;
        assert_eq!(status, 200);
        let attempts = attempts["data"].as_array().unwrap().clone();
        if attempts.len() >= count {
            return attempts;
        }
        assert!(std::time::Instant::now() < deadline, "{} of {count} attempts recorded", attempts.len());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn retries_fall_due_after_growing_waits_and_are_signed_at_the_clocks_time(app: TestApp) {
    let receiver = Receiver::start(vec![Reply::Status(500), Reply::Status(503)]);
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    let secret = webhook["secret_key"].as_str().unwrap();
    pay(&app).await;
    assert_eq!(app.deliver_due().await, 1, "sent as soon as the event commits");
    assert_eq!(app.deliver_due().await, 0, "not due again before the first wait");
    app.clock.advance(10);
    assert_eq!(app.deliver_due().await, 1, "due after the first wait (10 s)");
    app.clock.advance(10);
    assert_eq!(app.deliver_due().await, 0, "the second wait is longer");
    app.clock.advance(10);
    assert_eq!(app.deliver_due().await, 1, "due after the second wait (20 s)");
    assert_eq!(app.deliver_due().await, 0, "delivered: nothing more is due");
    app.clock.advance(3_600);
    assert_eq!(app.deliver_due().await, 0, "a delivered event is not sent again");

    let received = receiver.received();
    assert_eq!(received.len(), 3);
    assert!(received.iter().all(|r| r.body == received[0].body), "every attempt sends the same bytes");
    let last = &received[2];
    assert!(verify(&last.signature, &last.body, secret));
    let signed_at: i64 = last.signature.split(',').next().unwrap().trim_start_matches("t=").parse().unwrap();
    let wall_clock = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let ahead = signed_at - i64::try_from(wall_clock).unwrap();
    assert!((25..=35).contains(&ahead), "signed at the service clock's time: {ahead} s ahead of the wall clock");
    let path = format!("/webhooks/{}/attempts", webhook["id"].as_str().unwrap());
    let (_, attempts) = read(app.get(&path).await).await;
    let codes: Vec<i64> =
        attempts["data"].as_array().unwrap().iter().map(|a| a["status_code"].as_i64().unwrap()).collect();
    assert_eq!(codes, vec![200, 503, 500], "newest first");
}

async fn a_receiver_that_is_down_gets_the_event_when_it_comes_up(app: TestApp) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    drop(listener);
    let webhook = register(&app, &url, &["payment.paid"]).await;
    pay(&app).await;
    assert_eq!(app.deliver_due().await, 1);
    let path = format!("/webhooks/{}/attempts", webhook["id"].as_str().unwrap());
    let (_, attempts) = read(app.get(&path).await).await;
    assert_eq!(attempts["data"].as_array().map(Vec::len), Some(1), "it was tried while down");
    let attempt = &attempts["data"][0];
    assert_eq!((attempt["error"].as_str(), &attempt["status_code"]), (Some("connection failed"), &Value::Null));
    let address = url.trim_start_matches("http://").trim_end_matches("/hooks");
    let receiver = Receiver::on(std::net::TcpListener::bind(address).unwrap(), Vec::new());
    app.clock.advance(10);
    assert_eq!(app.deliver_due().await, 1, "retried after its wait");
    let received = receiver.wait_for(1, WAIT).await;
    let event: Value = serde_json::from_str(&received[0].body).unwrap();
    assert_eq!(event["type"], "payment.paid");
    assert_eq!(live_pending_webhooks(&app).await, 0);
}

async fn a_timeout_counts_as_a_failed_attempt(app: TestApp) {
    let receiver = Receiver::start(vec![Reply::Slow(Duration::from_millis(1_500))]);
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    pay(&app).await;
    receiver.wait_for(2, WAIT).await;
    let path = format!("/webhooks/{}/attempts", webhook["id"].as_str().unwrap());
    let attempts = wait_for_attempts(&app, &path, 2).await;
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert_eq!((attempts[1]["error"].as_str(), &attempts[1]["status_code"]), (Some("timed out"), &Value::Null));
    assert_eq!(attempts[0]["status_code"], 200);
}

async fn disabling_stops_retries_and_enabling_resumes_them(app: TestApp) {
    let receiver = Receiver::start(vec![Reply::Status(503)]);
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    let id = webhook["id"].as_str().unwrap();
    pay(&app).await;
    assert_eq!(app.deliver_due().await, 1, "the first attempt fails");
    let (status, disabled) = app.post(&format!("/webhooks/{id}/disable"), "").await;
    assert_eq!((status, disabled["status"].as_str()), (200, Some("disabled")));
    app.clock.advance(3_600);
    assert_eq!(app.deliver_due().await, 0, "no retry while disabled, however long it waits");
    pay(&app).await;
    assert_eq!(app.deliver_due().await, 0, "an event while disabled is not for this webhook");
    assert_eq!(receiver.received().len(), 1);
    let (status, enabled) = app.post(&format!("/webhooks/{id}/enable"), "").await;
    assert_eq!((status, enabled["status"].as_str()), (200, Some("enabled")));
    assert_eq!(app.deliver_due().await, 1, "the paused retry is due at once after enabling");
    assert_eq!(app.deliver_due().await, 0, "the event that happened while disabled is never sent");
    assert_eq!(receiver.received().len(), 2);
    assert_eq!(live_pending_webhooks(&app).await, 0);
}

async fn webhook_endpoints_follow_their_rules(app: TestApp) {
    let (status, body) = app.post("/webhooks", "url=http://127.0.0.1:9/hooks&events[]=payment.exploded").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("events".to_owned(), "parameter_invalid".to_owned())]));
    assert!(body["errors"][0]["detail"].as_str().unwrap().contains("payment.exploded"));
    let (status, body) = app.post("/webhooks", "url=not-a-url&events[]=payment.paid").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("url".to_owned(), "parameter_invalid".to_owned())]));
    let (status, body) = app.post("/webhooks", "url=http://127.0.0.1:9/hooks").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("events".to_owned(), "parameter_required".to_owned())]));
    for url in
        ["http://127.0.0.1/hooks", "https://127.0.0.1/hooks", "https://localhost/hooks", "https://10.1.2.3/hooks"]
    {
        let body = format!("url={url}&events[]=payment.paid");
        let (status, answer) = read(app.form(Method::POST, "/webhooks", &app.keys.secret_live, &body).await).await;
        assert_eq!(status, 400, "live mode refuses {url}");
        assert_eq!(error_codes(&answer), vec![("url".to_owned(), "parameter_invalid".to_owned())], "{url}");
    }
    let first = register(&app, "http://127.0.0.1:9/a", &["payment.paid"]).await;
    let second = register(&app, "http://127.0.0.1:9/b", &["refund.created"]).await;
    let (_, listed) = read(app.get("/webhooks?url=http%3A%2F%2F127.0.0.1%3A9%2Fb").await).await;
    assert_eq!(listed["data"].as_array().map(|d| d.len()), Some(1));
    assert_eq!(listed["data"][0]["id"], second["id"]);
    let (_, all) = read(app.get("/webhooks?description=Shop").await).await;
    assert_eq!(all["data"].as_array().map(|d| d.len()), Some(2));
    let path = format!("/webhooks/{}", first["id"].as_str().unwrap());
    let (status, updated) = read(
        app.form(Method::PUT, &path, &app.keys.secret_test, "events[]=refund.created&events[]=refund.updated").await,
    )
    .await;
    assert_eq!((status, updated["events"].clone()), (200, serde_json::json!(["refund.created", "refund.updated"])));
    assert_eq!(updated["secret_key"], first["secret_key"], "the secret key stays");
    let (status, _) = read(app.request(Method::GET, &path, &app.other_account_key).send().await.unwrap()).await;
    assert_eq!(status, 404);
    let (status, body) = app.post(&format!("{path}/resend"), "event_id=evt_unknown").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("event_id".to_owned(), "resource_not_found".to_owned())]));
}

async fn a_deleted_webhook_is_gone_and_its_retries_with_it(app: TestApp) {
    let receiver = Receiver::start(vec![Reply::Status(500)]);
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    let path = format!("/webhooks/{}", webhook["id"].as_str().unwrap());
    pay(&app).await;
    assert_eq!(app.deliver_due().await, 1, "the first attempt fails");
    let (status, deleted) = read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await;
    assert_eq!((status, deleted["deleted"].as_bool()), (200, Some(true)));
    app.clock.advance(3_600);
    assert_eq!(app.deliver_due().await, 0, "no retry after deletion");
    assert_eq!(receiver.received().len(), 1);
    let (status, body) = read(app.get(&path).await).await;
    assert_eq!(status, 404);
    single_error(&body, "resource_not_found");
    assert_eq!(live_pending_webhooks(&app).await, 0, "canceled deliveries are no longer pending");
}

/// The sum of the test account's events' `pending_webhooks`, as the API shows them, each event
/// once by id and once in the list.
async fn live_pending_webhooks(app: &TestApp) -> i64 {
    let (_, events) = read(app.get("/events?limit=100").await).await;
    let mut total = 0;
    for event in events["data"].as_array().unwrap() {
        let (status, retrieved) = read(app.get(&format!("/events/{}", event["id"].as_str().unwrap())).await).await;
        assert_eq!(status, 200);
        assert_eq!(retrieved["pending_webhooks"], event["pending_webhooks"], "the list and the object agree");
        total += retrieved["pending_webhooks"].as_i64().unwrap();
    }
    total
}

/// Two instances share one PostgreSQL; each event reaches the receiver once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_deliver_each_event_exactly_once() {
    let app = crate::helpers::spawn_app(payments_adapters::db::Backend::Postgres).await;
    let mut settings = payments_api::settings::Settings::load().unwrap();
    settings.database.url = app.database.url().to_owned();
    settings.webhooks.poll_interval_ms = 50;
    let settings = settings.validate().unwrap();
    let other = tokio::task::spawn_blocking({
        let clock = app.clock.clone();
        move || payments_api::state::Services::connect(&settings, clock).unwrap()
    })
    .await
    .unwrap();
    let other_worker = tokio::spawn(other.delivery_worker().unwrap().run(std::future::pending()));
    let receiver = Receiver::start(Vec::new());
    register(&app, &receiver.url, &["payment.paid"]).await;
    let payments = 15;
    for _ in 0..payments {
        pay(&app).await;
    }
    let received = receiver.wait_for(payments, WAIT).await;
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let mut ids: Vec<String> = receiver
        .received()
        .iter()
        .map(|r| serde_json::from_str::<Value>(&r.body).unwrap()["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!((ids.len(), receiver.received().len()), (payments, payments), "{received:?}");
    other_worker.abort();
}

/// The service is killed (SIGKILL, no clean shutdown) while a delivery is in flight; a restarted
/// service delivers it after the lease of the dead one runs out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_interrupted_by_a_crash_is_made_after_restart() {
    let database = tokio::task::spawn_blocking(|| {
        payments_adapters::db::testing::TestDatabase::new(payments_adapters::db::Backend::Postgres)
    })
    .await
    .unwrap();
    let receiver = Receiver::start(vec![Reply::Slow(Duration::from_secs(30))]);
    let mut first = Instance::start(database.url()).await;
    let (address, key) = (first.address.clone(), first.wait_for_printed_key().await);
    let client = reqwest::Client::new();
    let post = |path: &str, body: String| {
        client.post(format!("{address}{path}")).bearer_auth(&key).form(&form_pairs(&body)).send()
    };
    let webhook: Value =
        post("/webhooks", format!("url={}&events[]=payment.paid", receiver.url)).await.unwrap().json().await.unwrap();
    assert!(webhook["id"].is_string(), "{webhook}");
    let intent: Value = post("/payment_intents", "amount=10000&currency=PHP&payment_methods[]=card".into())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let attach =
        "payment_method[type]=card&payment_method[card][number]=4242424242424242&payment_method[card][exp_month]=12\
                  &payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";
    let paid =
        post(&format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap()), attach.into()).await.unwrap();
    assert_eq!(paid.status(), 200);
    receiver.wait_for(1, WAIT).await;
    first.kill_now();

    let mut second = Instance::start(database.url()).await;
    let received = receiver.wait_for(2, Duration::from_secs(15)).await;
    let ids: Vec<Value> =
        received.iter().map(|r| serde_json::from_str::<Value>(&r.body).unwrap()["id"].clone()).collect();
    assert_eq!(ids[0], ids[1], "the same event, again after the restart");
    second.kill_now();
}

async fn a_shared_deployment_refuses_private_targets_in_test_mode(app: TestApp) {
    for url in [
        "http://127.0.0.1:9000/hooks",
        "http://localhost:9000/hooks",
        "http://[::1]/hooks",
        "http://[::ffff:0:7f00:1]/hooks",
        "http://[64:ff9b::a00:1]/hooks",
        "http://169.254.169.254/latest/meta-data",
        "http://2130706433/hooks",
    ] {
        let (status, body) = app.post("/webhooks", &format!("url={url}&events[]=payment.paid")).await;
        assert_eq!(status, 400, "{url}: {body}");
        assert_eq!(body["errors"][0]["parameter"], "url", "{body}");
    }
    let (_, list) = read(app.get("/webhooks").await).await;
    assert!(list["data"].as_array().unwrap().is_empty());
}

async fn an_event_reaches_every_webhook_that_wants_it_at_once(app: TestApp) {
    let receivers: Vec<Receiver> = (0..3).map(|_| Receiver::start(Vec::new())).collect();
    for receiver in &receivers {
        register(&app, &receiver.url, &["payment.paid"]).await;
    }
    pay(&app).await;
    let paid_at = std::time::Instant::now();
    for receiver in &receivers {
        // The retries would come after 300 ms at the earliest; the first attempts come at once.
        let received = receiver.wait_for(1, Duration::from_secs(5)).await;
        let waited = received[0].at.saturating_duration_since(paid_at);
        assert!(waited < Duration::from_millis(1_500), "a receiver waited {waited:?}");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(receivers.iter().all(|receiver| receiver.received().len() == 1), "each once");
    let attempts = wait_for_all_attempts(&app, 3).await;
    assert_eq!(attempts, 3);
    assert_eq!(live_pending_webhooks(&app).await, 0);
}

/// The attempts recorded for every webhook of the test account, once there are `count`.
async fn wait_for_all_attempts(app: &TestApp, count: usize) -> usize {
    let (_, webhooks) = read(app.get("/webhooks").await).await;
    let paths: Vec<String> = webhooks["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|webhook| format!("/webhooks/{}/attempts", webhook["id"].as_str().unwrap()))
        .collect();
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let mut recorded = 0;
        for path in &paths {
            recorded += read(app.get(path).await).await.1["data"].as_array().unwrap().len();
        }
        if recorded >= count || std::time::Instant::now() > deadline {
            return recorded;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_hanging_receiver_does_not_hold_up_another_accounts_webhooks(app: TestApp) {
    // One account's receiver never answers in time (HANGING_TIMEOUT) and has a deep backlog.
    let hanging = Receiver::start(vec![Reply::Slow(Duration::from_secs(30)); 400]);
    let webhook = register(&app, &hanging.url, &["payment.paid"]).await;
    pay(&app).await;
    let (_, events) = read(app.get("/events?limit=1").await).await;
    let event_id = events["data"][0]["id"].as_str().unwrap().to_owned();
    let resend = format!("/webhooks/{}/resend", webhook["id"].as_str().unwrap());
    for _ in 0..199 {
        let (status, body) = app.post(&resend, &format!("event_id={event_id}")).await;
        assert_eq!(status, 200, "{body}");
    }
    hanging.wait_for(4, WAIT).await;
    // Another account's event, while the hanging receiver holds its deliveries.
    let other = Receiver::start(Vec::new());
    let register_other = format!("url={}&events[]=payment.paid", other.url);
    let (status, _) = read(app.form(Method::POST, "/webhooks", &app.other_account_key, &register_other).await).await;
    assert_eq!(status, 200);
    for n in 0..5 {
        let intent = format!("amount={}&currency=PHP&payment_methods[]=card", 10_000 + n);
        let (_, intent) = read(app.form(Method::POST, "/payment_intents", &app.other_account_key, &intent).await).await;
        let attach = "payment_method[type]=card&payment_method[card][number]=4242424242424242\
                      &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";
        let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
        let (status, _) = read(app.form(Method::POST, &path, &app.other_account_key, attach).await).await;
        assert_eq!(status, 200);
        let paid_at = std::time::Instant::now();
        let received = other.wait_for(n + 1, WAIT).await;
        let waited = received[n].at.saturating_duration_since(paid_at);
        // Well under the hanging receiver's timeout, which a batch barrier would wait out.
        assert!(waited < HANGING_TIMEOUT / 2, "the other account's event {n} waited {waited:?}");
    }
    // The hanging endpoint held at most its own limit at once, then was backed off as a whole.
    assert!(hanging.received().len() < 100, "{} attempts reached the hanging receiver", hanging.received().len());
}

async fn a_webhook_with_a_backlog_of_any_size_is_deleted(app: TestApp) {
    let webhook = register(&app, "http://127.0.0.1:9/hooks", &["payment.paid"]).await;
    let webhook_id = webhook["id"].as_str().unwrap().to_owned();
    pay(&app).await;
    let (_, events) = read(app.get("/events?limit=1").await).await;
    let event_id = events["data"][0]["id"].as_str().unwrap().to_owned();
    let account = {
        let (accounts, key) = (app.services.accounts.clone(), app.keys.secret_test.clone());
        tokio::task::spawn_blocking(move || accounts.authenticate(&key).unwrap().scope.account_id.to_string())
            .await
            .unwrap()
    };
    // More pending deliveries than SQLite allows variables in one statement (32,766), due far ahead.
    app.database.execute(&format!(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 40000) \
         INSERT INTO webhook_deliveries (id, account_id, livemode, webhook_id, event_id, status, attempts, \
         next_attempt_at_ms, lease_owner, lease_until_ms, created_at_ms) \
         SELECT 'whd_seed' || x, '{account}', false, '{webhook_id}', '{event_id}', 'pending', 0, \
         4000000000000, NULL, 0, 0 FROM n"
    ));
    let metrics = reqwest::get(format!("{}/metrics", app.address)).await.unwrap().text().await.unwrap();
    let pending = metrics.lines().find_map(|line| line.strip_prefix("payments_webhook_deliveries_pending "));
    assert!(pending.and_then(|count| count.trim().parse::<i64>().ok()).is_some_and(|count| count > 40_000));
    let (status, body) = read(
        app.request(Method::DELETE, &format!("/webhooks/{webhook_id}"), &app.keys.secret_test).send().await.unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, event) = read(app.get(&format!("/events/{event_id}")).await).await;
    assert_eq!(event["pending_webhooks"], 0, "every delivery was canceled");
    let (status, _) = read(app.get(&format!("/webhooks/{webhook_id}")).await).await;
    assert_eq!(status, 404);
}

/// A webhook whose receiver answered 500 to both attempts at a payment's event, which failed for
/// good once its retry window ran out: the receiver, and the webhook's id.
async fn a_delivery_failed_for_good(app: &TestApp) -> (Receiver, String) {
    let receiver = Receiver::start(vec![Reply::Status(500), Reply::Status(500)]);
    let webhook = register(app, &receiver.url, &["payment.paid"]).await;
    pay(app).await;
    assert_eq!(app.deliver_due().await, 1);
    app.clock.advance(3 * 24 * 60 * 60 + 60);
    assert_eq!(app.deliver_due().await, 1, "the last attempt of the retry window");
    (receiver, webhook["id"].as_str().unwrap().to_owned())
}

async fn failed_deliveries_are_requeued_when_the_receiver_is_fixed(app: TestApp) {
    let (receiver, id) = a_delivery_failed_for_good(&app).await;
    let id = id.as_str();
    let attempts = wait_for_attempts(&app, &format!("/webhooks/{id}/attempts"), 2).await;
    let failed_at = attempts[0]["attempted_at"].as_i64().unwrap();
    assert_eq!(app.deliver_due().await, 0, "failed: not retried any more");

    let path = format!("/webhooks/{id}/recover");
    for (body, code) in
        [("", "parameter_required"), ("since=-1", "parameter_below_minimum"), ("since=soon", "parameter_type_invalid")]
    {
        let (status, refused) = app.post(&path, body).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert_eq!(refused["errors"][0]["code"], code, "{body}: {refused}");
    }
    let other = read(app.form(Method::POST, &path, &app.other_account_key, "since=0").await).await;
    assert_eq!(other.0, 404, "{}", other.1);
    let (status, later) = app.post(&path, &format!("since={}", failed_at + 60)).await;
    assert_eq!((status, later["requeued"].as_u64()), (200, Some(0)), "it failed before that: {later}");
    let (status, recovered) = app.post(&path, &format!("since={failed_at}")).await;
    assert_eq!(status, 200, "{recovered}");
    assert_eq!(
        (recovered["resource"].as_str(), recovered["webhook_id"].as_str()),
        (Some("webhook_recovery"), Some(id))
    );
    assert_eq!((recovered["requeued"].as_u64(), recovered["since"].as_i64()), (Some(1), Some(failed_at)));
    assert_eq!(app.deliver_due().await, 1, "due at once");
    let received = receiver.wait_for(3, WAIT).await;
    assert_eq!(received[0].body, received[2].body, "the same event, delivered at last");
    let (_, again) = app.post(&path, "since=0").await;
    assert_eq!(again["requeued"], 0, "delivered ones stay delivered");
}

async fn a_disabled_webhooks_recovered_deliveries_wait_until_it_is_enabled(app: TestApp) {
    let (receiver, id) = a_delivery_failed_for_good(&app).await;
    receiver.wait_for(2, WAIT).await;
    let (status, _) = app.post(&format!("/webhooks/{id}/disable"), "").await;
    assert_eq!(status, 200);
    let (status, recovered) = app.post(&format!("/webhooks/{id}/recover"), "since=0").await;
    assert_eq!((status, recovered["requeued"].as_u64()), (200, Some(1)), "{recovered}");
    assert_eq!(app.deliver_due().await, 0, "held while the webhook is disabled");
    app.clock.advance(60);
    assert_eq!(app.deliver_due().await, 0, "and still held later");
    assert_eq!(receiver.received().len(), 2, "nothing was sent to it");
    let (status, _) = app.post(&format!("/webhooks/{id}/enable"), "").await;
    assert_eq!(status, 200);
    assert_eq!(app.deliver_due().await, 1, "sent once it is enabled");
    let received = receiver.wait_for(3, WAIT).await;
    assert_eq!(received[0].body, received[2].body);
}
