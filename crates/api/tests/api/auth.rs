//! Authentication and tenant isolation.

use crate::helpers::{ids, read, single_error, TestApp};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use reqwest::header::AUTHORIZATION;
use reqwest::Method;

on_both_backends!(
    a_request_without_credentials_is_refused,
    malformed_and_unknown_keys_are_refused,
    basic_without_the_colon_and_bearer_are_accepted,
    a_public_key_is_refused_for_customers,
    another_accounts_customer_is_indistinguishable_from_a_missing_one,
    a_live_key_does_not_see_test_objects,
);

async fn with_authorization(app: &TestApp, value: &str) -> (u16, serde_json::Value) {
    let response = app
        .client
        .get(format!("{}/customers", app.address))
        .header(AUTHORIZATION, value)
        .send()
        .await
        .expect("send the request");
    read(response).await
}

async fn a_request_without_credentials_is_refused(app: TestApp) {
    let response = app.client.get(format!("{}/customers", app.address)).send().await.unwrap();
    let (status, body) = read(response).await;
    assert_eq!(status, 401);
    single_error(&body, "auth_invalid");
    let response = app.client.post(format!("{}/customers", app.address)).body("name=x").send().await.unwrap();
    assert_eq!(response.status(), 401);
}

async fn malformed_and_unknown_keys_are_refused(app: TestApp) {
    let unknown = format!("Basic {}", STANDARD.encode(format!("sk_test_{}:", "A".repeat(40))));
    let with_password = format!("Basic {}", STANDARD.encode(format!("{}:secret", app.keys.secret_test)));
    for value in [
        "Basic !!!not-base64!!!",
        unknown.as_str(),
        with_password.as_str(),
        "Token abc",
        "Bearer",
        "Bearer sk_test_short",
        "Basic",
    ] {
        let (status, body) = with_authorization(&app, value).await;
        assert_eq!(status, 401, "{value}");
        single_error(&body, "auth_invalid");
    }
}

async fn basic_without_the_colon_and_bearer_are_accepted(app: TestApp) {
    let key = &app.keys.secret_test;
    for value in [
        format!("Basic {}", STANDARD.encode(key)),
        format!("Bearer {key}"),
        format!("basic {}", STANDARD.encode(format!("{key}:"))),
    ] {
        let (status, body) = with_authorization(&app, &value).await;
        assert_eq!(status, 200, "{value}: {body}");
    }
}

async fn a_public_key_is_refused_for_customers(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let path = format!("/customers/{}", customer["id"].as_str().unwrap());
    for (method, path) in [(Method::GET, "/customers"), (Method::GET, path.as_str()), (Method::DELETE, path.as_str())] {
        let response = app.request(method.clone(), path, &app.keys.public_test).send().await.unwrap();
        let (status, body) = read(response).await;
        assert_eq!(status, 401, "{method} {path}");
        single_error(&body, "auth_invalid");
    }
    let body = "name=Ana&email=a%40example.com&currency=PHP";
    let (status, _) = read(app.form(Method::POST, "/customers", &app.keys.public_test, body).await).await;
    assert_eq!(status, 401);
}

async fn another_accounts_customer_is_indistinguishable_from_a_missing_one(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let id = customer["id"].as_str().unwrap();
    let path = format!("/customers/{id}");
    let (status, theirs) = read(app.request(Method::GET, &path, &app.other_account_key).send().await.unwrap()).await;
    assert_eq!(status, 404);
    let missing = "cus_missingMissingMissingMissing12";
    let (_, absent) =
        read(app.request(Method::GET, &format!("/customers/{missing}"), &app.other_account_key).send().await.unwrap())
            .await;
    assert_eq!(theirs.to_string().replace(id, "ID"), absent.to_string().replace(missing, "ID"));
    let (status, _) = read(app.form(Method::PUT, &path, &app.other_account_key, "name=Mallory").await).await;
    assert_eq!(status, 404);
    let (status, _) = read(app.request(Method::DELETE, &path, &app.other_account_key).send().await.unwrap()).await;
    assert_eq!(status, 404);
    let (_, list) = read(app.request(Method::GET, "/customers", &app.other_account_key).send().await.unwrap()).await;
    assert!(ids(&list).is_empty());
    let (_, mine) = read(app.get(&path).await).await;
    assert_eq!(mine, customer, "the owner's customer is untouched");
}

async fn a_live_key_does_not_see_test_objects(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let path = format!("/customers/{}", customer["id"].as_str().unwrap());
    let (status, body) = read(app.request(Method::GET, &path, &app.keys.secret_live).send().await.unwrap()).await;
    assert_eq!(status, 404);
    single_error(&body, "resource_not_found");
    let (_, list) = read(app.request(Method::GET, "/customers", &app.keys.secret_live).send().await.unwrap()).await;
    assert!(ids(&list).is_empty());
    let body = "name=Live&email=live%40example.com&currency=PHP";
    let (status, live) = read(app.form(Method::POST, "/customers", &app.keys.secret_live, body).await).await;
    assert_eq!(status, 200);
    assert_eq!(live["livemode"], true);
}
