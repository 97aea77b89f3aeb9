//! `Idempotency-Key`: replay, mismatch, scoping, failures, concurrency.

use crate::helpers::{contains_number, ids, read, single_error, TestApp};
use payments_api::decode::BodyFormat;
use payments_api::idempotency::fingerprint;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use futures_util::future::join_all;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, Response};
use std::time::Duration;
use tokio::io::AsyncWriteExt;

on_both_backends!(
    a_retried_create_replays_the_first_response_byte_for_byte,
    the_same_key_with_another_request_is_refused,
    a_key_is_scoped_to_its_mode,
    a_failed_request_is_not_stored,
    concurrent_requests_with_one_key_create_one_customer,
    an_over_long_key_is_refused,
    a_declined_attach_is_replayed_not_charged_again,
    a_client_that_resets_mid_request_cannot_make_a_retry_run_twice,
    a_public_key_never_gets_what_a_secret_key_stored,
    the_idempotency_record_holds_nothing_a_card_can_be_guessed_back_from,
    keys_that_differ_only_where_a_card_number_would_be_cut_stay_apart,
);

const BODY: &str = "name=Ana&email=ana%40example.com&currency=PHP";

async fn send(app: &TestApp, key: &str, api_key: &str, body: &str) -> Response {
    app.request(Method::POST, "/customers", api_key)
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header("Idempotency-Key", key)
        .body(body.to_owned())
        .send()
        .await
        .expect("send the request")
}

async fn a_retried_create_replays_the_first_response_byte_for_byte(app: TestApp) {
    let first = send(&app, "order-1", &app.keys.secret_test, BODY).await;
    assert_eq!(first.status(), 200);
    assert!(first.headers().get("Idempotent-Replayed").is_none());
    let first_body = first.bytes().await.unwrap();
    let retry = send(&app, "order-1", &app.keys.secret_test, BODY).await;
    assert_eq!(retry.status(), 200);
    assert_eq!(retry.headers().get("Idempotent-Replayed").and_then(|v| v.to_str().ok()), Some("true"));
    assert!(retry
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.to_str().unwrap_or("").starts_with("application/json")));
    assert_eq!(retry.bytes().await.unwrap(), first_body);
    let (_, list) = read(app.get("/customers").await).await;
    assert_eq!(ids(&list).len(), 1, "one customer for two requests");
}

async fn the_same_key_with_another_request_is_refused(app: TestApp) {
    assert_eq!(send(&app, "order-2", &app.keys.secret_test, BODY).await.status(), 200);
    let other = BODY.replace("Ana", "Ben");
    let (status, body) = read(send(&app, "order-2", &app.keys.secret_test, &other).await).await;
    assert_eq!(status, 400);
    single_error(&body, "idempotency_key_reused");
    let response = app
        .request(Method::PUT, "/customers/cus_00000000000000000000000000000000", &app.keys.secret_test)
        .header("Idempotency-Key", "order-2")
        .send()
        .await
        .unwrap();
    let (status, body) = read(response).await;
    assert_eq!(status, 400, "another method and path");
    single_error(&body, "idempotency_key_reused");
}

async fn a_key_is_scoped_to_its_mode(app: TestApp) {
    let (_, test) = read(send(&app, "order-3", &app.keys.secret_test, BODY).await).await;
    let (status, live) = read(send(&app, "order-3", &app.keys.secret_live, BODY).await).await;
    assert_eq!(status, 200);
    assert_ne!(test["id"], live["id"]);
    assert_eq!(live["livemode"], true);
}

async fn a_failed_request_is_not_stored(app: TestApp) {
    let invalid = "name=Ana&email=nope&currency=PHP";
    let (status, _) = read(send(&app, "order-4", &app.keys.secret_test, invalid).await).await;
    assert_eq!(status, 400);
    let retry = send(&app, "order-4", &app.keys.secret_test, invalid).await;
    assert!(retry.headers().get("Idempotent-Replayed").is_none());
    assert_eq!(retry.status(), 400);
    let (status, created) = read(send(&app, "order-4", &app.keys.secret_test, BODY).await).await;
    assert_eq!(status, 200, "the key is free after a failure: {created}");
}

async fn concurrent_requests_with_one_key_create_one_customer(app: TestApp) {
    let attempts = (0..10).map(|_| {
        let app = &app;
        async move { read(send(app, "order-5", &app.keys.secret_test, BODY).await).await }
    });
    let outcomes = join_all(attempts).await;
    let mut created = std::collections::BTreeSet::new();
    for (status, body) in &outcomes {
        match status {
            200 => {
                created.insert(body["id"].as_str().unwrap().to_owned());
            }
            409 => assert_eq!(body["errors"][0]["code"], "idempotency_key_in_use", "{body}"),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(created.len(), 1, "every success is the same customer");
    let (_, list) = read(app.get("/customers").await).await;
    assert_eq!(ids(&list).len(), 1);
}

async fn an_over_long_key_is_refused(app: TestApp) {
    let (status, body) = read(send(&app, &"k".repeat(256), &app.keys.secret_test, BODY).await).await;
    assert_eq!(status, 400);
    single_error(&body, "parameter_invalid");
    let (_, list) = read(app.get("/customers").await).await;
    assert!(ids(&list).is_empty());
}

async fn a_declined_attach_is_replayed_not_charged_again(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    let body =
        "payment_method[type]=card&payment_method[card][number]=4503300000000008&payment_method[card][exp_month]=12\
                &payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";
    let attach = || {
        app.request(Method::POST, &path, &app.keys.secret_test)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("Idempotency-Key", "attach-1")
            .body(body)
            .send()
    };
    let first = attach().await.unwrap();
    assert_eq!(first.status(), 400);
    let first_body = first.bytes().await.unwrap();
    let retry = attach().await.unwrap();
    assert_eq!(retry.status(), 400);
    assert_eq!(retry.headers().get("Idempotent-Replayed").and_then(|v| v.to_str().ok()), Some("true"));
    assert_eq!(retry.bytes().await.unwrap(), first_body, "the decline is replayed byte for byte");
    let failed = app.event_types().await.iter().filter(|t| *t == "payment.failed").count();
    assert_eq!(failed, 1, "the card was tried once");
}

/// Sends a form POST on a raw connection and, once the server has had time to read it, resets the
/// connection (`SO_LINGER` 0) without reading the answer.
async fn send_and_reset(app: &TestApp, path: &str, idempotency_key: &str, body: &str) {
    let address = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.expect("connect");
    let credentials = STANDARD.encode(format!("{}:", app.keys.secret_test));
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Basic {credentials}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nIdempotency-Key: {idempotency_key}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.expect("send the request");
    stream.flush().await.expect("flush");
    tokio::time::sleep(Duration::from_millis(200)).await;
    stream.set_zero_linger().expect("set SO_LINGER to 0");
    drop(stream);
}

async fn a_client_that_resets_mid_request_cannot_make_a_retry_run_twice(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let (status, paid) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    assert_eq!(status, 200, "{paid}");
    let payment_id = paid["latest_payment"]["id"].as_str().unwrap().to_owned();
    let body = format!("amount=1000&currency=PHP&reason=others&payment_id={payment_id}");

    // The database holds the refund back, so the reset arrives while the request is at work.
    let hold = app.database.hold_writes("payments");
    send_and_reset(&app, "/refunds", "refund-1", &body).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(hold);
    let refunded = || async {
        let (_, payment) = read(app.get(&format!("/payments/{payment_id}")).await).await;
        payment["amount_refunded"].as_i64().unwrap()
    };
    for _ in 0..50 {
        if refunded().await > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(refunded().await, 1000, "the request ran to its end although its client left");

    let refund = || {
        app.request(Method::POST, "/refunds", &app.keys.secret_test)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("Idempotency-Key", "refund-1")
            .body(body.clone())
            .send()
    };
    let mut retry = refund().await.unwrap();
    for _ in 0..50 {
        if retry.status() != 409 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        retry = refund().await.unwrap();
    }
    assert_eq!(retry.status(), 200, "the first request recorded its response");
    assert_eq!(retry.headers().get("Idempotent-Replayed").and_then(|v| v.to_str().ok()), Some("true"));
    let replayed = retry.bytes().await.unwrap();
    let again = refund().await.unwrap();
    assert_eq!(again.bytes().await.unwrap(), replayed, "every retry gets the same bytes");

    assert_eq!(refunded().await, 1000, "refunded once");
    let refunds = app.event_types().await.iter().filter(|t| *t == "refund.created").count();
    assert_eq!(refunds, 1);
}

async fn a_public_key_never_gets_what_a_secret_key_stored(app: TestApp) {
    let stored = send(&app, "shared-key", &app.keys.secret_test, BODY).await;
    assert_eq!(stored.status(), 200);
    let response = send(&app, "shared-key", &app.keys.public_test, BODY).await;
    assert!(response.headers().get("Idempotent-Replayed").is_none());
    let (status, body) = read(response).await;
    assert_eq!(status, 401, "the handler's own key check answers: {body}");
    single_error(&body, "auth_invalid");

    let intent = app.create_intent(10_000, "").await;
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    let attach = |api_key: &str| {
        app.request(Method::POST, &path, api_key)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("Idempotency-Key", "attach-shared")
            .body("payment_method[type]=gcash")
            .send()
    };
    let (status, by_secret) = read(attach(&app.keys.secret_test).await.unwrap()).await;
    assert_eq!(status, 200, "{by_secret}");
    assert!(by_secret["metadata"].is_null() && by_secret.get("customer").is_some(), "the whole intent");
    let response = attach(&app.keys.public_test).await.unwrap();
    assert!(response.headers().get("Idempotent-Replayed").is_none());
    let (status, body) = read(response).await;
    assert_eq!(status, 400, "a public key must show the client secret: {body}");
    single_error(&body, "parameter_required");
}

/// An attach's form body with the card `number` and `cvc`.
fn card_attach(number: &str, cvc: &str) -> String {
    format!(
        "payment_method[type]=card&payment_method[card][number]={number}&payment_method[card][exp_month]=12\
         &payment_method[card][exp_year]=2035&payment_method[card][cvc]={cvc}"
    )
}

/// `digits` with its last digit made the Luhn check digit of the others.
fn luhn_completed(digits: &str) -> String {
    let body = &digits[..digits.len() - 1];
    let sum: u32 = body
        .bytes()
        .rev()
        .enumerate()
        .map(|(at, b)| {
            let digit = u32::from(b - b'0') * if at % 2 == 0 { 2 } else { 1 };
            if digit > 9 { digit - 9 } else { digit }
        })
        .sum();
    format!("{body}{}", (10 - sum % 10) % 10)
}

async fn the_idempotency_record_holds_nothing_a_card_can_be_guessed_back_from(app: TestApp) {
    let (number, cvc) = ("4242424242424242", "987");
    // A card number sent as the key, by a careless client, is not kept either.
    let key_as_card = "4000056655665556";
    let intent = app.create_intent(10_000, "").await;
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    let attach = |body: String| {
        app.request(Method::POST, &path, &app.keys.secret_test)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("Idempotency-Key", key_as_card)
            .body(body)
            .send()
    };
    let (status, paid) = read(attach(card_attach(number, cvc)).await.unwrap()).await;
    assert_eq!(status, 200, "{paid}");

    let stored = app.database.texts(
        "SELECT idempotency_key AS t FROM idempotency_keys UNION ALL SELECT fingerprint AS t FROM idempotency_keys \
         UNION ALL SELECT response_body AS t FROM idempotency_keys",
    );
    assert_eq!(stored.len(), 3, "one record: {stored:?}");
    let all = stored.join("\n");
    for secret in [number, key_as_card] {
        assert!(!all.contains(secret), "{secret} is stored: {all}");
    }
    assert!(!contains_number(&all, cvc), "the CVC is stored: {all}");
    let (shown, keyed) = stored[0].split_once('#').expect("a secret key's caller keeps a keyed digest of it");
    assert_eq!(shown, "400005…5556", "the key is kept as its first six and last four digits");
    assert!(keyed.len() == 32 && keyed.bytes().all(|b| b.is_ascii_hexdigit()), "{keyed}");

    // The digest is the same whatever the code and the middle digits are: no guess of either is
    // confirmed by it. The digest of the request as sent (the old record's) is none of them.
    let stored_fingerprint = &stored[1];
    let digest_of = |number: &str, cvc: &str| {
        fingerprint("POST", &path, "", card_attach(number, cvc).as_bytes(), Some(BodyFormat::Form))
    };
    let by_code: BTreeSet<String> = (0..1000).map(|code| digest_of(number, &format!("{code:03}"))).collect();
    assert_eq!(by_code.into_iter().collect::<Vec<_>>(), vec![stored_fingerprint.clone()], "one digest for every code");
    let by_middle: BTreeSet<String> = (0..200)
        .map(|middle| luhn_completed(&format!("424242{middle:06}4242")))
        .filter(|candidate| candidate.ends_with("4242"))
        .map(|candidate| digest_of(&candidate, cvc))
        .collect();
    assert_eq!(by_middle.into_iter().collect::<Vec<_>>(), vec![stored_fingerprint.clone()]);
    for code in 0..1000 {
        let raw = format!("POST\n{path}?\n{}", card_attach(number, &format!("{code:03}")));
        let unkeyed = hex::encode(Sha256::digest(raw.as_bytes()));
        assert!(!stored.contains(&unkeyed), "the raw request's digest for code {code:03} is stored");
    }

    // A retry with another code replays; another card under the same key is another request.
    let retry = attach(card_attach(number, "123")).await.unwrap();
    assert_eq!(retry.headers().get("Idempotent-Replayed").and_then(|v| v.to_str().ok()), Some("true"));
    let (status, body) = read(attach(card_attach("5425233430109903", cvc)).await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    single_error(&body, "idempotency_key_reused");
    let paid_events = app.event_types().await.iter().filter(|t| *t == "payment.paid").count();
    assert_eq!(paid_events, 1, "charged once");
}

async fn keys_that_differ_only_where_a_card_number_would_be_cut_stay_apart(app: TestApp) {
    // Keys made of a date and a sequence number: both hold 16 digits that pass the Luhn check and
    // share their first six and last four, so a masked key alone would make them one.
    let (first, second) = ("20261129000000000001", "20261129555555550001");
    let app = &app;
    let create = |key: &'static str, amount: u32| async move {
        let response = app
            .request(Method::POST, "/payment_intents", &app.keys.secret_test)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("Idempotency-Key", key)
            .body(format!("amount={amount}&currency=PHP&payment_methods[]=card"))
            .send()
            .await
            .unwrap();
        let replayed = response.headers().contains_key("Idempotent-Replayed");
        let (status, body) = read(response).await;
        (status, body, replayed)
    };
    let (status, one, _) = create(first, 10_000).await;
    assert_eq!(status, 200, "{one}");
    let (status, two, replayed) = create(second, 20_000).await;
    assert_eq!((status, replayed), (200, false), "another key is another request: {two}");
    assert_ne!(one["id"], two["id"]);
    let (status, again, replayed) = create(first, 10_000).await;
    assert_eq!((status, replayed, &again["id"]), (200, true, &one["id"]), "the same key replays: {again}");
    let keys = app.database.texts("SELECT idempotency_key AS t FROM idempotency_keys ORDER BY created_at");
    assert_eq!(keys.len(), 2, "{keys:?}");
    for key in &keys {
        assert!(key.starts_with("202611…0001#") && !key.contains(first) && !key.contains(second), "{key}");
    }
}
