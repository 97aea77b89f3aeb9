//! Rate limits per API key and per client address: the headers on every answer, 429 with
//! `Retry-After` over the limit (changing nothing), a bucket per key, refills, unlimited probes, and
//! the switch. The limits live in the process, so one backend is enough.

use crate::helpers::{read, spawn_app_with, TestApp};
use payments_adapters::db::Backend;
use reqwest::{Method, Response};

/// Three requests at once per key, then one a second; two per address, then one a second.
async fn tightly_limited_app() -> TestApp {
    spawn_app_with(Backend::Sqlite, |settings| {
        settings.rate_limit.enabled = true;
        settings.rate_limit.per_key_burst = 3;
        settings.rate_limit.per_key_per_second = 1;
        settings.rate_limit.per_address_burst = 2;
        settings.rate_limit.per_address_per_second = 1;
    })
    .await
}

fn header(response: &Response, name: &str) -> Option<u64> {
    response.headers().get(name)?.to_str().ok()?.parse().ok()
}

async fn customers(app: &TestApp, key: &str) -> Response {
    app.request(Method::GET, "/customers", key).send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_over_its_limit_is_told_when_to_retry_and_nothing_changes() {
    let app = tightly_limited_app().await;
    let key = app.keys.secret_test.clone();
    // A key's first request counts against its address; once accepted, the key has its own bucket.
    assert_eq!(customers(&app, &key).await.status(), 200);
    for remaining in [2, 1, 0] {
        let response = customers(&app, &key).await;
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "ratelimit-limit"), Some(3));
        assert_eq!(header(&response, "ratelimit-remaining"), Some(remaining));
        assert!(header(&response, "ratelimit-reset").is_some_and(|reset| reset <= 3));
    }

    let refused = app.form(Method::POST, "/customers", &key, "name=Late&email=late@example.com&currency=PHP").await;
    assert_eq!(refused.status(), 429);
    let retry_after = header(&refused, "retry-after").unwrap();
    assert!((1..=2).contains(&retry_after), "one more request a second: {retry_after}");
    assert_eq!(header(&refused, "ratelimit-remaining"), Some(0));
    let (_, body) = read(refused).await;
    assert_eq!(body["errors"][0]["code"], "rate_limit_exceeded", "{body}");

    // Another account's key has a bucket of its own.
    let other_key = app.other_account_key.clone();
    assert_eq!(customers(&app, &other_key).await.status(), 200, "accepted through the address's bucket");
    let other = customers(&app, &other_key).await;
    assert_eq!(other.status(), 200);
    assert_eq!(header(&other, "ratelimit-remaining"), Some(2));

    // After the wait, the key may send again, and the refused create had changed nothing.
    tokio::time::sleep(std::time::Duration::from_millis(1_100 * retry_after)).await;
    let (status, list) = read(customers(&app, &key).await).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"].as_array().map(Vec::len), Some(0), "no customer was created: {list}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_an_accepted_key_are_limited_by_address_and_probes_never() {
    let app = tightly_limited_app().await;
    let page = |path: &str| app.client.get(format!("{}{path}", app.address)).send();
    // A key's first request takes one of the address's two; then the key has a bucket of its own.
    assert_eq!(customers(&app, &app.keys.secret_test).await.status(), 200);
    assert_eq!(page("/openapi.json").await.unwrap().status(), 200);
    let refused = page("/docs").await.unwrap();
    assert_eq!(refused.status(), 429, "the address's bucket is shared by every page");
    assert!(header(&refused, "retry-after").is_some());
    // Made-up keys, however well formed, are no way around the address's limit.
    for guess in ["not-a-key", "sk_test_MadeUp1", "sk_test_MadeUp2"] {
        let guessed = app.request(Method::GET, "/customers", guess).send().await.unwrap();
        assert_eq!(guessed.status(), 429, "{guess}");
    }
    for _ in 0..10 {
        let probe = page("/healthz").await.unwrap();
        assert_eq!(probe.status(), 200);
        assert!(probe.headers().get("ratelimit-limit").is_none(), "probes are not limited");
    }
    // The accepted key keeps its own bucket while the address's is empty.
    let keyed = customers(&app, &app.keys.secret_test).await;
    assert_eq!((keyed.status().as_u16(), header(&keyed, "ratelimit-limit")), (200, Some(3)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switched_off_there_is_no_limit() {
    let app = spawn_app_with(Backend::Sqlite, |settings| {
        settings.rate_limit.enabled = false;
        settings.rate_limit.per_key_burst = 1;
    })
    .await;
    for _ in 0..5 {
        let response = customers(&app, &app.keys.secret_test).await;
        assert_eq!(response.status(), 200);
        assert!(response.headers().get("ratelimit-limit").is_none());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_made_up_key_gets_no_bucket_of_its_own_from_a_path_that_never_checks_it() {
    let app = tightly_limited_app().await;
    let minted = "sk_test_MintedOnTheSpot0000000000000000";
    let with_minted_key = |path: &str| app.request(Method::GET, path, minted).send();
    // Answered without authentication (a document, an unknown route): no sign the key is real.
    assert_eq!(with_minted_key("/openapi.json").await.unwrap().status(), 200);
    assert_eq!(with_minted_key("/no/such/route").await.unwrap().status(), 404);
    for path in ["/openapi.json", "/docs", "/no/such/route"] {
        let refused = with_minted_key(path).await.unwrap();
        assert_eq!(refused.status(), 429, "{path}: the made-up key still counts against its address");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_key_counts_against_each_visitors_address_so_one_cannot_lock_out_the_others() {
    let app = tightly_limited_app().await;
    let (_, intent) = read(
        app.form(
            Method::POST,
            "/payment_intents",
            &app.keys.secret_test,
            "amount=10000&currency=PHP&payment_methods[]=card",
        )
        .await,
    )
    .await;
    let path = format!(
        "/payment_intents/{}?client_secret={}",
        intent["id"].as_str().unwrap(),
        intent["client_secret"].as_str().unwrap()
    );
    let from =
        |address: [u8; 4]| reqwest::Client::builder().local_address(std::net::IpAddr::from(address)).build().unwrap();
    let (visitor, other_visitor) = (from([127, 0, 0, 2]), from([127, 0, 0, 3]));
    let retrieve = |client: &reqwest::Client| {
        client.get(format!("{}{path}", app.address)).basic_auth(&app.keys.public_test, Some("")).send()
    };
    for _ in 0..2 {
        assert_eq!(retrieve(&visitor).await.unwrap().status(), 200);
    }
    for _ in 0..5 {
        assert_eq!(retrieve(&visitor).await.unwrap().status(), 429, "one visitor used up its address's bucket");
    }
    let other = retrieve(&other_visitor).await.unwrap();
    assert_eq!(other.status(), 200, "another visitor of the same merchant is not locked out");
    assert_eq!(header(&other, "ratelimit-limit"), Some(2), "counted against its own address");
}
