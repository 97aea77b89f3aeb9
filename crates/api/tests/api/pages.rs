//! Products, prices and pages over HTTP, on both backends: made, read, listed, archived and
//! deactivated; every bad input refused with nothing changed; another account or mode sees and
//! touches none of them.

use crate::checkout_sessions::{card_fields, visit};
use crate::helpers::{browser, read, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    a_storefront_page_paid_by_card_gives_a_payment_with_its_page_session,
    a_test_order_placed_through_the_api_is_paid_by_attaching,
    the_test_clock_and_the_request_log_cover_them,
    a_customer_chosen_amount_is_paid_and_bad_orders_change_nothing,
    a_storefront_page_offers_prices_of_products_with_custom_fields,
    products_and_prices_are_archived_not_deleted_once_priced,
    every_bad_page_is_refused_and_changes_nothing,
    another_account_or_mode_sees_and_touches_none_of_them,
);

async fn send(app: &TestApp, method: Method, path: &str, key: &str, body: Value) -> (u16, Value) {
    read(app.json(method, path, key, &body).await).await
}

async fn made(app: &TestApp, path: &str, body: Value) -> Value {
    let (status, object) = send(app, Method::POST, path, &app.keys.secret_test, body).await;
    assert_eq!(status, 200, "{object}");
    object
}

/// A product with one price of `centavos`; the price.
async fn priced(app: &TestApp, name: &str, centavos: i64) -> Value {
    let product = made(app, "/products", json!({"name": name, "description": format!("A {name}")})).await;
    made(app, "/prices", json!({"product_id": product["id"], "amount": centavos, "description": "Each"})).await
}

fn storefront(prices: &[&Value]) -> Value {
    json!({
        "title": "Merch",
        "description": "Our shop",
        "template": "storefront",
        "prices": prices.iter().map(|price| price["id"].clone()).collect::<Vec<_>>(),
        "custom_fields": [
            {"name": "Size", "type": "dropdown", "options": ["S", "M", "L"], "required": true},
            {"name": "Student number", "type": "number", "minimum": 1, "maximum": 999999},
        ],
        "payment_methods": ["card", "gcash"],
    })
}

async fn a_storefront_page_offers_prices_of_products_with_custom_fields(app: TestApp) {
    let mug = priced(&app, "Mug", 25_000).await;
    let shirt = priced(&app, "Shirt", 50_000).await;
    let cap = priced(&app, "Cap", 15_000).await;
    assert_eq!((mug["resource"].as_str(), mug["amount"].as_i64(), mug["currency"].as_str()), (Some("price"), Some(25_000), Some("PHP")));
    assert!(mug["id"].as_str().unwrap().starts_with("price_"));
    let page = made(&app, "/pages", storefront(&[&mug, &shirt, &cap])).await;
    assert!(page["id"].as_str().unwrap().starts_with("page_"), "{page}");
    assert_eq!(page["template"], "storefront");
    assert_eq!(page["prices"], json!([mug["id"], shirt["id"], cap["id"]]));
    assert_eq!(page["active"], true);
    assert_eq!(page["after_payment_message"], "Thank you for your payment.", "the default message");
    let fields = page["custom_fields"].as_array().unwrap();
    assert_eq!(fields.len(), 2);
    assert!(fields.iter().all(|field| field["id"].as_str().unwrap().starts_with("page_cf_")), "{page}");
    assert_eq!((fields[0]["type"].as_str(), fields[0]["required"].as_bool()), (Some("dropdown"), Some(true)));
    assert_eq!((fields[1]["minimum"].as_i64(), fields[1]["required"].as_bool()), (Some(1), Some(false)));

    let id = page["id"].as_str().unwrap();
    let (_, retrieved) = read(app.get(&format!("/pages/{id}")).await).await;
    assert_eq!(retrieved, page);
    let (_, listed) = read(app.get("/pages").await).await;
    assert_eq!(listed["data"], json!([page]));

    // A single amount, chosen by the customer within bounds, sending them to the shop afterwards.
    let chosen = json!({
        "title": "Donate", "template": "customer_chosen_amount", "minimum_amount": 5_000, "maximum_amount": 500_000,
        "payment_methods": ["card"], "after_payment_redirect_url": "https://shop.example/thanks",
    });
    let chosen = made(&app, "/pages", chosen).await;
    assert_eq!((chosen["minimum_amount"].as_i64(), chosen["maximum_amount"].as_i64()), (Some(5_000), Some(500_000)));
    assert_eq!((chosen["after_payment_message"].clone(), chosen["after_payment_redirect_url"].as_str()), (Value::Null, Some("https://shop.example/thanks")));

    // Updated, then deactivated; a form body works as JSON does.
    let path = format!("/pages/{id}");
    let (status, renamed) = send(&app, Method::PUT, &path, &app.keys.secret_test, json!({"title": "Merch 2026"})).await;
    assert_eq!((status, renamed["title"].as_str()), (200, Some("Merch 2026")), "{renamed}");
    assert_eq!(renamed["custom_fields"], page["custom_fields"], "what the update leaves out stays");
    let (status, closed) = read(app.form(Method::PUT, &path, &app.keys.secret_test, "active=false").await).await;
    assert_eq!((status, closed["active"].as_bool()), (200, Some(false)), "{closed}");
}

async fn products_and_prices_are_archived_not_deleted_once_priced(app: TestApp) {
    let price = priced(&app, "Mug", 25_000).await;
    let product = price["product_id"].as_str().unwrap();
    let (status, refused) = send(&app, Method::DELETE, &format!("/products/{product}"), &app.keys.secret_test, json!({})).await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused["errors"][0]["detail"].as_str().unwrap().contains("archive it"), "{refused}");

    let archive = json!({"active": false});
    let (status, archived) = send(&app, Method::PUT, &format!("/prices/{}", price["id"].as_str().unwrap()), &app.keys.secret_test, archive).await;
    assert_eq!((status, archived["active"].as_bool(), archived["amount"].as_i64()), (200, Some(false), Some(25_000)));
    let (status, refused) = send(&app, Method::POST, "/pages", &app.keys.secret_test, storefront(&[&archived])).await;
    assert_eq!(status, 400, "an archived price is offered on no page: {refused}");
    assert_eq!(refused["errors"][0]["code"], "resource_invalid_state", "{refused}");

    let (status, _) = send(&app, Method::PUT, &format!("/products/{product}"), &app.keys.secret_test, json!({"active": false})).await;
    assert_eq!(status, 200);
    let refused = send(&app, Method::POST, "/prices", &app.keys.secret_test, json!({"product_id": product, "amount": 3_000})).await;
    assert_eq!((refused.0, refused.1["errors"][0]["code"].as_str()), (400, Some("resource_invalid_state")), "{}", refused.1);

    let lone = made(&app, "/products", json!({"name": "Sticker"})).await;
    let lone_path = format!("/products/{}", lone["id"].as_str().unwrap());
    let (status, deleted) = send(&app, Method::DELETE, &lone_path, &app.keys.secret_test, json!({})).await;
    assert_eq!((status, deleted["deleted"].as_bool()), (200, Some(true)), "{deleted}");
    assert_eq!(read(app.get(&lone_path).await).await.0, 404);
    let (_, listed) = read(app.get(&format!("/prices?product_id={product}")).await).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
}

async fn every_bad_page_is_refused_and_changes_nothing(app: TestApp) {
    let price = priced(&app, "Mug", 25_000).await;
    let good = storefront(&[&price]);
    let with = |changes: Value| {
        let mut body = good.clone();
        for (key, value) in changes.as_object().unwrap() {
            if value.is_null() {
                body.as_object_mut().unwrap().remove(key);
            } else {
                body[key] = value.clone();
            }
        }
        body
    };
    let table: Vec<(Value, &str, &str)> = vec![
        (with(json!({"title": null})), "title", "parameter_required"),
        (with(json!({"title": "  "})), "title", "parameter_invalid"),
        (with(json!({"template": "auction"})), "template", "parameter_invalid"),
        (with(json!({"template": null})), "template", "parameter_required"),
        (with(json!({"prices": null})), "prices", "parameter_required"),
        (with(json!({"prices": []})), "prices", "parameter_invalid"),
        (with(json!({"prices": ["price_nope"]})), "prices[0]", "resource_not_found"),
        (with(json!({"prices": [price["id"], price["id"]]})), "prices", "parameter_invalid"),
        (with(json!({"amount": 5_000})), "amount", "parameter_invalid"),
        (with(json!({"payment_methods": ["cash"]})), "payment_methods", "parameter_invalid"),
        (with(json!({"payment_methods": null})), "payment_methods", "parameter_required"),
        (with(json!({"custom_fields": [{"name": "Size", "type": "dropdown"}]})), "custom_fields[0][options]", "parameter_required"),
        (with(json!({"custom_fields": [{"name": "Size", "type": "colour"}]})), "custom_fields[0][type]", "parameter_invalid"),
        (with(json!({"custom_fields": [{"name": "Size", "type": "text", "options": ["a"]}]})), "custom_fields[0][options]", "parameter_invalid"),
        (with(json!({"custom_fields": [{"name": "Age", "type": "number", "minimum": 9, "maximum": 1}]})), "custom_fields[0][maximum]", "parameter_invalid"),
        (with(json!({"custom_fields": [{"name": "Note", "type": "text", "max_length": 501}]})), "custom_fields[0][max_length]", "parameter_above_maximum"),
        (with(json!({"custom_fields": (0..11).map(|n| json!({"name": format!("Q{n}"), "type": "text"})).collect::<Vec<_>>()})), "custom_fields", "parameter_invalid"),
        (with(json!({"after_payment_message": "x", "after_payment_redirect_url": "https://shop.example"})), "after_payment_redirect_url", "parameter_invalid"),
        (with(json!({"after_payment_redirect_url": "javascript:alert(1)"})), "after_payment_redirect_url", "parameter_invalid"),
        (json!({"title": "Fixed", "template": "fixed_amount", "amount": 1_999, "payment_methods": ["card"]}), "amount", "parameter_below_minimum"),
        (json!({"title": "Fixed", "template": "fixed_amount", "payment_methods": ["card"]}), "amount", "parameter_required"),
        (
            json!({"title": "Give", "template": "customer_chosen_amount", "minimum_amount": 9_000, "maximum_amount": 5_000, "payment_methods": ["card"]}),
            "maximum_amount",
            "parameter_invalid",
        ),
        (with(json!({"surprise": 1})), "surprise", "parameter_invalid"),
    ];
    for (body, parameter, code) in table {
        let (status, refused) = send(&app, Method::POST, "/pages", &app.keys.secret_test, body.clone()).await;
        assert_eq!(status, 400, "{body} → {refused}");
        let found = refused["errors"].as_array().unwrap().iter().any(|e| e["parameter"] == parameter && e["code"] == code);
        assert!(found, "{body}: expected {parameter} {code}, got {refused}");
    }
    let bad_products = [json!({}), json!({"name": ""}), json!({"name": "x".repeat(256)}), json!({"name": "Mug", "image": "http://shop.example/a.png"})];
    for body in bad_products {
        assert_eq!(send(&app, Method::POST, "/products", &app.keys.secret_test, body).await.0, 400);
    }
    let product = price["product_id"].clone();
    let bad_prices = [
        json!({"product_id": product}),
        json!({"product_id": product, "amount": 1_999}),
        json!({"product_id": product, "amount": "ten"}),
        json!({"product_id": "prod_nope", "amount": 3_000}),
        json!({"amount": 3_000}),
        json!({"product_id": product, "amount": 3_000, "currency": "USD"}),
    ];
    for body in bad_prices {
        assert_eq!(send(&app, Method::POST, "/prices", &app.keys.secret_test, body.clone()).await.0, 400, "{body}");
    }
    let (_, pages) = read(app.get("/pages").await).await;
    assert_eq!(pages["data"], json!([]), "nothing made");
    let (_, products) = read(app.get("/products").await).await;
    let (_, prices) = read(app.get("/prices").await).await;
    assert_eq!((products["data"].as_array().unwrap().len(), prices["data"].as_array().unwrap().len()), (1, 1));
    let page_path = "/pages/page_nope";
    assert_eq!(send(&app, Method::PUT, page_path, &app.keys.secret_test, json!({"title": "x"})).await.0, 404);
}

async fn another_account_or_mode_sees_and_touches_none_of_them(app: TestApp) {
    let price = priced(&app, "Mug", 25_000).await;
    let page = made(&app, "/pages", storefront(&[&price])).await;
    let product = price["product_id"].as_str().unwrap().to_owned();
    let paths = [
        format!("/products/{product}"),
        format!("/prices/{}", price["id"].as_str().unwrap()),
        format!("/pages/{}", page["id"].as_str().unwrap()),
    ];
    for key in [app.other_account_key.clone(), app.keys.secret_live.clone()] {
        for path in &paths {
            let (status, _) = read(app.request(Method::GET, path, &key).send().await.unwrap()).await;
            assert_eq!(status, 404, "{path}");
            let (status, _) = send(&app, Method::PUT, path, &key, json!({"active": false})).await;
            assert_eq!(status, 404, "{path}");
        }
        for list in ["/products", "/prices", "/pages"] {
            let (_, listed) = read(app.request(Method::GET, list, &key).send().await.unwrap()).await;
            assert_eq!(listed["data"], json!([]), "{list}");
        }
        // Another account's price is no price of this one.
        let (status, refused) = send(&app, Method::POST, "/pages", &key, storefront(&[&price])).await;
        assert_eq!((status, refused["errors"][0]["code"].as_str()), (400, Some("resource_not_found")), "{refused}");
        let (status, _) = send(&app, Method::POST, "/prices", &key, json!({"product_id": product, "amount": 3_000})).await;
        assert_eq!(status, 400);
    }
    let (_, still) = read(app.get(&paths[2]).await).await;
    assert_eq!(still["active"], true, "untouched");
    assert_eq!(read(app.request(Method::GET, &paths[0], &app.keys.public_test).send().await.unwrap()).await.0, 401, "a public key reads none");
}

/// Places `order` (a form body) on the page `page`: the answer's status and where it sends the
/// customer, or the page shown.
pub(crate) async fn place(app: &TestApp, page: &str, order: &str) -> (u16, String, String) {
    let response = browser()
        .post(format!("{}/p/{page}", app.address))
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(order.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let location = response.headers().get("location").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    (status, location, response.text().await.unwrap())
}

async fn a_storefront_page_paid_by_card_gives_a_payment_with_its_page_session(app: TestApp) {
    let (mug, shirt, cap) = (priced(&app, "Mug", 25_000).await, priced(&app, "Shirt", 50_000).await, priced(&app, "Cap", 15_000).await);
    let page = made(&app, "/pages", storefront(&[&mug, &shirt, &cap])).await;
    let page_id = page["id"].as_str().unwrap();
    let (size, student) = (page["custom_fields"][0]["id"].as_str().unwrap(), page["custom_fields"][1]["id"].as_str().unwrap());
    let (status, html) = crate::helpers::open_page(&format!("{}/p/{page_id}", app.address)).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("Merch") && html.contains("Shirt") && html.contains("₱500.00") && html.contains("Student number"), "{html}");

    let order = format!(
        "quantity[{}]=2&quantity[{}]=1&quantity[{}]=3&custom_fields[{size}]=M&custom_fields[{student}]=202312",
        mug["id"].as_str().unwrap(),
        shirt["id"].as_str().unwrap(),
        cap["id"].as_str().unwrap()
    );
    let (status, location, body) = place(&app, page_id, &order).await;
    assert_eq!(status, 303, "{body}");
    assert!(location.starts_with("/o/pi_"), "{location}");
    let payment_page = format!("{}{location}", app.address);
    let (status, html) = crate::helpers::open_page(&payment_page).await;
    assert_eq!(status, 200);
    assert!(html.contains("₱1,450.00") && html.contains("2 × ₱250.00") && html.contains("202312"), "{html}");

    let paid = visit(&payment_page).await.submit(&card_fields("4242424242424242")).await;
    assert_eq!(paid.status().as_u16(), 303, "{}", paid.text().await.unwrap());
    let (status, html) = crate::helpers::open_page(&payment_page).await;
    assert_eq!(status, 200);
    assert!(html.contains("Thank you for your payment."), "the page's message: {html}");

    // The payment: origin pages, and page_session exactly as the spec shapes it.
    let (_, events) = read(app.get("/events?type=payment.paid").await).await;
    let payment = events["data"][0]["data"].clone();
    assert_eq!((payment["origin"].as_str(), payment["amount"].as_i64()), (Some("pages"), Some(145_000)), "{payment}");
    let session = &payment["page_session"];
    assert_eq!(session.as_object().unwrap().keys().collect::<Vec<_>>(), ["custom_fields", "line_items"]);
    assert_eq!(
        session["custom_fields"],
        json!([{"id": size, "name": "Size", "value": "M"}, {"id": student, "name": "Student number", "value": "202312"}])
    );
    let lines = session["line_items"].as_array().unwrap();
    assert_eq!(lines.len(), 3);
    let keys: Vec<&String> = lines[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["id", "price_id", "price_amount", "price_description", "product_id", "product_name", "product_description", "quantity", "total_amount"]
    );
    for (line, (price, quantity, name)) in lines.iter().zip([(&mug, 2, "Mug"), (&shirt, 1, "Shirt"), (&cap, 3, "Cap")]) {
        assert_eq!(line["price_id"], price["id"]);
        assert_eq!(line["product_id"], price["product_id"]);
        assert_eq!((line["product_name"].as_str(), line["product_description"].as_str()), (Some(name), Some(format!("A {name}").as_str())));
        assert_eq!((line["quantity"].as_i64(), line["price_description"].as_str()), (Some(quantity), Some("Each")));
        assert_eq!(line["total_amount"].as_i64(), Some(quantity * price["amount"].as_i64().unwrap()));
        assert!(line["id"].as_str().unwrap().starts_with("page_li_"));
    }
    let (_, retrieved) = read(app.get(&format!("/payments/{}", payment["id"].as_str().unwrap())).await).await;
    assert_eq!(retrieved["page_session"], *session, "a retrieved payment carries it too");

    // Many customers pay the same page: each order is an intent of its own.
    let orders = (0..6).map(|_| place(&app, page_id, &order));
    let placed = futures_util::future::join_all(orders).await;
    let mut secrets: Vec<&String> = placed.iter().map(|(status, location, _)| {
        assert_eq!(*status, 303);
        location
    }).collect();
    secrets.dedup();
    assert_eq!(secrets.len(), 6, "six orders, six intents");
}

async fn a_customer_chosen_amount_is_paid_and_bad_orders_change_nothing(app: TestApp) {
    let chosen = json!({
        "title": "Donate", "template": "customer_chosen_amount", "minimum_amount": 5_000, "maximum_amount": 500_000,
        "payment_methods": ["card"], "after_payment_redirect_url": "https://shop.example/thanks?from=page",
        "custom_fields": [{"name": "Note", "type": "text", "max_length": 10}],
    });
    let page = made(&app, "/pages", chosen).await;
    let page_id = page["id"].as_str().unwrap();
    let note = page["custom_fields"][0]["id"].as_str().unwrap();
    let (_, before) = read(app.get("/payment_intents").await).await;
    for (order, says) in [
        ("amount=49.99".to_owned(), "at least 5000"),
        ("amount=5000.01".to_owned(), "at most 500000"),
        ("amount=ten".to_owned(), "Enter the amount in pesos"),
        (String::new(), "Enter the amount to pay"),
        (format!("amount=100&custom_fields[{note}]=far%20too%20long"), "at most 10 characters"),
        ("amount=100&custom_fields[page_cf_nope]=x".to_owned(), "no such question"),
        ("amount=100&quantity[price_x]=1".to_owned(), "does not offer that price"),
        ("amount=100&custom_fields=abc".to_owned(), "custom_fields"),
        (format!("amount={}", "9".repeat(40)), "amount"),
        ("amount=100&colour=red".to_owned(), "colour"),
    ] {
        let (status, _, html) = place(&app, page_id, &order).await;
        assert_eq!(status, 400, "{order}");
        assert!(html.contains(says) && html.contains("role=\"alert\""), "{order}: {html}");
    }
    let (_, after) = read(app.get("/payment_intents").await).await;
    assert_eq!(after["data"], before["data"], "no intent made");
    assert_eq!(place(&app, "page_nope", "amount=100").await.0, 404);

    let (status, location, _) = place(&app, page_id, &format!("amount=1%2C234.50&custom_fields[{note}]=thanks")).await;
    assert_eq!(status, 303);
    let payment_page = format!("{}{location}", app.address);
    let paid = visit(&payment_page).await.submit(&card_fields("4242424242424242")).await;
    let sent_to = paid.headers().get("location").unwrap().to_str().unwrap().to_owned();
    assert!(sent_to.starts_with("https://shop.example/thanks?from=page&payment_intent_client_secret=pi_"), "{sent_to}");
    let (_, events) = read(app.get("/events?type=payment.paid").await).await;
    let payment = &events["data"][0]["data"];
    assert_eq!((payment["amount"].as_i64(), payment["origin"].as_str()), (Some(123_450), Some("pages")));
    assert_eq!(payment["page_session"], json!({"custom_fields": [{"id": note, "name": "Note", "value": "thanks"}], "line_items": []}));

    // Deactivated, the page takes no order.
    let path = format!("/pages/{page_id}");
    send(&app, Method::PUT, &path, &app.keys.secret_test, json!({"active": false})).await;
    let (status, _, html) = place(&app, page_id, "amount=100").await;
    assert!(status == 400 && html.contains("no longer takes payments"), "{status} {html}");
}

/// The test helper a merchant's tests pay a page by without a browser: the order checked as the
/// page checks it, the intent paid by attaching with the secret key; a live key, another account's
/// key and a bad order are refused, with nothing made.
async fn a_test_order_placed_through_the_api_is_paid_by_attaching(app: TestApp) {
    let mug = priced(&app, "Mug", 25_000).await;
    let page = made(&app, "/pages", storefront(&[&mug])).await;
    let (page_id, size) = (page["id"].as_str().unwrap(), page["custom_fields"][0]["id"].as_str().unwrap());
    let path = format!("/test_helpers/pages/{page_id}/orders");
    let order = json!({"quantity": {mug["id"].as_str().unwrap(): "2"}, "custom_fields": {size: "L"}});
    let (_, before) = read(app.get("/payment_intents").await).await;
    for (key, body, status, says) in [
        (app.keys.secret_live.clone(), order.clone(), 400, "test"),
        (app.other_account_key.clone(), order.clone(), 404, "page"),
        (app.keys.secret_test.clone(), json!({"quantity": {mug["id"].as_str().unwrap(): "two"}}), 400, "whole number"),
        (app.keys.secret_test.clone(), json!({"quantity": {mug["id"].as_str().unwrap(): "1"}}), 400, "Size"),
        (app.keys.secret_test.clone(), json!({"custom_fields": {size: "L"}}), 400, "at least one"),
        (app.keys.secret_test.clone(), json!({"quantity": {mug["id"].as_str().unwrap(): "1"}, "tip": "5"}), 400, "tip"),
    ] {
        let (code, refused) = send(&app, Method::POST, &path, &key, body.clone()).await;
        assert_eq!(code, status, "{body}: {refused}");
        assert!(refused.to_string().contains(says), "{body}: {refused}");
    }
    let (_, after) = read(app.get("/payment_intents").await).await;
    assert_eq!(after["data"], before["data"], "no intent made");

    let (status, intent) = send(&app, Method::POST, &path, &app.keys.secret_test, order).await;
    assert_eq!((status, intent["amount"].as_i64()), (200, Some(50_000)), "{intent}");
    let (status, paid) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    let (_, payment) = read(app.get(&format!("/payments/{}", paid["latest_payment"]["id"].as_str().unwrap())).await).await;
    assert_eq!(payment["page_session"]["line_items"][0]["total_amount"], 50_000, "{payment}");
    assert_eq!(payment["page_session"]["custom_fields"][0]["value"], "L");
}

/// Made after the test clock moved, products, prices, pages and a page's payment are stamped with
/// its time; their requests are in the request log by their objects, and the test order's too.
async fn the_test_clock_and_the_request_log_cover_them(app: TestApp) {
    assert_eq!(app.post("/test_helpers/clock/advance", "seconds=172800").await.0, 200);
    let (_, clock) = read(app.get("/test_helpers/clock").await).await;
    let now = clock["now"].as_i64().unwrap();
    let mug = priced(&app, "Mug", 25_000).await;
    let page = made(&app, "/pages", storefront(&[&mug])).await;
    let (page_id, size) = (page["id"].as_str().unwrap(), page["custom_fields"][0]["id"].as_str().unwrap());
    let order = json!({"quantity": {mug["id"].as_str().unwrap(): "1"}, "custom_fields": {size: "S"}});
    let (_, intent) = send(&app, Method::POST, &format!("/test_helpers/pages/{page_id}/orders"), &app.keys.secret_test, order).await;
    let (_, paid) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    let (_, payment) = read(app.get(&format!("/payments/{}", paid["latest_payment"]["id"].as_str().unwrap())).await).await;
    let (_, product) = read(app.get(&format!("/products/{}", mug["product_id"].as_str().unwrap())).await).await;
    for object in [&product, &mug, &page, &intent, &payment] {
        let at = object["created_at"].as_i64().unwrap();
        assert!((now..now + 60).contains(&at), "stamped by the test clock ({now}): {object}");
    }
    for (id, path) in [(page_id, "/pages"), (mug["id"].as_str().unwrap(), "/prices")] {
        let entries = crate::request_logs::logged(&app, &format!("&object_id={id}"), 1).await;
        assert!(entries.iter().any(|entry| entry["path"] == path && entry["status"] == 200), "{entries:?}");
    }
    let entries = crate::request_logs::logged(&app, "&path=/test_helpers/pages", 1).await;
    assert_eq!(entries[0]["method"], "POST", "{entries:?}");
}
