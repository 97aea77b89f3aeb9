//! Events over HTTP: what each change records, and how events are read.

use crate::helpers::{error_codes, ids, read, single_error, TestApp};
use reqwest::Method;
use serde_json::json;

on_both_backends!(an_event_carries_the_resource_as_the_api_returns_it, events_are_paged_and_confined_to_their_scope);

async fn an_event_carries_the_resource_as_the_api_returns_it(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let intent_id = intent["id"].as_str().unwrap();
    app.attach_card(intent_id, "4242424242424242").await;
    let (_, paid) = read(app.get(&format!("/payment_intents/{intent_id}")).await).await;
    let (status, events) = read(app.get("/events").await).await;
    assert_eq!(status, 200);
    let events = events["data"].as_array().unwrap();
    let succeeded = events.iter().find(|e| e["type"] == "payment_intent.succeeded").expect("payment_intent.succeeded");
    assert!(succeeded["id"].as_str().unwrap().starts_with("evt_"));
    assert_eq!((succeeded["resource"].as_str(), succeeded["livemode"].as_bool()), (Some("event"), Some(false)));
    assert_eq!(succeeded["data"], paid, "the data is what a retrieval returns");
    assert_eq!(succeeded["previous_attributes"]["status"], "awaiting_payment_method");
    assert_eq!(succeeded["previous_attributes"]["amount_received"], 0);
    assert!(succeeded["previous_attributes"].get("amount").is_none(), "unchanged fields are left out");
    let payment_paid = events.iter().find(|e| e["type"] == "payment.paid").expect("payment.paid");
    assert_eq!(payment_paid["data"], paid["latest_payment"]);
    assert_eq!(payment_paid["previous_attributes"], json!({}));
    let (status, one) = read(app.get(&format!("/events/{}", succeeded["id"].as_str().unwrap())).await).await;
    assert_eq!((status, &one), (200, succeeded));
}

async fn events_are_paged_and_confined_to_their_scope(app: TestApp) {
    for _ in 0..3 {
        let intent = app.create_intent(10_000, "").await;
        app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    }
    let (_, all) = read(app.get("/events?limit=100").await).await;
    let all = ids(&all);
    assert_eq!(all.len(), 6);
    let (_, first) = read(app.get("/events?limit=4").await).await;
    assert_eq!((ids(&first), first["has_more"].as_bool()), (all[..4].to_vec(), Some(true)));
    let (_, rest) = read(app.get(&format!("/events?limit=4&after={}", all[3])).await).await;
    assert_eq!((ids(&rest), rest["has_more"].as_bool()), (all[4..].to_vec(), Some(false)));
    let (_, theirs) = read(app.request(Method::GET, "/events", &app.other_account_key).send().await.unwrap()).await;
    assert!(ids(&theirs).is_empty());
    let (status, body) =
        read(app.request(Method::GET, &format!("/events/{}", all[0]), &app.other_account_key).send().await.unwrap())
            .await;
    assert_eq!(status, 404);
    single_error(&body, "resource_not_found");
    let (status, body) = read(app.get("/events?colour=red").await).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("colour".to_owned(), "parameter_invalid".to_owned())]));
    let (status, _) = read(app.request(Method::GET, "/events", &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(status, 401);
}
