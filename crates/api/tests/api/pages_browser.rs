//! PayRex Pages in a real browser (`browser.rs`), JavaScript off: a customer orders from a
//! storefront and pays by card, by 3-D Secure and by GCash; an order the page refuses shows why; a
//! customer on a phone orders and pays with the keyboard alone; a merchant makes the products and
//! the page in the console and reads the answers. Screenshots at desktop and phone widths are saved
//! under `target/screenshots/`.

use crate::browser::{backend_name, browser};
use crate::helpers::{read, TestApp};
use serde_json::{json, Value};

on_one_backend!(
    a_customer_orders_from_a_storefront_and_pays_by_card_3d_secure_and_gcash,
    a_customer_on_a_phone_orders_and_pays_a_page_with_the_keyboard_alone,
    a_merchant_makes_a_storefront_page_in_the_console,
);

const TAB: &str = "\u{e004}";
const ENTER: &str = "\u{e007}";
const BACKSPACE: &str = "\u{e003}";

/// Presses Tab until the focused element's id (or a radio's value) is `target`; fails after ten.
async fn tab_to(browser: &crate::browser::Browser, target: &str) {
    let focused = "const element = document.activeElement; return element.id || element.value || '';";
    let mut passed = Vec::new();
    for _ in 0..10 {
        browser.press(TAB).await;
        let now = browser.client.execute(focused, vec![]).await.unwrap();
        if now == target {
            return;
        }
        passed.push(now);
    }
    panic!("Tab never reached {target}: {passed:?}");
}

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

/// A storefront of a mug with two questions: the page and the mug's price.
async fn mug_storefront(app: &TestApp) -> (Value, Value) {
    let product = made(app, "/products", json!({"name": "Mug", "description": "Stoneware"})).await;
    let price = made(app, "/prices", json!({"product_id": product["id"], "amount": 25_000, "description": "Large"})).await;
    let page = made(
        app,
        "/pages",
        json!({
            "title": "Cebu Crafts", "template": "storefront", "prices": [price["id"]], "payment_methods": ["card", "gcash"],
            "custom_fields": [
                {"name": "Size", "type": "dropdown", "options": ["S", "M", "L"], "required": true},
                {"name": "Delivery address", "type": "text", "required": true},
            ],
        }),
    )
    .await;
    (page, price)
}

async fn a_customer_on_a_phone_orders_and_pays_a_page_with_the_keyboard_alone(app: TestApp) {
    let (page, price) = mug_storefront(&app).await;
    let browser = browser().await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.client.goto(&format!("{}/p/{}", app.address, page["id"].as_str().unwrap())).await.unwrap();

    // The order: two mugs, a size picked by its first letter, an address, and Enter.
    tab_to(&browser, &format!("quantity-{}", price["id"].as_str().unwrap())).await;
    browser.press(&format!("{BACKSPACE}2")).await;
    tab_to(&browser, &format!("field-{}", page["custom_fields"][0]["id"].as_str().unwrap())).await;
    browser.press("M").await;
    tab_to(&browser, &format!("field-{}", page["custom_fields"][1]["id"].as_str().unwrap())).await;
    browser.press("1 Rizal St, Cebu").await;
    browser.screenshot("page-storefront-phone-keyboard").await;
    browser.press(ENTER).await;
    browser.arrive("/o/pi_").await;
    let text = browser.see("Pay ₱500.00").await;
    assert!(text.contains("2 × ₱250.00") && text.contains("1 Rizal St, Cebu"), "{text}");

    // The payment: the card method chosen with Space, each field in turn, and Enter.
    tab_to(&browser, "card").await;
    browser.press(" ").await;
    for (field, typed) in [
        ("cc-number", "4242 4242 4242 4242"),
        ("cc-exp-month", "12"),
        ("cc-exp-year", "35"),
        ("cc-csc", "123"),
        ("name", "Ana Cruz"),
        ("email", "ana@example.com"),
        ("address-line1", "1 Rizal St"),
        ("address-level2", "Cebu City"),
        ("postal-code", "6000"),
        ("country", "PH"),
    ] {
        tab_to(&browser, field).await;
        browser.press(typed).await;
    }
    browser.screenshot("page-order-phone-keyboard").await;
    browser.press(ENTER).await;
    browser.see("Thank you for your payment.").await;
    let (_, events) = read(app.get("/events?type=payment.paid").await).await;
    let session = &events["data"][0]["data"]["page_session"];
    assert_eq!(session["line_items"][0]["quantity"], 2, "{session}");
    assert_eq!(session["custom_fields"][0]["value"], "M");
    assert_eq!(session["custom_fields"][1]["value"], "1 Rizal St, Cebu");
}

async fn a_merchant_makes_a_storefront_page_in_the_console(app: TestApp) {
    let browser = browser().await;
    browser.client.goto(&format!("{}/dashboard", app.address)).await.unwrap();
    browser.arrive("/dashboard/sign_in").await;
    browser.fill("key", &app.keys.secret_test).await;
    browser.click("button[type=submit]").await;
    browser.see("Latest events").await;

    // A product and its price.
    browser.click("nav a[href='/dashboard/products']").await;
    browser.fill("name", "Mug").await;
    browser.fill("description", "Stoneware, made in Cebu").await;
    browser.click("form[action='/dashboard/products'] button").await;
    browser.see("Created. Add its prices below.").await;
    browser.fill("price-amount", "250").await;
    browser.fill("price-description", "Large").await;
    browser.click("form[action$='/prices'] button").await;
    let text = browser.see("Price added.").await;
    assert!(text.contains("₱250.00") && text.contains("Large"), "{text}");
    browser.screenshot("console-product").await;
    browser.client.set_window_size(390, 1400).await.unwrap();
    browser.screenshot("console-product-phone").await;
    browser.client.set_window_size(1280, 1000).await.unwrap();

    // The page, with a question whose options are lines; a mistake first, told in the API's words.
    browser.click("nav a[href='/dashboard/pages']").await;
    browser.click("a[href='/dashboard/pages/new']").await;
    browser.see("Make a page").await;
    browser.fill("title", "Cebu Crafts").await;
    let template = browser.client.find(fantoccini::Locator::Id("template")).await.unwrap();
    template.select_by_value("storefront").await.unwrap();
    browser.click("input[name='prices[]']").await;
    browser.fill("field-0-name", "Size").await;
    let kind = browser.client.find(fantoccini::Locator::Id("field-0-type")).await.unwrap();
    kind.select_by_value("dropdown").await.unwrap();
    browser.screenshot("console-page-new").await;
    browser.click("form[action='/dashboard/pages'] button[type=submit]").await;
    let text = browser.see("That did not work").await;
    assert!(text.contains("options"), "a dropdown without options: {text}");
    assert_eq!(read(app.get("/pages").await).await.1["data"], json!([]), "no page made");
    browser.client.back().await.unwrap();
    browser.see("Make a page").await;
    browser.fill("field-0-options", "S\nM\nL").await;
    browser.click("input[name='custom_fields[0][required]']").await;
    browser.click("form[action='/dashboard/pages'] button[type=submit]").await;
    let text = browser.see("Created. Share its address").await;
    let (_, pages) = read(app.get("/pages").await).await;
    let page = &pages["data"][0];
    assert_eq!(page["custom_fields"][0]["options"], json!(["S", "M", "L"]), "{page}");
    let page_id = page["id"].as_str().unwrap();
    assert!(text.contains(&format!("/p/{page_id}")), "{text}");

    // A customer's order, paid: the console shows it with the answer.
    let size = page["custom_fields"][0]["id"].as_str().unwrap();
    let price = page["prices"][0].as_str().unwrap();
    let (status, location, _) = crate::pages::place(&app, page_id, &format!("quantity[{price}]=3&custom_fields[{size}]=L")).await;
    assert_eq!(status, 303);
    let order = format!("{}{location}", app.address);
    let paid = crate::checkout_sessions::visit(&order).await.submit(&crate::checkout_sessions::card_fields("4242424242424242")).await;
    assert_eq!(paid.status().as_u16(), 303);
    browser.client.refresh().await.unwrap();
    let text = browser.see("3 × Mug (Large)").await;
    assert!(text.contains("₱750.00") && text.contains("Size"), "{text}");
    browser.client.set_window_size(1280, 1900).await.unwrap();
    browser.screenshot("console-page").await;
    browser.client.set_window_size(390, 2600).await.unwrap();
    browser.screenshot("console-page-phone").await;
    let fits = browser.client.execute("return document.documentElement.scrollWidth <= window.innerWidth;", vec![]);
    assert_eq!(fits.await.unwrap(), json!(true), "the console's page fits a phone's width");
}
