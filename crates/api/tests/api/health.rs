//! Liveness, readiness, and behaviour while the database is away.

use crate::helpers::{read, single_error, spawn_app, TestApp};
use payments_adapters::db::Backend;
use std::time::{Duration, Instant};

on_both_backends!(the_probes_answer_when_the_database_is_up);

async fn the_probes_answer_when_the_database_is_up(app: TestApp) {
    let response = app.client.get(format!("{}/healthz", app.address)).send().await.unwrap();
    let request_id = response.headers().get("x-request-id").and_then(|v| v.to_str().ok()).unwrap_or_default();
    assert_eq!(request_id.len(), 36, "a request id in the response: {request_id:?}");
    let (status, body) = read(response).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));
    let (status, body) = read(app.client.get(format!("{}/readyz", app.address)).send().await.unwrap()).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("ready")));
}

/// Only PostgreSQL can be taken away from a running process: an SQLite file is always there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_database_answers_503_and_the_service_recovers_by_itself() {
    let app = spawn_app(Backend::Postgres).await;
    app.create_customer("Ana").await;
    set_reachable(&app, false).await;

    let response = app.get("/customers").await;
    assert_eq!(response.headers().get("Retry-After").and_then(|v| v.to_str().ok()), Some("1"));
    let (status, body) = read(response).await;
    assert_eq!(status, 503, "{body}");
    single_error(&body, "service_unavailable");
    assert!(!body.to_string().contains("postgres"), "no internals in the body: {body}");
    let (status, _) = read(app.client.get(format!("{}/readyz", app.address)).send().await.unwrap()).await;
    assert_eq!(status, 503);
    let (status, _) = read(app.client.get(format!("{}/healthz", app.address)).send().await.unwrap()).await;
    assert_eq!(status, 200, "the process is still alive");

    set_reachable(&app, true).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, body) = read(app.get("/customers").await).await;
        if status == 200 {
            assert_eq!(body["data"].as_array().map(Vec::len), Some(1));
            break;
        }
        assert!(Instant::now() < deadline, "the service did not recover: {status} {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A node that takes no writes, as the old primary does once it is a standby: a write answers 503
/// with `Retry-After` (not 500) and changes nothing, readiness says not ready, and once a primary is
/// back the pool's new connections reach it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_takes_no_writes_answers_503_and_the_service_recovers_by_itself() {
    let app = spawn_app(Backend::Postgres).await;
    app.create_customer("Ana").await;
    let mut console = crate::console::Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    let database = &app.database;
    tokio::task::block_in_place(|| database.set_read_only(true));

    // The console's pages say so too, with the API's `Retry-After`.
    let fields = [("form_token", token.as_str()), ("interval", "weekly"), ("weekly_anchor", "friday")];
    for _ in 0..3 {
        let response = console.post_form("/dashboard/balance/schedule", &fields).await;
        assert_eq!(response.status(), 503);
        assert_eq!(response.headers().get("Retry-After").and_then(|v| v.to_str().ok()), Some("1"));
    }

    // The pool's connections were ended: the first requests may meet them, later ones connect anew.
    for _ in 0..6 {
        let response = app.form(reqwest::Method::POST, "/customers", &app.keys.secret_test, "name=Ben&email=ben%40example.com&currency=PHP").await;
        assert_eq!(response.headers().get("Retry-After").and_then(|v| v.to_str().ok()), Some("1"));
        let (status, body) = read(response).await;
        assert_eq!(status, 503, "{body}");
        single_error(&body, "service_unavailable");
    }
    let (status, _) = read(app.client.get(format!("{}/readyz", app.address)).send().await.unwrap()).await;
    assert_eq!(status, 503, "no primary, not ready");
    let (status, body) = read(app.get("/customers").await).await;
    assert_eq!((status, body["data"].as_array().map(Vec::len)), (200, Some(1)), "reads go on; nothing was written");

    tokio::task::block_in_place(|| database.set_read_only(false));
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let response = app.form(reqwest::Method::POST, "/customers", &app.keys.secret_test, "name=Ben&email=ben%40example.com&currency=PHP").await;
        let (status, body) = read(response).await;
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the service did not recover: {status} {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Readiness comes back too, once the pool has let go of the connections opened while the
    // database took no writes (a write may meet a fresh connection before the probe does).
    loop {
        let (status, body) = read(app.client.get(format!("{}/readyz", app.address)).send().await.unwrap()).await;
        if status == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the service is not ready again: {status} {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The primary lost while a capture is in the middle of its transaction: the connection is ended
/// as the capture waits for a row, the request answers 503 with `Retry-After` (not 500, no hang),
/// nothing was captured, and its retry with the same `Idempotency-Key` captures once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_breaks_mid_transaction_answers_503_and_the_retry_runs_once() {
    let app = spawn_app(Backend::Postgres).await;
    let held = app.create_intent(25_000, "&payment_method_options[card][capture_type]=manual").await;
    let id = held["id"].as_str().unwrap().to_owned();
    let (status, attached) = app.attach_card(&id, "4242424242424242").await;
    assert_eq!((status, attached["status"].as_str()), (200, Some("awaiting_capture")), "{attached}");

    let database = &app.database;
    let mut lock = tokio::task::block_in_place(|| {
        database.lock_rows(&format!("SELECT id FROM payment_intents WHERE id = '{id}' FOR UPDATE"))
    });
    let capture = app
        .request(reqwest::Method::POST, &format!("/payment_intents/{id}/capture"), &app.keys.secret_test)
        .header("Idempotency-Key", "capture-once")
        .form(&[("amount", "25000")])
        .send();
    let capture = tokio::spawn(capture);
    let ended = tokio::task::block_in_place(|| lock.end_waiting_connections());
    drop(lock);
    assert_eq!(ended, 1, "the capture's connection waited for the row and was ended");
    let response = capture.await.unwrap().unwrap();
    assert_eq!(response.headers().get("Retry-After").and_then(|v| v.to_str().ok()), Some("1"));
    let (status, body) = read(response).await;
    assert_eq!(status, 503, "{body}");
    single_error(&body, "service_unavailable");
    let (_, unchanged) = read(app.get(&format!("/payment_intents/{id}")).await).await;
    assert_eq!(unchanged["status"], "awaiting_capture", "the broken transaction changed nothing");

    let retry = || {
        app.request(reqwest::Method::POST, &format!("/payment_intents/{id}/capture"), &app.keys.secret_test)
            .header("Idempotency-Key", "capture-once")
            .form(&[("amount", "25000")])
            .send()
    };
    let (status, captured) = read(retry().await.unwrap()).await;
    assert_eq!((status, captured["status"].as_str()), (200, Some("succeeded")), "{captured}");
    let replayed = retry().await.unwrap();
    assert_eq!(replayed.headers().get("Idempotent-Replayed").and_then(|v| v.to_str().ok()), Some("true"));
    assert_eq!(read(replayed).await, (200, captured));
    let paid = tokio::task::block_in_place(|| {
        database.number(&format!("SELECT count(*) AS n FROM payments WHERE payment_intent_id = '{id}' AND status = 'paid'"))
    });
    assert_eq!(paid, 1, "captured once");
}

async fn set_reachable(app: &TestApp, reachable: bool) {
    let database = &app.database;
    tokio::task::block_in_place(|| database.set_reachable(reachable));
}
