//! The hosted billing statement page in a real browser (`browser.rs`), JavaScript off: paid by
//! card, and with GCash through the test authorization page after its due date. Screenshots of the
//! page (desktop, phone, overdue, paid) are saved under `target/screenshots/`.

use crate::billing_statements::open_statement;
use crate::browser::{backend_name, browser};
use crate::helpers::{read, TestApp};
use serde_json::Value;

on_one_backend!(a_statement_is_paid_by_card_in_a_browser, an_overdue_statement_is_paid_with_gcash_in_a_browser);

async fn status_of(app: &TestApp, statement: &Value) -> String {
    let path = format!("/billing_statements/{}", statement["id"].as_str().unwrap());
    read(app.get(&path).await).await.1["status"].as_str().unwrap().to_owned()
}

async fn a_statement_is_paid_by_card_in_a_browser(app: TestApp) {
    let statement = open_statement(&app).await;
    let url = statement["url"].as_str().unwrap();
    let backend = backend_name(&app);
    let browser = browser().await;
    browser.client.goto(url).await.unwrap();
    let text = browser.see("Pay ₱2,000.00").await;
    for shown in ["Acme", "Billing statement ACME-0001", "Juan dela Cruz", "Consulting", "Travel", "Due"] {
        assert!(text.contains(shown), "{shown} missing from {text}");
    }
    browser.screenshot(&format!("statement-desktop-{backend}")).await;
    browser.client.set_window_size(390, 1400).await.unwrap();
    browser.screenshot(&format!("statement-phone-{backend}")).await;
    browser.client.set_window_size(1280, 1000).await.unwrap();
    browser.fill_card("4000000000001000").await;
    browser.pay().await;
    browser.see("Try again").await;
    assert_eq!(status_of(&app, &statement).await, "open");
    browser.fill("cc-number", "4242 4242 4242 4242").await;
    browser.fill("cc-csc", "123").await;
    browser.pay().await;
    let text = browser.see("Paid").await;
    assert!(text.contains("ACME-0001") && !text.contains("Card number"), "{text}");
    assert_eq!(browser.url().await, url, "the customer stays on the statement's page");
    browser.screenshot(&format!("statement-paid-{backend}")).await;
    assert_eq!(status_of(&app, &statement).await, "paid");
}

async fn an_overdue_statement_is_paid_with_gcash_in_a_browser(app: TestApp) {
    let statement = open_statement(&app).await;
    app.clock.advance(11 * 24 * 60 * 60);
    let browser = browser().await;
    browser.client.goto(statement["url"].as_str().unwrap()).await.unwrap();
    browser.see("Overdue").await;
    browser.screenshot(&format!("statement-overdue-{}", backend_name(&app))).await;
    browser.click("input[value=gcash]").await;
    browser.fill_billing().await;
    browser.pay().await;
    browser.see("Authorize this GCash payment").await;
    browser.click("button.authorize").await;
    browser.see("Paid").await;
    assert_eq!(status_of(&app, &statement).await, "paid");
}
