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
    let database = &app.database;
    tokio::task::block_in_place(|| database.set_read_only(true));

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
    let (status, _) = read(app.client.get(format!("{}/readyz", app.address)).send().await.unwrap()).await;
    assert_eq!(status, 200);
}

async fn set_reachable(app: &TestApp, reachable: bool) {
    let database = &app.database;
    tokio::task::block_in_place(|| database.set_reachable(reachable));
}
