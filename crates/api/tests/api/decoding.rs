//! Request bodies: wrapped JSON, content types, size limit, malformed input, unknown routes.

use crate::helpers::{error_codes, ids, read, single_error, TestApp};
use reqwest::header::CONTENT_TYPE;
use reqwest::Method;
use serde_json::json;

on_one_backend!(
    a_wrapped_json_body_is_accepted,
    a_body_without_content_type_is_sniffed,
    an_unsupported_content_type_is_refused,
    a_body_over_the_limit_is_refused,
    malformed_json_is_a_bad_request,
    unknown_routes_answer_404_and_unserved_methods_405_with_allow,
);

async fn a_wrapped_json_body_is_accepted(app: TestApp) {
    let body = json!({"data": {"attributes": {"name": "Ana", "email": "ana@example.com", "currency": "PHP"}}});
    let (status, customer) = read(app.json(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "{customer}");
    assert_eq!(customer["name"], "Ana");
}

async fn a_body_without_content_type_is_sniffed(app: TestApp) {
    for body in [
        r#"{"name":"Ana","email":"ana@example.com","currency":"PHP"}"#,
        "name=Ben&email=ben%40example.com&currency=PHP",
    ] {
        let response = app.request(Method::POST, "/customers", &app.keys.secret_test).body(body).send().await.unwrap();
        let (status, customer) = read(response).await;
        assert_eq!(status, 200, "{body}: {customer}");
    }
}

async fn an_unsupported_content_type_is_refused(app: TestApp) {
    let response = app
        .request(Method::POST, "/customers", &app.keys.secret_test)
        .header(CONTENT_TYPE, "text/plain")
        .body("name=Ana")
        .send()
        .await
        .unwrap();
    let (status, body) = read(response).await;
    assert_eq!(status, 415);
    single_error(&body, "content_type_unsupported");
}

async fn a_body_over_the_limit_is_refused(app: TestApp) {
    let huge = format!("name={}&email=a%40example.com&currency=PHP", "x".repeat(2 * 1024 * 1024));
    let (status, body) = read(app.form(Method::POST, "/customers", &app.keys.secret_test, &huge).await).await;
    assert_eq!(status, 413);
    single_error(&body, "payload_too_large");
    let (_, list) = read(app.get("/customers").await).await;
    assert!(ids(&list).is_empty());
}

async fn malformed_json_is_a_bad_request(app: TestApp) {
    for body in [r#"{"name": "Ana""#, "[1, 2]", "\"text\""] {
        let response = app
            .request(Method::POST, "/customers", &app.keys.secret_test)
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let (status, answer) = read(response).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(error_codes(&answer), vec![(String::new(), "parameter_invalid".to_owned())], "{body}");
    }
}

async fn unknown_routes_answer_404_and_unserved_methods_405_with_allow(app: TestApp) {
    for (method, path) in [(Method::GET, "/nothing"), (Method::POST, "/customers/cus_1/nothing")] {
        let response = app.request(method.clone(), path, &app.keys.secret_test).send().await.unwrap();
        let (status, body) = read(response).await;
        assert_eq!(status, 404, "{method} {path}");
        single_error(&body, "route_not_found");
    }
    for (method, path, allowed) in [
        (Method::PATCH, "/customers", "GET, HEAD, POST"),
        (Method::POST, "/customers/cus_1", "GET, HEAD, PUT, DELETE"),
        (Method::TRACE, "/healthz", "GET, HEAD"),
    ] {
        let response = app.request(method.clone(), path, &app.keys.secret_test).send().await.unwrap();
        assert_eq!(response.headers().get("allow").map(|v| v.to_str().unwrap()), Some(allowed), "{method} {path}");
        let (status, body) = read(response).await;
        assert_eq!(status, 405, "{method} {path}");
        single_error(&body, "method_not_allowed");
    }
    // A method the path does not serve is 405 whatever Idempotency-Key it carries, even one used
    // before: methods are matched before idempotency.
    let created = app.request(Method::POST, "/customers", &app.keys.secret_test).header("Idempotency-Key", "used-once");
    let created = created.form(&[("name", "A"), ("email", "a@example.com"), ("currency", "PHP")]).send().await.unwrap();
    assert_eq!(created.status(), 200);
    for (method, path) in
        [(Method::POST, "/customers/cus_1"), (Method::POST, "/payments/pay_1"), (Method::DELETE, "/customers")]
    {
        let response = app.request(method.clone(), path, &app.keys.secret_test).header("Idempotency-Key", "used-once");
        let response = response.send().await.unwrap();
        assert!(response.headers().contains_key("allow"), "{method} {path}");
        let (status, body) = read(response).await;
        assert_eq!(status, 405, "{method} {path}: {body}");
        single_error(&body, "method_not_allowed");
    }
    let response = app.request(Method::HEAD, "/customers", &app.keys.secret_test).send().await.unwrap();
    assert_eq!(response.status(), 200, "HEAD answers as GET");
    assert!(response.bytes().await.unwrap().is_empty(), "without the body");
}
