//! The logs of a session of requests carry request ids and statuses, and never an API key, a query
//! string (where client secrets travel) or the body of a request; after payments with test cards,
//! neither the logs nor the database (the request log's bodies included) hold a full card number, a
//! CVC or an API key, and the request log holds no client secret.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "api/helpers.rs"]
mod helpers;

use helpers::{contains_number, read, spawn_app};
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
async fn logs_and_storage_never_contain_keys_secrets_or_card_data() {
    let captured = Captured::default();
    let writer = captured.clone();
    let settings = LogSettings { format: LogFormat::Json, level: "debug".into() };
    payments_api::telemetry::init_with_writer(&settings, move || writer.clone());

    let app = spawn_app(Backend::Sqlite).await;
    let secret_in_query = "pi_123_secret_ThisMustNeverBeLogged0000000000";
    let body = "name=Secretive&email=hidden-address%40example.com&currency=PHP&metadata[note]=5555555555554444";
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

    // Card numbers in the wrong place: a path, where they reach the request log line.
    let in_path = "4111111111111111";
    let (status, _) = read(app.get(&format!("/customers/{in_path}")).await).await;
    assert_eq!(status, 404);
    // A secret key in a path by mistake (schemathesis does it): logged without its body.
    let (status, _) = read(app.get(&format!("/payments/{}", app.keys.secret_test)).await).await;
    assert_eq!(status, 404);
    let page = reqwest::Client::new().post(format!("{}/test/authorize/4000%200566%205566%205556", app.address));
    assert!(page.send().await.unwrap().status().is_client_error());

    // A hosted page's link is a capability: opening it is logged without its secret.
    let (status, session) = read(app.form(Method::POST, "/checkout_sessions", &app.keys.secret_test, "line_items[0][name]=Mug&line_items[0][amount]=5000&line_items[0][quantity]=1&success_url=https://s.example/ok&cancel_url=https://s.example/no&payment_methods[]=card").await).await;
    assert_eq!(status, 200, "{session}");
    let page_secret = session["client_secret"].as_str().unwrap().to_owned();
    assert_eq!(reqwest::get(session["url"].as_str().unwrap()).await.unwrap().status(), 200);

    let cvc = "9173";
    let cards = ["4242424242424242", "4000000000003220", "4005550000000019", "5425233430109903"];
    for number in cards {
        let intent = app.create_intent(10_000, "").await;
        let body = format!(
            "payment_method[type]=card&payment_method[card][number]={number}&payment_method[card][exp_month]=12\
             &payment_method[card][exp_year]=2035&payment_method[card][cvc]={cvc}"
        );
        let (status, _) = app.post(&format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap()), &body).await;
        assert!(status == 200 || status == 400, "{number}: {status}");
    }
    // Saving cards with setup intents, then paying with a saved one: the saved method keeps only
    // what its entity shows.
    let customer = app.create_customer("Saver").await;
    let saved_cards = ["4701322211111234", "4000000000003337", "4503300000000008"];
    let mut saved_method = None;
    for number in saved_cards {
        let body = format!("customer_id={}&payment_methods[]=card&usage=off_session", customer["id"].as_str().unwrap());
        let (status, setup) = app.post("/setup_intents", &body).await;
        assert_eq!(status, 200, "{setup}");
        let body = format!(
            "payment_method[type]=card&payment_method[card][number]={number}&payment_method[card][exp_month]=12\
             &payment_method[card][exp_year]=2035&payment_method[card][cvc]={cvc}"
        );
        let (status, setup) =
            app.post(&format!("/setup_intents/{}/attach", setup["id"].as_str().unwrap()), &body).await;
        assert!(status == 200 || status == 400, "{number}: {status}");
        saved_method = saved_method.or_else(|| setup["payment_method_id"].as_str().map(str::to_owned));
    }
    app.advance_and_run_due_actions(10).await;
    let intent = app.create_intent(10_000, &format!("&customer_id={}", customer["id"].as_str().unwrap())).await;
    let body = format!("payment_method_id={}", saved_method.expect("a card was saved"));
    let (status, paid) = app.post(&format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap()), &body).await;
    assert_eq!(status, 200, "{paid}");
    let (status, methods) =
        read(app.get(&format!("/customers/{}/payment_methods", customer["id"].as_str().unwrap())).await).await;
    assert_eq!((status, methods["data"].as_array().map(Vec::len)), (200, Some(2)), "{methods}");

    // The request log holds every request above with its bodies; it is written in the background.
    let mut log = String::new();
    for _ in 0..100 {
        let (status, page) = read(app.get("/request_logs?limit=100").await).await;
        assert_eq!(status, 200);
        if page["data"].as_array().is_some_and(|entries| entries.len() >= 20) {
            log = page.to_string();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(log.contains("/payment_intents") && log.contains("Secretive"), "the request log was read: {log}");
    for secret in [app.keys.secret_test.as_str(), app.keys.public_test.as_str(), secret_in_query, page_secret.as_str()]
    {
        assert!(!log.contains(secret), "{secret} is in the request log");
    }

    let database_path = app.database.url().trim_start_matches("sqlite://").to_owned();
    let mut stored = Vec::new();
    for suffix in ["", "-wal"] {
        stored.extend(std::fs::read(format!("{database_path}{suffix}")).unwrap_or_default());
    }
    assert!(stored.len() > 10_000, "the database files were read");
    let stored = String::from_utf8_lossy(&stored);
    assert!(stored.contains("424242") && stored.contains("4242"), "first six and last four are kept");
    let keys = [app.keys.secret_test.as_str(), app.keys.public_test.as_str(), "sk_test_NotARealKeyButStillSecret"];
    for secret in cards.iter().chain(&saved_cards).chain(&keys).copied().chain([secret_in_query]) {
        assert!(!stored.contains(secret), "{secret} is stored in the database");
    }
    // The request log keeps the fields a client sent, never their values.
    assert!(stored.contains("\"cvc\":\"[redacted]\""), "the request log's bodies are in the files");
    assert!(!stored.replace("\"cvc\":\"[redacted]\"", "").contains("\"cvc\""), "a CVC field is stored with its value");
    assert!(!contains_number(&stored, cvc), "the CVC is stored in the database");

    // Malformed HTTP from anyone: counted, logged at debug, never an ERROR line per request.
    let port = app.address.rsplit(':').next().unwrap().to_owned();
    for _ in 0..20 {
        let mut stream = tokio::net::TcpStream::connect(format!("127.0.0.1:{port}")).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut stream, b"GARBAGE\r\n\r\n").await.unwrap();
        let mut answer = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut answer).await;
    }
    let metrics = reqwest::get(format!("{}/metrics", app.address)).await.unwrap().text().await.unwrap();
    let counted: u64 = metrics
        .lines()
        .find_map(|line| line.strip_prefix("payments_http_connection_errors_total "))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no connection error counter in {metrics}"));
    assert!(counted >= 20, "{counted} connection errors counted");

    let logs = String::from_utf8(captured.0.lock().unwrap_or_else(PoisonError::into_inner).clone()).unwrap();
    assert!(logs.contains("request completed") && logs.contains("request_id"), "requests are logged: {logs}");
    assert!(!logs.contains(r#""level":"ERROR""#), "nothing here is an error of the service:\n{logs}");
    assert!(logs.contains("a connection was closed on a protocol error"), "logged at debug");
    for secret in [
        app.keys.secret_test.as_str(),
        app.keys.public_test.as_str(),
        "sk_test_NotARealKeyButStillSecret",
        secret_in_query,
        "hidden-address",
        "5555555555554444",
        in_path,
        "4000%200566",
        "Authorization",
        page_secret.as_str(),
        cards[0],
        cards[1],
        cards[2],
        cards[3],
        saved_cards[0],
        saved_cards[1],
        saved_cards[2],
    ] {
        assert!(!logs.contains(secret), "{secret} appears in the logs:\n{logs}");
    }
    assert!(!contains_number(&logs, cvc), "the CVC appears in the logs:\n{logs}");
}
