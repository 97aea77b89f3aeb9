//! PayRex Pages' public pages in a real browser (`browser.rs`), JavaScript off: a customer orders
//! from a storefront and pays by card, by 3-D Secure and by GCash; an order the page refuses shows
//! why. Screenshots at desktop and phone widths are saved under `target/screenshots/`.

use crate::browser::{backend_name, browser};
use crate::helpers::{read, TestApp};
use serde_json::{json, Value};

on_one_backend!(a_customer_orders_from_a_storefront_and_pays_by_card_3d_secure_and_gcash);

async fn made(app: &TestApp, path: &str, body: Value) -> Value {
    let (status, object) = read(app.json(reqwest::Method::POST, path, &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "{object}");
    object
}

async fn paid_count(app: &TestApp) -> usize {
    let (_, events) = read(app.get("/events?type=payment.paid").await).await;
    events["data"].as_array().unwrap().len()
}

async fn a_customer_orders_from_a_storefront_and_pays_by_card_3d_secure_and_gcash(app: TestApp) {
    let mut prices = Vec::new();
    for (name, centavos) in [("Mug", 25_000), ("Shirt", 50_000)] {
        let product = json!({"name": name, "description": format!("Our {name}, made in Cebu")});
        let product = made(&app, "/products", product).await;
        prices.push(made(&app, "/prices", json!({"product_id": product["id"], "amount": centavos})).await);
    }
    let page = made(
        &app,
        "/pages",
        json!({
            "title": "Cebu Crafts", "description": "Handmade in Cebu", "template": "storefront",
            "prices": [prices[0]["id"], prices[1]["id"]], "payment_methods": ["card", "gcash"],
            "custom_fields": [
                {"name": "Size", "type": "dropdown", "options": ["S", "M", "L"], "required": true},
                {"name": "Delivery address", "type": "text", "required": true},
            ],
        }),
    )
    .await;
    let page_url = format!("{}/p/{}", app.address, page["id"].as_str().unwrap());
    let backend = backend_name(&app);
    let browser = browser().await;
    let order = |mugs: &'static str| {
        let browser = &browser;
        let page_url = page_url.clone();
        let mug = format!("quantity-{}", prices[0]["id"].as_str().unwrap());
        async move {
            browser.client.goto(&page_url).await.unwrap();
            browser.fill(&mug, mugs).await;
            let size = browser.client.find(fantoccini::Locator::Css("select")).await.unwrap();
            size.select_by_value("M").await.unwrap();
            let address = browser.client.find(fantoccini::Locator::Css("input[type=text]")).await.unwrap();
            address.send_keys("1 Osmeña Blvd, Cebu City").await.unwrap();
            browser.click("button.pay").await;
        }
    };

    // Nothing chosen: the page says so, and keeps the answers.
    browser.client.goto(&page_url).await.unwrap();
    browser.see("Continue to payment").await;
    browser.screenshot(&format!("page-storefront-desktop-{backend}")).await;
    browser.client.set_window_size(390, 1400).await.unwrap();
    browser.screenshot(&format!("page-storefront-phone-{backend}")).await;
    let fits = browser.client.execute("return document.documentElement.scrollWidth <= window.innerWidth;", vec![]);
    assert_eq!(fits.await.unwrap(), json!(true), "the page fits a phone's width");
    browser.client.set_window_size(1280, 1000).await.unwrap();
    order("0").await;
    let text = browser.see("Choose at least one item").await;
    assert!(text.contains("Please check your order"), "{text}");

    // By card.
    order("2").await;
    browser.arrive("/o/pi_").await;
    let text = browser.see("Pay ₱500.00").await;
    assert!(text.contains("Delivery address") && text.contains("Osmeña"), "{text}");
    browser.screenshot(&format!("page-order-desktop-{backend}")).await;
    browser.client.set_window_size(390, 1400).await.unwrap();
    browser.screenshot(&format!("page-order-phone-{backend}")).await;
    browser.client.set_window_size(1280, 1000).await.unwrap();
    browser.fill_card("4242 4242 4242 4242").await;
    browser.pay().await;
    browser.see("Thank you for your payment.").await;
    browser.screenshot(&format!("page-paid-{backend}")).await;
    assert_eq!(paid_count(&app).await, 1);

    // By 3-D Secure, through the test authorization page and back.
    order("1").await;
    browser.arrive("/o/pi_").await;
    browser.fill_card("4000000000003220").await;
    browser.pay().await;
    browser.arrive("/test/authorize/").await;
    browser.click("button.authorize").await;
    browser.see("Thank you for your payment.").await;
    assert_eq!(paid_count(&app).await, 2);

    // By GCash.
    order("3").await;
    browser.arrive("/o/pi_").await;
    browser.click("input[value=gcash]").await;
    browser.fill_billing().await;
    browser.pay().await;
    browser.see("Authorize this GCash payment").await;
    browser.click("button.authorize").await;
    browser.see("Thank you for your payment.").await;
    assert_eq!(paid_count(&app).await, 3);
    let (_, events) = read(app.get("/events?type=payment.paid").await).await;
    let gcash = &events["data"][0]["data"];
    assert_eq!(gcash["page_session"]["line_items"][0]["quantity"], 3, "{gcash}");
    assert_eq!(gcash["page_session"]["custom_fields"][1]["value"], "1 Osmeña Blvd, Cebu City");
}
