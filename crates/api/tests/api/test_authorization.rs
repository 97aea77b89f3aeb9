//! The test authorization page over HTTP: 3-D Secure challenges and e-wallet redirects, authorized
//! and failed, and links that cannot be used.

use crate::helpers::{decide, open_page, read, TestApp};
use futures_util::future::join_all;
use reqwest::header::LOCATION;
use serde_json::Value;

on_both_backends!(
    a_challenged_card_is_authorized_on_the_page_and_returns_to_the_shop,
    a_failed_challenge_records_authentication_failed,
    every_e_wallet_redirects_and_qrph_shows_a_qr_code,
    a_used_or_unknown_link_shows_a_clear_page,
    without_a_return_url_the_page_tells_the_outcome,
    concurrent_submissions_all_show_the_outcome_of_the_one_that_won,
    redirect_urls_that_readers_could_take_differently_are_refused_everywhere,
);

fn id(value: &Value) -> String {
    value["id"].as_str().expect("an id").to_owned()
}

async fn redirect_url(app: &TestApp, intent: &Value, attach: &str) -> String {
    let (status, waiting) = app.post(&format!("/payment_intents/{}/attach", id(intent)), attach).await;
    assert_eq!((status, waiting["status"].as_str()), (200, Some("awaiting_next_action")), "{waiting}");
    waiting["next_action"]["redirect_url"].as_str().expect("a redirect URL").to_owned()
}

const CHALLENGE_CARD: &str = "payment_method[type]=card&payment_method[card][number]=4000000000003220\
                              &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";

async fn a_challenged_card_is_authorized_on_the_page_and_returns_to_the_shop(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let url = redirect_url(&app, &intent, CHALLENGE_CARD).await;
    let (status, page) = open_page(&url).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Authorize test payment") && page.contains("Fail test payment") && page.contains("₱100.00"),
        "{page}"
    );
    assert!(!page.contains("<script"), "the page works without JavaScript");
    let response = decide(&url, "authorize").await;
    assert_eq!(response.status(), 303);
    let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let secret = intent["client_secret"].as_str().unwrap();
    assert_eq!(location, format!("https://shop.example/done?payment_intent_client_secret={secret}"));
    let (_, paid) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    assert_eq!((paid["status"].as_str(), paid["latest_payment"]["status"].as_str()), (Some("succeeded"), Some("paid")));
    assert_eq!(paid["next_action"], Value::Null);
}

async fn a_failed_challenge_records_authentication_failed(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let url = redirect_url(&app, &intent, CHALLENGE_CARD).await;
    assert_eq!(decide(&url, "fail").await.status(), 303);
    let (_, failed) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    assert_eq!(failed["status"], "awaiting_payment_method");
    assert_eq!(failed["last_payment_error"]["code"], "authentication_failed");
    assert_eq!(failed["latest_payment"]["status"], "failed");
    assert_eq!(app.event_types().await, vec!["payment.failed"]);
}

async fn every_e_wallet_redirects_and_qrph_shows_a_qr_code(app: TestApp) {
    for method in ["gcash", "maya", "billease", "qrph"] {
        let intent = app.create_intent(25_000, "").await;
        let url = redirect_url(&app, &intent, &format!("payment_method[type]={method}")).await;
        let (status, page) = open_page(&url).await;
        assert_eq!(status, 200, "{method}");
        assert_eq!(page.contains("<svg"), method == "qrph", "{method}: only QR Ph shows a QR code");
        assert_eq!(decide(&url, "authorize").await.status(), 303, "{method}");
        let (_, paid) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
        assert_eq!(paid["status"], "succeeded", "{method}");
        let payment_method = &paid["latest_payment"]["payment_method"];
        assert_eq!(payment_method["type"], method);
        assert_eq!(payment_method.get("qrph").is_some(), method == "qrph", "{payment_method}");
        assert!(payment_method.get("card").is_none());
    }
}

async fn a_used_or_unknown_link_shows_a_clear_page(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let url = redirect_url(&app, &intent, "payment_method[type]=gcash").await;
    decide(&url, "authorize").await;
    let (status, page) = open_page(&url).await;
    assert_eq!(status, 404);
    assert!(page.contains("cannot be used"), "{page}");
    let again = decide(&url, "fail").await;
    assert_eq!(again.status(), 303, "a second submission returns to the shop like the first");
    let (status, _) = open_page(&format!("{}/test/authorize/unknown", app.address)).await;
    assert_eq!(status, 404);
    let (_, paid) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    assert_eq!(paid["status"], "succeeded", "still paid after a second try");
    let other = app.create_intent(10_000, "").await;
    let url = redirect_url(&app, &other, "payment_method[type]=maya").await;
    assert_eq!(decide(&url, "maybe").await.status(), 400);
}

async fn without_a_return_url_the_page_tells_the_outcome(app: TestApp) {
    let (_, intent) = app.post("/payment_intents", "amount=5000&currency=PHP&payment_methods[]=gcash").await;
    let url = redirect_url(&app, &intent, "payment_method[type]=gcash").await;
    let response = decide(&url, "authorize").await;
    assert_eq!(response.status(), 200);
    assert!(response.text().await.unwrap().contains("Payment authorized"));
}

async fn concurrent_submissions_all_show_the_outcome_of_the_one_that_won(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let url = redirect_url(&app, &intent, CHALLENGE_CARD).await;
    let submissions = (0..30).map(|i| decide(&url, if i % 2 == 0 { "authorize" } else { "fail" }));
    let responses = join_all(submissions).await;
    let locations: std::collections::BTreeSet<String> = responses
        .iter()
        .map(|response| {
            assert_eq!(response.status(), 303, "every submission returns to the shop, none is told to retry");
            response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
        })
        .collect();
    assert_eq!(locations.len(), 1, "{locations:?}");
    let outcomes: Vec<String> =
        app.event_types().await.into_iter().filter(|t| t == "payment.paid" || t == "payment.failed").collect();
    assert_eq!(outcomes.len(), 1, "one submission decided: {outcomes:?}");
    let (_, decided) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    let expected = if outcomes[0] == "payment.paid" { "succeeded" } else { "awaiting_payment_method" };
    assert_eq!(decided["status"], expected);

    let (_, without_return) = app.post("/payment_intents", "amount=5000&currency=PHP&payment_methods[]=gcash").await;
    let url = redirect_url(&app, &without_return, "payment_method[type]=gcash").await;
    assert_eq!(decide(&url, "authorize").await.status(), 200);
    let again = decide(&url, "fail").await;
    assert_eq!(again.status(), 200);
    assert!(again.text().await.unwrap().contains("Payment already authorized"));
}

/// Percent-encoded for a form body.
fn encoded(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn redirect_urls_that_readers_could_take_differently_are_refused_everywhere(app: TestApp) {
    let hostile = [
        "https://shop.example/done\n",
        "https://shop.example/done\r\nSet-Cookie: a=b",
        "https://shop.example/\u{7f}",
        "https://shop.example/\u{1}",
        "https://shop.example/a b",
        "http:evil.example",
        "https:/evil.example",
        "https:///evil.example",
        "https:\\\\evil.example",
        "https://shop.example\\@evil.example/",
        "https://user:pass@evil.example/",
        "javascript:alert(1)",
        "//evil.example",
    ];
    let line_item = "line_items[0][name]=A&line_items[0][amount]=5000&line_items[0][quantity]=1&payment_methods[]=card";
    for url in hostile {
        let url = encoded(url);
        for (path, body, parameter) in [
            (
                "/payment_intents",
                format!("amount=5000&currency=PHP&payment_methods[]=card&return_url={url}"),
                "return_url",
            ),
            (
                "/checkout_sessions",
                format!("{line_item}&success_url={url}&cancel_url=https://s.example/no"),
                "success_url",
            ),
            (
                "/checkout_sessions",
                format!("{line_item}&success_url=https://s.example/ok&cancel_url={url}"),
                "cancel_url",
            ),
        ] {
            let (status, refused) = app.post(path, &body).await;
            assert_eq!(status, 400, "{path} {url}: {refused}");
            assert_eq!(refused["errors"][0]["parameter"], parameter, "{refused}");
        }
        let intent = app.create_intent(10_000, "").await;
        let attach = format!("{CHALLENGE_CARD}&return_url={url}");
        let (status, refused) = app.post(&format!("/payment_intents/{}/attach", id(&intent)), &attach).await;
        assert_eq!((status, refused["errors"][0]["parameter"].as_str()), (400, Some("return_url")), "{refused}");
        let (_, unchanged) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
        assert_eq!(unchanged["status"], "awaiting_payment_method", "a refused attach changed nothing");
    }
    let (_, sessions) = read(app.get("/checkout_sessions").await).await;
    assert!(sessions["data"].as_array().is_none_or(Vec::is_empty), "nothing was created: {sessions}");

    // Plain http is for test mode only.
    let live = app
        .form(
            reqwest::Method::POST,
            "/payment_intents",
            &app.keys.secret_live,
            "amount=5000&currency=PHP&payment_methods[]=card&return_url=http://shop.example/done",
        )
        .await;
    let (status, refused) = read(live).await;
    assert_eq!((status, refused["errors"][0]["parameter"].as_str()), (400, Some("return_url")), "{refused}");
    assert!(refused["errors"][0]["detail"].as_str().unwrap().contains("https://"), "{refused}");

    // What is accepted is stored and redirected to exactly as given.
    let given = "http://127.0.0.1:3000/Back?to=a%20b&x={y}#top";
    let body = format!("amount=10000&currency=PHP&payment_methods[]=card&return_url={}", encoded(given));
    let (status, intent) = app.post("/payment_intents", &body).await;
    assert_eq!((status, intent["return_url"].as_str()), (200, Some(given)), "{intent}");
    let url = redirect_url(&app, &intent, CHALLENGE_CARD).await;
    let response = decide(&url, "authorize").await;
    assert_eq!(response.status(), 303);
    let secret = intent["client_secret"].as_str().unwrap();
    let location = response.headers().get(LOCATION).unwrap().to_str().unwrap().to_owned();
    assert_eq!(
        location,
        format!("http://127.0.0.1:3000/Back?to=a%20b&x={{y}}&payment_intent_client_secret={secret}#top")
    );
}
