//! The hosted checkout page in a real browser (`browser.rs`), JavaScript off. Screenshots of the
//! page at desktop and phone widths are saved under `target/screenshots/`.

use crate::browser::{backend_name, browser, percent};
use crate::checkout_sessions::create_session;
use crate::helpers::TestApp;
use fantoccini::Locator;

on_one_backend!(
    a_card_payment_lands_on_success_url,
    a_declined_card_then_a_good_one,
    a_3d_secure_challenge_through_the_authorization_page,
    gcash_through_the_redirect,
    an_expired_session_cannot_be_paid,
);

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
