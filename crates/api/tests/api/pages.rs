//! Products, prices and pages over HTTP, on both backends: made, read, listed, archived and
//! deactivated; every bad input refused with nothing changed; another account or mode sees and
//! touches none of them.

use crate::helpers::{read, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
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
    assert_eq!(refused["errors"][0]["parameter"], "prices[0]");

    let (status, _) = send(&app, Method::PUT, &format!("/products/{product}"), &app.keys.secret_test, json!({"active": false})).await;
    assert_eq!(status, 200);
    let refused = send(&app, Method::POST, "/prices", &app.keys.secret_test, json!({"product_id": product, "amount": 3_000})).await;
    assert_eq!((refused.0, refused.1["errors"][0]["parameter"].as_str()), (400, Some("product_id")), "{}", refused.1);

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
        (with(json!({"custom_fields": [{"name": "Age", "type": "number", "minimum": 9, "maximum": 1}]})), "custom_fields[0]", "parameter_invalid"),
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
