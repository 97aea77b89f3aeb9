//! Hostile and sloppy input: deep nesting, too many parameters, NUL characters, huge values, card
//! numbers in the wrong place, trickled bodies, and lists as PayRex's Python client encodes them.
//! Every refusal is a 4xx in the contract's shape that changes nothing, and the service stays up.

use crate::helpers::{error_codes, ids, read, single_error, TestApp};
use reqwest::header::CONTENT_TYPE;
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

on_one_backend!(
    deep_keys_are_refused_before_authentication_and_the_service_stays_up,
    too_many_parameters_and_over_long_keys_are_refused_naming_the_limit,
    nul_characters_are_refused_in_every_string,
    every_string_and_list_has_a_size_limit,
    card_numbers_are_never_echoed_in_errors,
    lists_longer_than_ten_decode_as_payrex_python_sends_them,
    every_missing_parameter_is_reported_at_once,
    a_trickled_body_is_cut_off_with_408,
    ambiguous_and_malformed_input_is_refused,
);

async fn healthy(app: &TestApp) {
    let response = app.client.get(format!("{}/healthz", app.address)).send().await.expect("the service answers");
    assert_eq!(response.status(), 200, "the service is still up");
}

async fn deep_keys_are_refused_before_authentication_and_the_service_stays_up(app: TestApp) {
    let deep = format!("x{}=1", "[a]".repeat(3_000));
    let response = app.client.get(format!("{}/customers?{deep}", app.address)).send().await.unwrap();
    let (status, body) = read(response).await;
    assert!(status == 400 || status == 401, "{status}: {body}");
    healthy(&app).await;

    let page = format!("{}/test/authorize/{}", app.address, "t".repeat(40));
    let response = app.client.post(&page).header(CONTENT_TYPE, "application/x-www-form-urlencoded").body(deep).send();
    assert!(response.await.unwrap().status().is_client_error());
    healthy(&app).await;

    let at_the_limit = format!("metadata{}=1", "[a]".repeat(33));
    let (status, body) = app.post("/customers", &at_the_limit).await;
    assert_eq!(status, 400);
    let detail = single_error(&body, "parameter_invalid");
    assert!(detail.contains("32 levels"), "{detail}");

    let mut nested = json!("x");
    for _ in 0..200 {
        nested = json!({ "a": nested });
    }
    let response = app.json(Method::POST, "/customers", &app.keys.secret_test, &json!({ "metadata": nested })).await;
    let (status, body) = read(response).await;
    assert_eq!(status, 400);
    assert!(single_error(&body, "parameter_invalid").contains("32 levels"));
    healthy(&app).await;
}

async fn too_many_parameters_and_over_long_keys_are_refused_naming_the_limit(app: TestApp) {
    let many: Vec<String> = (0..100_000).map(|i| format!("p{i}=x")).collect();
    let response = app.form(Method::POST, "/customers", &app.keys.secret_test, &many.join("&")).await;
    let (status, body) = read(response).await;
    assert_eq!(status, 400);
    assert!(single_error(&body, "parameter_invalid").contains("1000 parameters"));

    let unknown: Vec<String> = (0..900).map(|i| format!("unknown{i}=x")).collect();
    let response = app.form(Method::POST, "/customers", &app.keys.secret_test, &unknown.join("&")).await;
    let text = response.text().await.unwrap();
    assert!(text.len() < 10_000, "a bounded error body, not {} bytes", text.len());
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["errors"].as_array().unwrap().len(), 50);

    let (status, body) = app.post("/customers", &format!("{}=x", "k".repeat(201))).await;
    assert_eq!(status, 400);
    assert!(single_error(&body, "parameter_invalid").contains("200 bytes"));
    let (_, list) = read(app.get("/customers").await).await;
    assert!(ids(&list).is_empty());
}

async fn nul_characters_are_refused_in_every_string(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let intent = app.create_intent(10_000, "").await;
    let (_, paid) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    let payment = paid["latest_payment"]["id"].as_str().unwrap();
    let fresh = app.create_intent(10_000, "").await["id"].as_str().unwrap().to_owned();
    let refund = format!("amount=1000&currency=PHP&reason=others&payment_id={payment}");
    let forms = [
        ("/customers", "name=A%00na&email=ana%40example.com&currency=PHP".to_owned()),
        ("/payment_intents", "amount=5000&currency=PHP&payment_methods[]=card&description=x%00".to_owned()),
        ("/payment_intents", "amount=5000&currency=PHP&payment_methods[]=card&statement_descriptor=x%00".to_owned()),
        ("/payment_intents", "amount=5000&currency=PHP&payment_methods[]=card&return_url=https://a.b/%00".to_owned()),
        ("/webhooks", "url=http://127.0.0.1:1/%00&events[]=payment.paid".to_owned()),
        ("/webhooks", "url=http://127.0.0.1:1/&events[]=payment.paid&description=%00".to_owned()),
        ("/refunds", format!("{refund}&description=%00")),
        ("/refunds", format!("{refund}&remarks=%00")),
        ("/refunds", format!("{refund}&metadata[k%00]=v")),
    ];
    for (path, body) in &forms {
        let (status, answer) = app.post(path, body).await;
        assert_eq!(status, 400, "{path} {body}: {answer}");
        assert!(single_error(&answer, "parameter_invalid").contains("NUL"), "{answer}");
    }
    for (method, path, body) in [
        (Method::PUT, format!("/customers/{}", customer["id"].as_str().unwrap()), "name=%00"),
        (Method::PUT, format!("/payments/{payment}"), "description=%00"),
        (Method::PUT, format!("/payment_intents/{fresh}"), "description=%00"),
    ] {
        let (status, answer) = read(app.form(method, &path, &app.keys.secret_test, body).await).await;
        assert_eq!(status, 400, "{path}: {answer}");
    }
    for query in ["name=%00", "email=%00", "after=%00", "before=cus_%00", "metadata[a]=%00"] {
        let (status, answer) = read(app.get(&format!("/customers?{query}")).await).await;
        assert_eq!(status, 400, "{query}: {answer}");
    }
    for query in ["url=%00", "description=%00", "after=wh_%00"] {
        let (status, answer) = read(app.get(&format!("/webhooks?{query}")).await).await;
        assert_eq!(status, 400, "{query}: {answer}");
    }
    let response = app
        .request(Method::POST, "/customers", &app.keys.secret_test)
        .header(CONTENT_TYPE, "application/json")
        .body(r#"{"name": "A\u0000", "email": "a@example.com", "currency": "PHP"}"#)
        .send()
        .await
        .unwrap();
    let (status, _) = read(response).await;
    assert_eq!(status, 400);
    let (status, _) = read(app.get("/customers/cus_%00").await).await;
    assert_eq!(status, 404);
    let (_, list) = read(app.get("/customers").await).await;
    assert_eq!(ids(&list).len(), 1, "nothing was created");
    healthy(&app).await;
}

async fn every_string_and_list_has_a_size_limit(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let (_, paid) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    let payment = paid["latest_payment"]["id"].as_str().unwrap();
    let long = "x".repeat(1_001);
    let long_url = format!("https://shop.example/{}", "x".repeat(2_048));
    let bins: Vec<String> =
        (0..101).map(|i| format!("payment_method_options[card][allowed_bins][]={}", 400_000 + i)).collect();
    let refund = format!("amount=1000&currency=PHP&reason=others&payment_id={payment}");
    for (path, body, parameter) in [
        ("/refunds", format!("{refund}&description={long}"), "description"),
        ("/refunds", format!("{refund}&remarks={long}"), "remarks"),
        ("/webhooks", format!("url={long_url}&events[]=payment.paid"), "url"),
        ("/webhooks", format!("url=http://127.0.0.1:1/&events[]=payment.paid&description={long}"), "description"),
        (
            "/payment_intents",
            format!("amount=5000&currency=PHP&payment_methods[]=card&return_url={long_url}"),
            "return_url",
        ),
        (
            "/payment_intents",
            format!("amount=5000&currency=PHP&payment_methods[]=card&{}", bins.join("&")),
            "payment_method_options[card][allowed_bins]",
        ),
        (
            "/customers",
            format!("name=Ana&email=a%40example.com&currency=PHP&metadata[k]={}", "v".repeat(501)),
            "metadata",
        ),
    ] {
        let (status, answer) = app.post(path, &body).await;
        assert_eq!(status, 400, "{parameter}: {answer}");
        assert_eq!(error_codes(&answer), vec![(parameter.to_owned(), "parameter_invalid".to_owned())], "{answer}");
    }
    let (status, answer) = read(
        app.form(Method::PUT, &format!("/payments/{payment}"), &app.keys.secret_test, &format!("description={long}"))
            .await,
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    let (_, payment) = read(app.get(&format!("/payments/{payment}")).await).await;
    assert_eq!(payment["amount_refunded"], 0, "nothing was refunded");
}

async fn card_numbers_are_never_echoed_in_errors(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    for (path, body) in [
        (path.as_str(), "payment_method_id=4242424242424242"),
        (path.as_str(), "payment_method_id=pm_4242424242424242"),
        ("/customers", "4242424242424242=1"),
        ("/refunds", "amount=100&currency=PHP&reason=others&payment_id=4242 4242 4242 4242"),
    ] {
        let response = app.form(Method::POST, path, &app.keys.secret_test, body).await;
        let text = response.text().await.unwrap();
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        assert!(!digits.contains("4242424242424242") && !text.contains("4242 4242"), "{body}: {text}");
    }
    let text = app.get("/customers/4242424242424242").await.text().await.unwrap();
    assert!(!text.contains("4242424242424242"), "{text}");

    // The service's own limits read as they are.
    let body = "name=A&email=a%40example.com&currency=PHP&next_billing_statement_sequence_number=1000000000000";
    let (status, refused) = app.post("/customers", body).await;
    assert_eq!(status, 400, "{refused}");
    let detail = refused["errors"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("999999999999") && !detail.contains("removed"), "{detail}");
}

async fn lists_longer_than_ten_decode_as_payrex_python_sends_them(app: TestApp) {
    let types = [
        "payment_intent.succeeded",
        "payment_intent.awaiting_capture",
        "payment_intent.canceled",
        "payment.paid",
        "payment.failed",
        "payment.refunded",
        "refund.created",
        "refund.updated",
        "checkout_session.completed",
        "checkout_session.expired",
        "setup_intent.succeeded",
    ];
    // payrex-python rewrites positions [0]..[9] to [] and leaves [10] and after as they are.
    let events: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(i, t)| if i < 10 { format!("events%5B%5D={t}") } else { format!("events%5B{i}%5D={t}") })
        .collect();
    let (status, webhook) =
        app.post("/webhooks", &format!("url=http%3A%2F%2F127.0.0.1%3A1%2F&{}", events.join("&"))).await;
    assert_eq!(status, 200, "{webhook}");
    let listed: Vec<&str> = webhook["events"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    assert_eq!(listed, types, "eleven types, in order");

    let bins: Vec<String> = (0..12)
        .map(|i| {
            let key = if i < 10 { "%5B%5D".to_owned() } else { format!("%5B{i}%5D") };
            format!("payment_method_options%5Bcard%5D%5Ballowed_bins%5D{key}={}", 424_200 + i)
        })
        .collect();
    let intent = app.create_intent(10_000, &format!("&{}", bins.join("&"))).await;
    assert_eq!(intent["payment_method_options"]["card"]["allowed_bins"].as_array().unwrap().len(), 12);
}

async fn every_missing_parameter_is_reported_at_once(app: TestApp) {
    let parameters = |body: &Value| -> Vec<String> { error_codes(body).into_iter().map(|(p, _)| p).collect() };
    let (status, body) = app.post("/payment_intents", "").await;
    assert_eq!(status, 400);
    assert_eq!(parameters(&body), vec!["currency", "amount", "payment_methods"], "{body}");
    let (status, body) = app.post("/refunds", "").await;
    assert_eq!(status, 400);
    let mut missing = parameters(&body);
    missing.sort();
    assert_eq!(missing, vec!["amount", "currency", "payment_id", "reason"], "{body}");
    let intent = app.create_intent(10_000, "").await;
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    let (status, body) = app.post(&path, "payment_method[type]=card&payment_method[card][cvc]=1").await;
    assert_eq!(status, 400);
    let mut reported = parameters(&body);
    reported.sort();
    assert_eq!(
        reported,
        vec![
            "payment_method[card][cvc]",
            "payment_method[card][exp_month]",
            "payment_method[card][exp_year]",
            "payment_method[card][number]"
        ],
        "{body}"
    );
}

/// Sends a request head promising 100 bytes of body, then trickles one byte every 300 ms until the
/// service answers and closes; returns the answer and how long it took.
async fn trickle(app: &TestApp, authorization: Option<&str>) -> (String, Duration) {
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let authorization = authorization.map(|key| format!("Authorization: Bearer {key}\r\n")).unwrap_or_default();
    let head = format!(
        "POST /customers HTTP/1.1\r\nHost: {address}\r\n{authorization}\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let (mut reader, mut writer) = stream.into_split();
    let sender = tokio::spawn(async move {
        for _ in 0..99 {
            if writer.write_all(b"x").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    });
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(15), reader.read_to_end(&mut answer)).await;
    sender.abort();
    assert!(read.is_ok(), "the service closed the connection");
    (String::from_utf8_lossy(&answer).into_owned(), started.elapsed())
}

async fn a_trickled_body_is_cut_off_with_408(app: TestApp) {
    let (answer, took) = trickle(&app, Some(&app.keys.secret_test)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("request_timeout"), "{answer}");
    assert!(took < Duration::from_secs(6), "cut off after the 2 s deadline, not held: {took:?}");

    let (answer, took) = trickle(&app, None).await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(took < Duration::from_secs(3), "an early answer closes the connection: {took:?}");
    healthy(&app).await;
    let (_, list) = read(app.get("/customers").await).await;
    assert!(ids(&list).is_empty());
}

async fn ambiguous_and_malformed_input_is_refused(app: TestApp) {
    for body in ["name=%ff%fe&email=a%40example.com&currency=PHP", "name=A%C0%80&email=a%40example.com&currency=PHP"] {
        let (status, answer) = app.post("/customers", body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(single_error(&answer, "parameter_invalid").contains("UTF-8"), "{answer}");
    }
    let (status, _) = read(app.get("/customers?name=%ff").await).await;
    assert_eq!(status, 400, "invalid UTF-8 in a filter");

    let response = app
        .request(Method::POST, "/customers", &app.keys.secret_test)
        .header(CONTENT_TYPE, "application/json")
        .body(r#"{"name": "a", "name": "b", "email": "a@example.com", "currency": "PHP"}"#)
        .send()
        .await
        .unwrap();
    let (status, answer) = read(response).await;
    assert_eq!(status, 400);
    assert!(single_error(&answer, "parameter_invalid").contains("given twice"), "{answer}");

    let long_id = format!("cus_{}", "a".repeat(5_000));
    let response = app.get(&format!("/customers/{long_id}")).await;
    assert_eq!(response.status(), 404);
    let text = response.text().await.unwrap();
    assert!(text.len() < 1_000, "the id is not echoed in full: {} bytes", text.len());

    let response = app
        .client
        .get(format!("{}/customers", app.address))
        .header("Authorization", format!("Bearer {}", app.keys.secret_test))
        .header("Authorization", "Bearer sk_test_someone_else")
        .send()
        .await
        .unwrap();
    let (status, answer) = read(response).await;
    assert_eq!(status, 401, "two keys are ambiguous: {answer}");
    let (_, list) = read(app.get("/customers").await).await;
    assert!(ids(&list).is_empty(), "nothing was created");
}
