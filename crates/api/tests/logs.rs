//! The logs of a session of requests carry request ids and statuses, and never an API key, a query
//! string (where client secrets travel) or the body of a request.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "api/helpers.rs"]
mod helpers;

use helpers::{read, spawn_app};
use payments_adapters::db::Backend;
use payments_api::settings::{LogFormat, LogSettings};
use reqwest::Method;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// Log output collected in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_never_contain_keys_client_secrets_or_bodies() {
    let captured = Captured::default();
    let writer = captured.clone();
    let settings = LogSettings { format: LogFormat::Json, level: "debug".into() };
    payments_api::telemetry::init_with_writer(&settings, move || writer.clone());

    let app = spawn_app(Backend::Sqlite).await;
    let secret_in_query = "pi_123_secret_ThisMustNeverBeLogged0000000000";
    let body = "name=Secretive&email=hidden-address%40example.com&currency=PHP&metadata[card]=4242424242424242";
    let (status, _) = read(app.form(Method::POST, "/customers", &app.keys.secret_test, body).await).await;
    assert_eq!(status, 200);
    let (status, _) = read(app.get(&format!("/customers?client_secret={secret_in_query}")).await).await;
    assert_eq!(status, 400, "an unknown parameter, but the request is logged");
    let (status, _) = read(app.request(Method::GET, "/customers", &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(status, 401);
    let (status, _) = read(
        app.request(Method::GET, "/customers", "sk_test_NotARealKeyButStillSecret000000000000").send().await.unwrap(),
    )
    .await;
    assert_eq!(status, 401);

    let logs = String::from_utf8(captured.0.lock().unwrap_or_else(PoisonError::into_inner).clone()).unwrap();
    assert!(logs.contains("request completed") && logs.contains("request_id"), "requests are logged: {logs}");
    for secret in [
        app.keys.secret_test.as_str(),
        app.keys.public_test.as_str(),
        "sk_test_NotARealKeyButStillSecret",
        secret_in_query,
        "hidden-address",
        "4242424242424242",
        "Authorization",
    ] {
        assert!(!logs.contains(secret), "{secret} appears in the logs:\n{logs}");
    }
}
