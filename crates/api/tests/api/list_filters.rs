//! The filters merchants reconcile by: checkout sessions by `status` and `customer_reference_id`,
//! webhooks by `status`, events by `type` and `object_id`. Every given filter must match, cursors
//! page within the filter, a bad value is a 400 naming the parameter, and another account or mode
//! never shows up.

use crate::checkout_sessions::{create_session, SESSION};
use crate::helpers::{error_codes, ids, read, TestApp};
use reqwest::Method;

on_both_backends!(checkout_sessions_are_filtered_by_status_and_reference);
on_both_backends!(webhooks_are_filtered_by_status);
on_both_backends!(events_are_filtered_by_type_and_object);

/// The list at `path` with the test secret key, as ids; a failure shows the answer.
async fn listed(app: &TestApp, path: &str) -> Vec<String> {
    let (status, page) = read(app.get(path).await).await;
    assert_eq!(status, 200, "{path}: {page}");
    ids(&page)
}

async fn refused(app: &TestApp, path: &str, parameter: &str) {
    let (status, body) = read(app.get(path).await).await;
    assert_eq!((status, error_codes(&body)), (400, vec![(parameter.into(), "parameter_invalid".into())]), "{path}");
}

async fn checkout_sessions_are_filtered_by_status_and_reference(app: TestApp) {
    let first = create_session(&app, "").await["id"].as_str().unwrap().to_owned();
    let second = create_session(&app, "").await["id"].as_str().unwrap().to_owned();
    let other_cart = create_session(&app, "1").await["id"].as_str().unwrap().to_owned();
    let (status, _) = app.post(&format!("/checkout_sessions/{first}/expire"), "").await;
    assert_eq!(status, 200);
    assert_eq!(listed(&app, "/checkout_sessions?status=active").await, [other_cart.clone(), second.clone()]);
    assert_eq!(listed(&app, "/checkout_sessions?status=expired").await, [first.as_str()]);
    assert!(listed(&app, "/checkout_sessions?status=completed").await.is_empty());
    assert_eq!(listed(&app, "/checkout_sessions?customer_reference_id=cart-42").await, [second.clone(), first.clone()]);
    assert_eq!(listed(&app, "/checkout_sessions?customer_reference_id=cart-421&status=active").await, [other_cart]);
    assert!(listed(&app, "/checkout_sessions?customer_reference_id=cart-421&status=expired").await.is_empty());
    let page = format!("/checkout_sessions?customer_reference_id=cart-42&limit=1&after={second}");
    assert_eq!(listed(&app, &page).await, [first.as_str()], "a cursor pages within the filter");
    refused(&app, "/checkout_sessions?status=open", "status").await;
    refused(&app, &format!("/checkout_sessions?customer_reference_id={}", "x".repeat(256)), "customer_reference_id")
        .await;

    let live = app.form(Method::POST, "/checkout_sessions", &app.keys.secret_live, SESSION).await;
    assert_eq!(read(live).await.0, 200);
    let (_, other) = read(
        app.request(Method::GET, "/checkout_sessions?customer_reference_id=cart-42", &app.other_account_key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(ids(&other).is_empty(), "another account: {other}");
    assert_eq!(listed(&app, "/checkout_sessions?customer_reference_id=cart-42").await.len(), 2, "not the live one");
}

async fn webhooks_are_filtered_by_status(app: TestApp) {
    let body = "url=https%3A%2F%2Fhooks.example%2Fa&events[]=payment_intent.succeeded";
    let enabled = app.post("/webhooks", body).await.1["id"].as_str().unwrap().to_owned();
    let disabled = app.post("/webhooks", body).await.1["id"].as_str().unwrap().to_owned();
    let (status, _) = app.post(&format!("/webhooks/{disabled}/disable"), "").await;
    assert_eq!(status, 200);
    assert_eq!(listed(&app, "/webhooks?status=enabled").await, [enabled.as_str()]);
    assert_eq!(listed(&app, "/webhooks?status=disabled").await, [disabled.as_str()]);
    assert_eq!(listed(&app, "/webhooks").await, [disabled.clone(), enabled.clone()]);
    assert_eq!(listed(&app, &format!("/webhooks?limit=1&after={disabled}")).await, [enabled], "the cursor pages");
    refused(&app, "/webhooks?status=paused", "status").await;
}

async fn events_are_filtered_by_type_and_object(app: TestApp) {
    let paid = app.create_intent(10_000, "").await["id"].as_str().unwrap().to_owned();
    assert_eq!(app.attach_card(&paid, "4242424242424242").await.0, 200);
    let other = app.create_intent(20_000, "").await["id"].as_str().unwrap().to_owned();
    assert_eq!(app.attach_card(&other, "4242424242424242").await.0, 200);
    let (_, all) = read(app.get("/events?limit=100").await).await;
    let events = all["data"].as_array().unwrap();
    let of = |object: &str, event_type: Option<&str>| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["data"]["id"] == object && event_type.is_none_or(|t| e["type"] == t))
            .map(|e| e["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let expected = of(&paid, None);
    assert!(!expected.is_empty(), "the intent's events: {all}");
    assert_eq!(listed(&app, &format!("/events?object_id={paid}")).await, expected);
    let succeeded = "payment_intent.succeeded";
    let both = listed(&app, &format!("/events?object_id={paid}&type={succeeded}")).await;
    assert_eq!(both, of(&paid, Some(succeeded)));
    assert_eq!(both.len(), 1);
    let by_type = listed(&app, &format!("/events?type={succeeded}")).await;
    assert_eq!(by_type, [of(&other, Some(succeeded)), of(&paid, Some(succeeded))].concat(), "newest first");
    let next = listed(&app, &format!("/events?type={succeeded}&limit=1&after={}", by_type[0])).await;
    assert_eq!(next, [by_type[1].clone()], "a cursor pages within the filter");
    assert!(listed(&app, "/events?object_id=pi_nothing").await.is_empty());
    refused(&app, "/events?type=payment_intent.exploded", "type").await;

    let (_, elsewhere) = read(
        app.request(Method::GET, &format!("/events?object_id={paid}"), &app.other_account_key).send().await.unwrap(),
    )
    .await;
    assert!(ids(&elsewhere).is_empty(), "another account: {elsewhere}");
    let (_, live) = read(
        app.request(Method::GET, &format!("/events?object_id={paid}"), &app.keys.secret_live).send().await.unwrap(),
    )
    .await;
    assert!(ids(&live).is_empty(), "live mode: {live}");
}
