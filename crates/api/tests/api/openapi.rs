//! The OpenAPI document at `/openapi.json` against the running service: every documented operation
//! is served and nothing else is on the documented paths; the document holds together as OpenAPI
//! 3.1 (the full validation runs in `.ci/run` with `openapi-spec-validator`, and schemathesis
//! checks answers against it); `/docs` renders it in a real browser without leaving the machine.

use crate::browser::browser;
use crate::helpers::{read, spawn_app, TestApp};
use payments_adapters::db::Backend;
use payments_domain::event::EventType;
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeSet;

const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

async fn document(app: &TestApp) -> Value {
    let response = app.client.get(format!("{}/openapi.json", app.address)).send().await.unwrap();
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("application/json"), "{content_type}");
    let (status, document) = read(response).await;
    assert_eq!(status, 200, "served without a key: {document}");
    document
}

/// `{name}` segments filled with an id no object has.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|segment| if segment.starts_with('{') { "cus_nothing_here" } else { segment })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether the service serves the request's method on its path: an unserved method answers 405
/// `method_not_allowed`, whose `Allow` header lists exactly the methods `served` (HEAD with GET).
async fn routed(app: &TestApp, method: &str, path: &str, served: &[&str]) -> bool {
    let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    let mut request = app.request(method.clone(), &concrete(path), &app.keys.secret_test);
    if method != Method::GET {
        request = request.json(&json!({}));
    }
    let response = request.send().await.unwrap();
    let allow = response.headers().get("allow").map(|value| value.to_str().unwrap().to_owned());
    if response.headers().get("content-type").is_some_and(|value| value == "text/event-stream") {
        // The event stream: served, and it answers for as long as it is read.
        return true;
    }
    let (status, body) = read(response).await;
    assert_ne!(body["errors"][0]["code"], "route_not_found", "{method} {path}: every documented path is routed");
    if status != 405 {
        return true;
    }
    assert_eq!(body["errors"][0]["code"], "method_not_allowed", "{method} {path}");
    let mut expected: Vec<String> = served.iter().map(|name| name.to_uppercase()).collect();
    if served.contains(&"get") {
        expected.insert(expected.iter().position(|name| name == "GET").unwrap() + 1, "HEAD".to_owned());
    }
    let listed: Vec<String> = allow.expect("a 405 names what is allowed").split(", ").map(str::to_owned).collect();
    assert_eq!(listed, expected, "Allow of {method} {path}");
    false
}

/// Routes are registered only from the endpoint list the document is built from
/// (`routes::endpoints`); this checks from outside that the server really serves each documented
/// operation and its aliases, and serves no other method on a documented path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_documented_operation_is_served_and_no_other_method_is() {
    let app = spawn_app(Backend::Sqlite).await;
    let document = document(&app).await;
    let paths = document["paths"].as_object().unwrap();
    assert!(paths.len() >= 35, "the whole API: {} paths", paths.len());
    for (path, item) in paths {
        let served: Vec<&str> = METHODS.into_iter().filter(|method| item.get(*method).is_some()).collect();
        for method in METHODS.into_iter().chain(["trace"]) {
            let documented = item.get(method).is_some();
            assert_eq!(routed(&app, method, path, &served).await, documented, "{} {path}", method.to_uppercase());
        }
        for alias in item["x-aliases"].as_array().into_iter().flatten() {
            let alias = alias.as_str().unwrap();
            let mut any = false;
            for method in &served {
                any |= routed(&app, method, alias, &served).await;
            }
            assert!(any, "the alias {alias} of {path} is served");
        }
    }
    for page in ["/docs", "/openapi.json", "/healthz"] {
        let response = app.client.get(format!("{}{page}", app.address)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{page}");
    }
    for page in ["/docs", "/openapi.json", "/healthz", "/assets/pages.css"] {
        let response = app.client.head(format!("{}{page}", app.address)).send().await.unwrap();
        assert_eq!(response.status(), 200, "HEAD {page}");
        assert!(response.headers().contains_key("content-type"), "HEAD {page} answers GET's headers");
        assert!(response.bytes().await.unwrap().is_empty(), "HEAD {page} has no body");
        for method in [Method::POST, Method::PUT, Method::DELETE, Method::TRACE] {
            let response = app.request(method.clone(), page, &app.keys.secret_test).send().await.unwrap();
            assert_eq!(response.headers().get("allow").unwrap(), "GET, HEAD", "{method} {page}");
            let (status, body) = read(response).await;
            assert_eq!(
                (status, body["errors"][0]["code"].as_str()),
                (405, Some("method_not_allowed")),
                "{method} {page}"
            );
        }
    }
}

/// Every `$ref` in `value`.
fn references<'a>(value: &'a Value, found: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref") {
                found.push(target);
            }
            map.values().for_each(|inner| references(inner, found));
        }
        Value::Array(items) => items.iter().for_each(|inner| references(inner, found)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_is_openapi_3_1_and_holds_together() {
    let app = spawn_app(Backend::Sqlite).await;
    let document = document(&app).await;
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["servers"][0]["url"], app.address.as_str());
    let schemas = document["components"]["schemas"].as_object().unwrap();
    let schemes = document["components"]["securitySchemes"].as_object().unwrap();
    assert_eq!(schemes.keys().collect::<Vec<_>>(), ["public_key", "secret_key"]);

    let mut found = Vec::new();
    references(&document, &mut found);
    assert!(found.len() > 100, "responses and webhooks refer to the component schemas");
    for target in &found {
        let name = target.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("a local schema: {target}"));
        assert!(schemas.contains_key(name), "{target} resolves");
    }
    let referenced: BTreeSet<&str> = found.iter().map(|t| t.trim_start_matches("#/components/schemas/")).collect();
    for name in schemas.keys() {
        assert!(referenced.contains(name.as_str()), "the schema {name} is used");
    }

    let mut operation_ids = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        let in_path: BTreeSet<&str> = path.split('/').filter_map(|s| s.strip_prefix('{')?.strip_suffix('}')).collect();
        for (method, operation) in item.as_object().unwrap().iter().filter(|(key, _)| METHODS.contains(&key.as_str())) {
            let id = operation["operationId"].as_str().unwrap();
            assert!(operation_ids.insert(id.to_owned()), "{id} is unique");
            let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
            let declared: BTreeSet<&str> =
                parameters.iter().filter(|p| p["in"] == "path").map(|p| p["name"].as_str().unwrap()).collect();
            assert_eq!(declared, in_path, "{method} {path} declares its path parameters");
            let responses = operation["responses"].as_object().unwrap();
            assert!(responses.contains_key("200"), "{id} answers 200");
            let public = path == "/healthz" || path == "/readyz";
            assert_eq!(operation.get("security").is_none(), public, "{id}: a key unless a probe");
            if !public {
                for status in ["400", "401", "404", "503"] {
                    let error = &responses[status]["content"]["application/json"]["schema"]["$ref"];
                    assert_eq!(error, "#/components/schemas/Error", "{id} {status}");
                }
            }
            if method != "get" {
                let key = parameters.iter().find(|p| p["name"] == "Idempotency-Key");
                assert_eq!(key.map(|p| &p["in"]), Some(&json!("header")), "{id} takes an Idempotency-Key");
            }
            if let Some(body) = operation.get("requestBody") {
                let content = &body["content"];
                let form = &content["application/x-www-form-urlencoded"]["schema"];
                assert_eq!(&content["application/json"]["schema"], form, "{id}: both encodings, one schema");
                let named = form["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/"));
                assert!(named.is_some_and(|name| name.ends_with("Request")), "{id}: a named request component");
                assert_eq!(resolved(&document, form)["additionalProperties"], false, "{id} refuses unknown parameters");
            }
        }
    }
    assert!(operation_ids.len() >= 50, "{} operations", operation_ids.len());

    let webhooks = document["webhooks"].as_object().unwrap();
    assert_eq!(webhooks.len(), EventType::ALL.len(), "one webhook per event type");
    for (name, item) in webhooks {
        let signature = &item["post"]["parameters"][0];
        assert_eq!((&signature["name"], &signature["in"]), (&json!("Payrex-Signature"), &json!("header")), "{name}");
    }
}

/// `schema`, or the component its `$ref` names.
fn resolved<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) {
        Some(name) => &document["components"]["schemas"][name],
        None => schema,
    }
}

/// The documented bounds are the service's own: what the document allows passes, one past it fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_bounds_are_the_enforced_ones() {
    let app = spawn_app(Backend::Sqlite).await;
    let document = document(&app).await;
    let create = resolved(
        &document,
        &document["paths"]["/customers"]["post"]["requestBody"]["content"]["application/json"]["schema"],
    );
    let longest = create["properties"]["name"]["maxLength"].as_u64().unwrap() as usize;
    assert_eq!(create["required"], json!(["name", "email", "currency"]));
    for (length, status) in [(longest, 200), (longest + 1, 400)] {
        let body = json!({"name": "n".repeat(length), "email": "a@example.com", "currency": "PHP"});
        let (answer, json) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
        assert_eq!(answer, status, "a name of {length} characters: {json}");
    }
    let intent = resolved(
        &document,
        &document["paths"]["/payment_intents"]["post"]["requestBody"]["content"]["application/json"]["schema"],
    );
    let amount = &intent["properties"]["amount"];
    let (minimum, maximum) = (amount["minimum"].as_i64().unwrap(), amount["maximum"].as_i64().unwrap());
    for (value, status) in [(minimum - 1, 400), (minimum, 200), (maximum, 200), (maximum + 1, 400)] {
        let body = json!({"amount": value, "currency": "PHP", "payment_methods": ["card"]});
        let (answer, json) = read(app.json(Method::POST, "/payment_intents", &app.keys.secret_test, &body).await).await;
        assert_eq!(answer, status, "an amount of {value}: {json}");
    }
    // An optional parameter's own schema comes first among the forms it may be sent in.
    let metadata = &create["properties"]["metadata"]["anyOf"][0];
    let keys = metadata["maxProperties"].as_u64().unwrap();
    for (count, status) in [(keys, 200), (keys + 1, 400)] {
        let pairs: serde_json::Map<String, Value> = (0..count).map(|i| (format!("k{i}"), json!("v"))).collect();
        let body = json!({"name": "M", "email": "m@example.com", "currency": "PHP", "metadata": pairs});
        let (answer, json) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
        assert_eq!(answer, status, "{count} metadata keys: {json}");
    }
}

/// `/docs` in headless Chromium: every operation is on the page, and the browser fetched nothing
/// but the page and its stylesheet from the service itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_page_renders_offline() {
    let app = spawn_app(Backend::Sqlite).await;
    let document = document(&app).await;
    let operations: usize = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| item.as_object().unwrap().keys().filter(|key| METHODS.contains(&key.as_str())).count())
        .sum();
    let response = app.client.get(format!("{}/docs", app.address)).send().await.unwrap();
    let policy = response.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(policy.starts_with("default-src 'none'"), "{policy}");

    let browser = browser().await;
    browser.client.goto(&format!("{}/docs", app.address)).await.unwrap();
    browser.see("Create a payment intent").await;
    let shown = browser.client.execute("return document.querySelectorAll('article.operation').length", vec![]).await;
    let shown = shown.unwrap().as_u64().unwrap() as usize;
    assert_eq!(shown, operations, "one article per operation");
    let loaded = browser
        .client
        .execute("return performance.getEntriesByType('resource').map(e => e.name)", vec![])
        .await
        .unwrap();
    let loaded: Vec<String> = serde_json::from_value(loaded).unwrap();
    assert!(!loaded.is_empty(), "the stylesheet was loaded");
    for url in &loaded {
        assert!(url.starts_with(&app.address), "nothing from another site: {url}");
    }
    browser.screenshot("docs-desktop").await;
    browser.client.set_window_size(390, 1400).await.unwrap();
    browser.screenshot("docs-phone").await;
}
