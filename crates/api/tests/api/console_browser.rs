//! The developer console in a real browser (`browser.rs`), JavaScript off, on both backends: sign
//! in with the account's secret key, find a payment by its metadata, refund it, follow its event to
//! the webhook deliveries and resend it, read the requests that did all of it (the console's own
//! marked), register a webhook and reveal its secret, sign out. Screenshots of each page (desktop,
//! and the payment's page on a phone) are saved under `target/screenshots/`.

use crate::browser::{backend_name, browser};
use crate::helpers::{read, TestApp};
use crate::receiver::Receiver;
use fantoccini::Locator;
use reqwest::Method;
use std::time::Duration;

on_both_backends!(a_developer_finds_refunds_and_traces_a_payment_in_the_console);

async fn a_developer_finds_refunds_and_traces_a_payment_in_the_console(app: TestApp) {
    let backend = backend_name(&app);
    let receiver = Receiver::start(Vec::new());
    let hook = format!("url={}&events[]=payment_intent.succeeded&events[]=refund.created", receiver.url);
    assert_eq!(app.post("/webhooks", &hook).await.0, 200);
    let hostile = "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E";
    let intent = app.create_intent(150_000, &format!("&metadata[order]=B-7&description=Mug%20{hostile}")).await;
    let intent_id = intent["id"].as_str().unwrap().to_owned();
    assert_eq!(app.attach_card(&intent_id, "4242424242424242").await.0, 200);
    app.create_intent(2_000, "&metadata[order]=B-8").await;
    receiver.wait_for(1, Duration::from_secs(5)).await;

    let browser = browser().await;
    browser.client.goto(&format!("{}/dashboard", app.address)).await.unwrap();
    browser.arrive("/dashboard/sign_in").await;
    browser.screenshot(&format!("console-sign-in-{backend}")).await;
    browser.fill("key", &app.keys.public_test).await;
    browser.click("button[type=submit]").await;
    browser.see("does not open the console").await;
    browser.fill("key", &app.keys.secret_test).await;
    browser.click("button[type=submit]").await;
    let text = browser.see("Latest events").await;
    assert!(text.contains("TEST MODE") && text.contains("payment_intent.succeeded"), "{text}");
    browser.screenshot(&format!("console-overview-{backend}")).await;

    browser.click("nav a[href='/dashboard/payment_intents']").await;
    browser.fill("q", "B-7").await;
    browser.click("form.filters button").await;
    browser.arrive("q=B-7").await;
    let text = browser.see("₱1,500.00").await;
    assert!(!text.contains("₱20.00"), "only the payment with that metadata value: {text}");
    assert!(text.contains("Mug <img src=x onerror=alert(1)>"), "shown as text: {text}");
    browser.screenshot(&format!("console-payments-{backend}")).await;
    browser.click(&format!("a[href='/dashboard/payment_intents/{intent_id}']")).await;
    let text = browser.see("Timeline").await;
    assert!(text.contains("Paid ₱1,500.00 by card") && text.contains("order: B-7"), "{text}");
    browser.screenshot(&format!("console-payment-{backend}")).await;
    browser.client.set_window_size(390, 1800).await.unwrap();
    browser.screenshot(&format!("console-payment-phone-{backend}")).await;
    browser.client.set_window_size(1280, 1000).await.unwrap();

    browser.fill("refund-amount-1", "50000").await;
    browser.click("form[action$='/refund'] button").await;
    let text = browser.see("Refund created").await;
    assert!(text.contains("Refunded ₱500.00"), "{text}");
    let payment = read(app.get(&format!("/payment_intents/{intent_id}")).await).await.1;
    let payment =
        read(app.get(&format!("/payments/{}", payment["latest_payment"]["id"].as_str().unwrap())).await).await.1;
    assert_eq!(payment["amount_refunded"], 50_000);

    // The payment's event, its delivery to the receiver, and a resend.
    let event = browser.client.find(Locator::XPath("//li[contains(., 'payment_intent.succeeded')]/a")).await.unwrap();
    event.click().await.unwrap();
    let text = browser.see("Deliveries").await;
    assert!(text.contains("answered 200"), "{text}");
    let before = receiver.received().len();
    browser.click("form[action$='/resend'] button").await;
    browser.see("Sent again").await;
    receiver.wait_for(before + 1, Duration::from_secs(5)).await;
    browser.screenshot(&format!("console-event-{backend}")).await;

    // The request log: the client's requests and the console's own.
    browser.click("nav a[href='/dashboard/request_logs']").await;
    let text = browser.see("Request log").await;
    assert!(text.contains("POST /payment_intents") && text.contains("Console"), "{text}");
    browser.screenshot(&format!("console-request-log-{backend}")).await;
    browser.client.goto(&format!("{}/dashboard/request_logs?source=dashboard", app.address)).await.unwrap();
    browser.click("table.list a").await;
    let text = browser.see("Request body").await;
    assert!(text.contains("This console") && text.contains("[redacted]"), "the form token is not kept: {text}");

    // A webhook registered from the console, its secret revealed.
    browser.click("nav a[href='/dashboard/webhooks']").await;
    browser.fill("url", "https://shop.example/hooks").await;
    browser.click("input[value='payment.paid']").await;
    browser.click("form.action button").await;
    browser.see("Created.").await;
    browser.click("details summary").await;
    let text = browser.see("whsk_").await;
    assert!(text.contains("https://shop.example/hooks"), "{text}");
    browser.screenshot(&format!("console-webhook-{backend}")).await;

    // The account's test clock moved three days on: every page says so beside the mode.
    let (status, moved) = app.post("/test_helpers/clock/advance", "seconds=259200").await;
    assert_eq!(status, 200, "{moved}");
    browser.click("nav a[href='/dashboard']").await;
    let text = browser.see("Test clock").await;
    assert!(text.contains("TEST MODE"), "{text}");
    browser.screenshot(&format!("console-test-clock-{backend}")).await;

    browser.click("button.link").await;
    browser.arrive("/dashboard/sign_in").await;
    browser.client.goto(&format!("{}/dashboard/payment_intents", app.address)).await.unwrap();
    browser.arrive("/dashboard/sign_in").await;
    let listed = app.form(Method::GET, "/webhooks", &app.keys.secret_test, "").await;
    assert_eq!(read(listed).await.1["data"].as_array().map(Vec::len), Some(2));
}

on_both_backends!(every_page_and_action_of_the_console_works_in_a_browser);

/// Opens `path`, waits for `words`, and saves a screenshot named `name`.
async fn open(browser: &crate::browser::Browser, app: &TestApp, path: &str, words: &str, name: &str) -> String {
    browser.client.goto(&format!("{}{path}", app.address)).await.unwrap();
    let text = browser.see(words).await;
    browser.screenshot(&format!("{name}-{}", backend_name(app))).await;
    text
}

async fn every_page_and_action_of_the_console_works_in_a_browser(app: TestApp) {
    let statement = crate::billing_statements::open_statement(&app).await;
    let statement_id = statement["id"].as_str().unwrap().to_owned();
    let customer_id = statement["customer_id"].as_str().unwrap().to_owned();
    let due_at = statement["created_at"].as_i64().unwrap() + 10 * 24 * 60 * 60;
    let (_, draft) = app.post("/billing_statements", &format!("customer_id={customer_id}&due_at={due_at}")).await;
    let draft_id = draft["id"].as_str().unwrap().to_owned();
    let (_, item) = app
        .post(
            "/billing_statement_line_items",
            &format!("billing_statement_id={draft_id}&description=Audit&unit_price=500000&quantity=1"),
        )
        .await;
    assert!(item["id"].is_string(), "{item}");
    let session = crate::checkout_sessions::create_session(&app, "").await;
    let session_id = session["id"].as_str().unwrap().to_owned();
    let held = app.create_intent(30_000, "&payment_method_options[card][capture_type]=manual").await;
    let held_id = held["id"].as_str().unwrap().to_owned();
    app.attach_card(&held_id, "4242424242424242").await;
    let open_intent = app.create_intent(5_000, "").await;
    let open_id = open_intent["id"].as_str().unwrap().to_owned();
    let receiver = Receiver::start(vec![crate::receiver::Reply::Status(503)]);
    let (_, hook) = app.post("/webhooks", &format!("url={}&events[]=payment_intent.succeeded", receiver.url)).await;
    let hook_id = hook["id"].as_str().unwrap().to_owned();

    let browser = browser().await;
    browser.client.goto(&format!("{}/dashboard/sign_in", app.address)).await.unwrap();
    browser.fill("key", &app.keys.secret_test).await;
    browser.click("button[type=submit]").await;
    browser.see("Latest events").await;

    // Capture the held intent, cancel the open one.
    open(&browser, &app, &format!("/dashboard/payment_intents/{held_id}"), "Capture", "console-capture").await;
    browser.fill("capture-amount", "25000").await;
    browser.click("form[action$='/capture'] button").await;
    browser.see("Captured.").await;
    receiver.wait_for(1, Duration::from_secs(5)).await;
    open(&browser, &app, &format!("/dashboard/payment_intents/{open_id}"), "Cancel payment intent", "console-open")
        .await;
    browser.click("form[action$='/cancel'] button").await;
    browser.see("Canceled.").await;

    // Statements: finalize the draft, void the open one.
    open(&browser, &app, &format!("/dashboard/billing_statements/{draft_id}"), "Finalize", "console-statement-draft")
        .await;
    browser.click("form[action$='/finalize'] button").await;
    browser.see("Send by e-mail").await;
    browser.click("form[action$='/send'] button").await;
    browser.see("Done: the statement moved on").await;
    open(&browser, &app, &format!("/dashboard/billing_statements/{statement_id}"), "Consulting", "console-statement")
        .await;
    browser.click("form[action$='/void'] button").await;
    let text = browser.see("Done: the statement moved on").await;
    assert!(text.contains("void"), "{text}");
    open(&browser, &app, "/dashboard/billing_statements", "Billing statements", "console-statements").await;

    // The checkout session, expired; the lists of everything else.
    open(
        &browser,
        &app,
        &format!("/dashboard/checkout_sessions/{session_id}"),
        "Line items",
        "console-checkout-session",
    )
    .await;
    browser.click("form[action$='/expire'] button").await;
    browser.see("Expired.").await;
    open(&browser, &app, "/dashboard/checkout_sessions", "Checkout sessions", "console-checkout-sessions").await;
    let text = open(
        &browser,
        &app,
        &format!("/dashboard/customers/{customer_id}"),
        "Saved payment methods",
        "console-customer",
    )
    .await;
    assert!(text.contains("Juan dela Cruz"), "{text}");
    open(&browser, &app, "/dashboard/customers", "Juan dela Cruz", "console-customers").await;
    browser.click("table.list a.id").await;
    let text = open(&browser, &app, "/dashboard/payments", "Payments", "console-payments-list").await;
    assert!(text.contains("₱250.00"), "the captured amount: {text}");
    browser.click("table.list a.id").await;
    browser.see("Refunds").await;
    open(&browser, &app, "/dashboard/refunds", "Refunds", "console-refunds").await;
    open(&browser, &app, "/dashboard/mailbox", "Test mailbox", "console-mailbox").await;
    open(&browser, &app, "/dashboard/events", "Events", "console-events").await;

    // The webhook: its failed delivery on the overview, then disabled, enabled, edited, deleted.
    let text = open(&browser, &app, "/dashboard", "Failed webhook deliveries", "console-overview-failures").await;
    assert!(text.contains("503") && text.contains("received"), "{text}");
    open(
        &browser,
        &app,
        &format!("/dashboard/webhooks/{hook_id}"),
        "Latest delivery attempts",
        "console-webhook-attempts",
    )
    .await;
    browser.click("form[action$='/disable'] button").await;
    browser.see("Disabled").await;
    browser.click("form[action$='/enable'] button").await;
    browser.see("Enabled").await;
    browser.click("form[action$='/resend'] button").await;
    browser.see("Sent again.").await;
    browser.fill("description", "Orders").await;
    browser.click(&format!("form[action='/dashboard/webhooks/{hook_id}'] button")).await;
    browser.see("Saved.").await;
    browser.click("form[action$='/delete'] button").await;
    browser.see("Add a webhook").await;
    let (status, _) = read(app.get(&format!("/webhooks/{hook_id}")).await).await;
    assert_eq!(status, 404, "deleted");
    let captured = read(app.get(&format!("/payment_intents/{held_id}")).await).await.1;
    assert_eq!(captured["amount_received"], 25_000);
    let canceled = read(app.get(&format!("/payment_intents/{open_id}")).await).await.1;
    assert_eq!(canceled["status"], "canceled");
}
