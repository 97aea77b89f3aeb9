//! `GET /metrics`: requests by route pattern, method and status; the pool; webhook deliveries
//! pending, their age, attempts by outcome and lag; idempotency replays; the optional token.

use crate::helpers::{read, single_error, spawn_app_with, TestApp};
use crate::receiver::{Receiver, Reply};
use crate::webhooks::{pay, register};
use payments_adapters::db::Backend;
use reqwest::Method;

on_both_backends_stepping_deliveries!(requests_deliveries_and_replays_are_counted);

/// The metrics text, after checking the answer's status and type.
async fn scrape(app: &TestApp) -> String {
    let response = app.client.get(format!("{}/metrics", app.address)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("application/openmetrics-text; version=1.0.0"), "{content_type}");
    response.text().await.unwrap()
}

/// The value of the sample `name` exactly as written, or `None` when it is absent.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

async fn requests_deliveries_and_replays_are_counted(app: TestApp) {
    let customer = app.create_customer("Juan").await;
    let path = format!("/customers/{}", customer["id"].as_str().unwrap());
    for _ in 0..3 {
        assert_eq!(app.get(&path).await.status(), 200);
    }
    assert_eq!(app.get("/no/such/route").await.status(), 404);
    let replayed = || {
        app.request(Method::POST, "/customers", &app.keys.secret_test)
            .header("Idempotency-Key", "metrics-replay")
            .form(&[("name", "Maria"), ("email", "maria@example.com"), ("currency", "PHP")])
            .send()
    };
    assert_eq!(replayed().await.unwrap().status(), 200);
    assert_eq!(replayed().await.unwrap().headers()["idempotent-replayed"], "true");

    let receiver = Receiver::start(vec![Reply::Status(500)]);
    register(&app, &receiver.url, &["payment.paid"]).await;
    pay(&app).await;
    app.clock.advance(3);
    let text = scrape(&app).await;
    let duration = "payments_http_request_duration_seconds";
    let route = r#"route="/customers/{id}",method="GET",status="200""#;
    assert_eq!(sample(&text, &format!("{duration}_count{{{route}}}")), Some(3.0), "{text}");
    assert_eq!(
        sample(&text, &format!(r#"{duration}_count{{route="unmatched",method="GET",status="404"}}"#)),
        Some(1.0)
    );
    assert_eq!(sample(&text, "payments_idempotent_replays_total"), Some(1.0));
    assert_eq!(sample(&text, "payments_webhook_deliveries_pending"), Some(1.0), "the payment's event waits");
    let age = sample(&text, "payments_webhook_oldest_pending_age_seconds").unwrap();
    assert!((3.0..4.0).contains(&age), "created three seconds ago: {age}");
    assert_eq!(sample(&text, "payments_db_pool_max_connections"), Some(4.0));
    assert!(sample(&text, "payments_db_pool_connections").is_some_and(|open| (1.0..=4.0).contains(&open)));
    assert!(sample(&text, "payments_db_pool_wait_seconds_count").is_some_and(|checkouts| checkouts >= 10.0));

    // The first attempt, three seconds after it fell due, is refused (500); the retry lands on time.
    assert_eq!(app.deliver_due().await, 1);
    app.clock.advance(10);
    assert_eq!(app.deliver_due().await, 1);
    let text = scrape(&app).await;
    for (outcome, count) in [("delivered", 1.0), ("rejected", 1.0)] {
        let name = format!(r#"payments_webhook_delivery_attempts_total{{outcome="{outcome}"}}"#);
        assert_eq!(sample(&text, &name), Some(count), "{text}");
    }
    let lag = "payments_background_job_lag_seconds";
    assert_eq!(sample(&text, &format!(r#"{lag}_count{{job="webhook_delivery"}}"#)), Some(2.0));
    assert_eq!(sample(&text, &format!(r#"{lag}_bucket{{le="1.0",job="webhook_delivery"}}"#)), Some(1.0));
    assert_eq!(sample(&text, &format!(r#"{lag}_bucket{{le="5.0",job="webhook_delivery"}}"#)), Some(2.0));
    assert_eq!(sample(&text, "payments_webhook_deliveries_pending"), Some(0.0));
    assert_eq!(sample(&text, "payments_webhook_oldest_pending_age_seconds"), Some(0.0));
    assert_eq!(text.lines().last(), Some("# EOF"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_token_guards_the_metrics_and_disabled_metrics_are_not_served() {
    let app = spawn_app_with(Backend::Sqlite, |settings| settings.metrics.bearer_token = "scrape-token-1".into()).await;
    let url = format!("{}/metrics", app.address);
    for request in [app.client.get(&url), app.client.get(&url).bearer_auth("scrape-token-2")] {
        let (status, body) = read(request.send().await.unwrap()).await;
        assert_eq!(status, 401, "{body}");
        single_error(&body, "auth_invalid");
    }
    let response = app.client.get(&url).bearer_auth("scrape-token-1").send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.text().await.unwrap().contains("payments_http_request_duration_seconds"));
    let refused = app.client.post(&url).bearer_auth("scrape-token-1").send().await.unwrap();
    assert_eq!(
        (refused.status().as_u16(), refused.headers().get("allow").unwrap().to_str().unwrap()),
        (405, "GET, HEAD")
    );

    let off = spawn_app_with(Backend::Sqlite, |settings| settings.metrics.enabled = false).await;
    let (status, body) = read(off.client.get(format!("{}/metrics", off.address)).send().await.unwrap()).await;
    assert_eq!(status, 404, "{body}");
    single_error(&body, "route_not_found");
}
