//! CORS: a merchant's web page may call the operations a public key may call (preflights answered,
//! answers readable), and nothing else; a secret key's answers are never readable by a page. The
//! rules live in the process, not in storage, so one backend is enough.

use crate::helpers::{read, spawn_app, TestApp};
use payments_adapters::db::Backend;
use reqwest::{Method, Response};

const ORIGIN: &str = "https://shop.example";

/// A request from the merchant's page with `key`.
async fn from_page(app: &TestApp, method: Method, path: &str, key: &str) -> Response {
    app.request(method, path, key).header("Origin", ORIGIN).send().await.unwrap()
}

fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).and_then(|value| value.to_str().ok())
}

async fn preflight(app: &TestApp, path: &str, method: &str) -> Response {
    app.client
        .request(Method::OPTIONS, format!("{}{path}", app.address))
        .header("Origin", ORIGIN)
        .header("Access-Control-Request-Method", method)
        .header("Access-Control-Request-Headers", "authorization, content-type")
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merchants_page_may_call_what_a_public_key_may_call_and_read_the_answer() {
    let app = spawn_app(Backend::Sqlite).await;
    let intent = app.create_intent(10_000, "").await;
    let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
    let intent_path = format!("/payment_intents/{id}");

    for (path, method) in [(intent_path.clone(), "GET"), (format!("{intent_path}/attach"), "POST")] {
        let allowed = preflight(&app, &path, method).await;
        assert!(allowed.status().is_success(), "{path} {method}: {}", allowed.status());
        assert_eq!(header(&allowed, "access-control-allow-origin"), Some("*"));
        let methods = header(&allowed, "access-control-allow-methods").unwrap_or_default();
        assert!(methods.contains(method), "{methods}");
        let headers = header(&allowed, "access-control-allow-headers").unwrap_or_default().to_lowercase();
        assert!(headers.contains("authorization") && headers.contains("content-type"), "{headers}");
    }

    let retrieved =
        from_page(&app, Method::GET, &format!("{intent_path}?client_secret={secret}"), &app.keys.public_test).await;
    assert_eq!(retrieved.status(), 200);
    assert_eq!(header(&retrieved, "access-control-allow-origin"), Some("*"), "the page may read it");
    assert!(header(&retrieved, "access-control-expose-headers").unwrap_or_default().contains("ratelimit-remaining"));

    // An error for a public key is readable too, so the page can show it.
    let refused =
        from_page(&app, Method::GET, &format!("{intent_path}?client_secret=wrong"), &app.keys.public_test).await;
    assert_eq!(refused.status(), 400);
    assert_eq!(header(&refused, "access-control-allow-origin"), Some("*"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_key_or_another_operation_is_never_readable_from_a_page() {
    let app = spawn_app(Backend::Sqlite).await;
    let intent = app.create_intent(10_000, "").await;
    let intent_path = format!("/payment_intents/{}", intent["id"].as_str().unwrap());

    let with_secret_key = from_page(&app, Method::GET, &intent_path, &app.keys.secret_test).await;
    assert_eq!(with_secret_key.status(), 200);
    assert_eq!(header(&with_secret_key, "access-control-allow-origin"), None, "a secret key's answer stays unreadable");

    let update = preflight(&app, &intent_path, "PUT").await;
    let (status, body) = read(update).await;
    assert_eq!((status, body["errors"][0]["code"].as_str()), (400, Some("parameter_invalid")), "{body}");

    for (path, method) in
        [("/customers", "GET"), ("/payment_intents", "POST"), (&*format!("{intent_path}/capture"), "POST")]
    {
        let response = preflight(&app, path, method).await;
        assert!(response.status().is_client_error(), "{path}: {}", response.status());
        assert_eq!(header(&response, "access-control-allow-origin"), None, "{path}");
    }
    let created =
        app.form(Method::POST, "/customers", &app.keys.secret_test, "name=A&email=a%40example.com&currency=PHP").await;
    assert_eq!(header(&created, "access-control-allow-origin"), None);
}
