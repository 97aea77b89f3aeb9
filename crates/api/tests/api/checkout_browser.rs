//! The hosted checkout page in a real browser: headless Chromium driven through chromedriver
//! (Debian's `chromium` and `chromium-driver`; `.ci/run` installs them). JavaScript is off, as the
//! page must work without it. Screenshots of the page at desktop and phone widths are saved under
//! `target/screenshots/` for a person to look at.

use crate::checkout_sessions::create_session;
use crate::helpers::TestApp;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

on_both_backends!(
    a_card_payment_lands_on_success_url,
    a_declined_card_then_a_good_one,
    a_3d_secure_challenge_through_the_authorization_page,
    gcash_through_the_redirect,
    an_expired_session_cannot_be_paid,
);

/// A chromedriver child process and a headless Chromium session on it; both end on drop.
struct Browser {
    client: Client,
    driver: Child,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

async fn browser() -> Browser {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
    let driver = Command::new(std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into()))
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver runs (install Debian's chromium and chromium-driver, as .ci/run does)");
    let mut capabilities = serde_json::Map::new();
    let mut options = json!({"args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1280,1000"], "prefs": {"profile.managed_default_content_settings.javascript": 2}});
    if let Ok(binary) = std::env::var("CHROMIUM") {
        options["binary"] = json!(binary);
    }
    capabilities.insert("goog:chromeOptions".into(), options);
    let mut last_error = None;
    for _ in 0..50 {
        let mut builder = ClientBuilder::new(HttpConnector::new());
        match builder.capabilities(capabilities.clone()).connect(&format!("http://127.0.0.1:{port}")).await {
            Ok(client) => return Browser { client, driver },
            Err(error) => last_error = Some(error),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no browser session: {last_error:?}");
}

impl Browser {
    async fn fill(&self, id: &str, text: &str) {
        let input = self.client.find(Locator::Id(id)).await.unwrap();
        input.clear().await.unwrap();
        input.send_keys(text).await.unwrap();
    }

    async fn click(&self, css: &str) {
        let waiting = self.client.wait().at_most(Duration::from_secs(5));
        let Ok(element) = waiting.for_element(Locator::Css(css)).await else {
            panic!("no {css} on {}: {}", self.url().await, self.text().await);
        };
        element.click().await.unwrap();
    }

    async fn fill_card(&self, number: &str) {
        self.click("input[value=card]").await;
        for (id, text) in [("cc-number", number), ("cc-exp-month", "12"), ("cc-exp-year", "35"), ("cc-csc", "123")] {
            self.fill(id, text).await;
        }
        self.fill_billing().await;
    }

    async fn fill_billing(&self) {
        for (id, text) in [
            ("name", "Ana Cruz"),
            ("email", "ana@example.com"),
            ("address-line1", "1 Rizal St"),
            ("address-level2", "Manila"),
            ("postal-code", "1000"),
            ("country", "PH"),
        ] {
            self.fill(id, text).await;
        }
    }

    async fn pay(&self) {
        self.click("button.pay").await;
    }

    /// Waits (up to 5 s: a click's navigation may still be under way) until the address contains
    /// `part`, and returns it.
    async fn arrive(&self, part: &str) -> String {
        for _ in 0..50 {
            let url = self.url().await;
            if url.contains(part) {
                return url;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("never arrived at {part}: at {} showing {}", self.url().await, self.text().await);
    }

    /// Waits (up to 5 s) until the page shows `words`, and returns the page's text.
    async fn see(&self, words: &str) -> String {
        for _ in 0..50 {
            let text = self.text().await;
            if text.contains(words) {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("never saw {words:?}: at {} showing {}", self.url().await, self.text().await);
    }

    async fn url(&self) -> String {
        self.client.current_url().await.unwrap().to_string()
    }

    async fn text(&self) -> String {
        match self.client.find(Locator::Css("body")).await {
            Ok(body) => body.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    async fn screenshot(&self, name: &str) {
        let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/screenshots");
        std::fs::create_dir_all(&directory).unwrap();
        std::fs::write(directory.join(format!("{name}.png")), self.client.screenshot().await.unwrap()).unwrap();
    }
}

/// A session whose `success_url` is a real page on this machine, so the browser arrives somewhere.
async fn session_for_browser(app: &TestApp) -> serde_json::Value {
    let success = format!("{}/healthz?paid={{CHECKOUT_SESSION_ID}}", app.address);
    let cancel = format!("{}/healthz?canceled=1", app.address);
    let extra = format!("&success_url={}&cancel_url={}", percent(&success), percent(&cancel));
    let body = crate::checkout_sessions::SESSION
        .split('&')
        .filter(|pair| !pair.starts_with("success_url=") && !pair.starts_with("cancel_url="))
        .collect::<Vec<_>>()
        .join("&");
    let (status, session) = app.post("/checkout_sessions", &format!("{body}{extra}")).await;
    assert_eq!(status, 200, "{session}");
    session
}

fn percent(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn status_of(app: &TestApp, session: &serde_json::Value) -> String {
    let (_, retrieved) =
        crate::helpers::read(app.get(&format!("/checkout_sessions/{}", session["id"].as_str().unwrap())).await).await;
    retrieved["status"].as_str().unwrap().to_owned()
}

async fn a_card_payment_lands_on_success_url(app: TestApp) {
    let session = session_for_browser(&app).await;
    let browser = browser().await;
    let backend = backend_name(&app);
    browser.client.goto(session["url"].as_str().unwrap()).await.unwrap();
    browser.see("Pay ₱3,123.45").await;
    browser.screenshot(&format!("checkout-desktop-{backend}")).await;
    browser.client.set_window_size(390, 1400).await.unwrap();
    browser.screenshot(&format!("checkout-phone-{backend}")).await;
    browser.client.set_window_size(1280, 1000).await.unwrap();
    browser.fill_card("4242 4242 4242 4242").await;
    browser.pay().await;
    let landed = browser.arrive("/healthz?paid=").await;
    assert_eq!(landed, format!("{}/healthz?paid={}", app.address, session["id"].as_str().unwrap()));
    assert_eq!(status_of(&app, &session).await, "completed");
    // Back to the page: it says paid, and links on.
    browser.client.goto(session["url"].as_str().unwrap()).await.unwrap();
    browser.see("Return to the merchant").await;
    browser.screenshot(&format!("checkout-paid-{backend}")).await;
}

async fn a_declined_card_then_a_good_one(app: TestApp) {
    let session = session_for_browser(&app).await;
    let browser = browser().await;
    browser.client.goto(session["url"].as_str().unwrap()).await.unwrap();
    browser.fill_card("4000000000001000").await;
    browser.pay().await;
    browser.see("Try again").await;
    browser.screenshot(&format!("checkout-declined-{}", backend_name(&app))).await;
    assert_eq!(status_of(&app, &session).await, "active");
    // The billing details are still there; the card number is not.
    let number = browser.client.find(Locator::Id("cc-number")).await.unwrap().prop("value").await.unwrap();
    assert_eq!(number.as_deref(), Some(""));
    browser.fill("cc-number", "5425233430109903").await;
    browser.fill("cc-csc", "321").await;
    browser.pay().await;
    browser.arrive("/healthz?paid=").await;
    assert_eq!(status_of(&app, &session).await, "completed");
}

async fn a_3d_secure_challenge_through_the_authorization_page(app: TestApp) {
    let session = session_for_browser(&app).await;
    let browser = browser().await;
    browser.client.goto(session["url"].as_str().unwrap()).await.unwrap();
    browser.fill_card("4000000000003220").await;
    browser.pay().await;
    browser.arrive("/test/authorize/").await;
    browser.see("Authorize test payment").await;
    browser.click("button.authorize").await;
    browser.arrive("/healthz?paid=").await;
    assert_eq!(status_of(&app, &session).await, "completed");
}

async fn gcash_through_the_redirect(app: TestApp) {
    let session = session_for_browser(&app).await;
    let browser = browser().await;
    browser.client.goto(session["url"].as_str().unwrap()).await.unwrap();
    browser.click("input[value=gcash]").await;
    browser.fill_billing().await;
    browser.pay().await;
    browser.see("Authorize this GCash payment").await;
    // Failing first brings the customer back to the form with the reason.
    browser.click("button.fail").await;
    browser.arrive("payment_intent_client_secret=").await;
    browser.see("Try again").await;
    browser.click("input[value=gcash]").await;
    browser.fill_billing().await;
    browser.pay().await;
    browser.click("button.authorize").await;
    browser.arrive("/healthz?paid=").await;
    assert_eq!(status_of(&app, &session).await, "completed");
}

async fn an_expired_session_cannot_be_paid(app: TestApp) {
    let session = create_session(&app, "").await;
    let browser = browser().await;
    browser.client.goto(session["url"].as_str().unwrap()).await.unwrap();
    app.post(&format!("/checkout_sessions/{}/expire", session["id"].as_str().unwrap()), "").await;
    browser.fill_card("4242424242424242").await;
    browser.pay().await;
    let text = browser.see("This payment page has expired").await;
    assert!(text.contains("Nothing was charged"), "{text}");
    browser.screenshot(&format!("checkout-expired-{}", backend_name(&app))).await;
    assert_eq!(status_of(&app, &session).await, "expired");
}

fn backend_name(app: &TestApp) -> &'static str {
    match app.database.backend() {
        payments_adapters::db::Backend::Sqlite => "sqlite",
        payments_adapters::db::Backend::Postgres => "postgres",
    }
}
