//! Setup intents and saved payment methods over HTTP: saving every test card, 3-D Secure through the
//! test page, the processing card, cancel, the customer's saved methods, paying later with one (and
//! the refusals), access with the public key, isolation, and bad input that changes nothing.

use crate::helpers::{decide, error_codes, ids, open_page, read, single_error, TestApp};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    a_setup_intent_is_created_with_form_or_json_and_retrieved,
    bad_setup_intents_are_refused_and_change_nothing,
    every_test_card_saves_or_declines_as_its_row_says,
    a_3ds_card_is_saved_after_the_test_page_and_returns_to_the_shop,
    the_processing_card_is_saved_when_the_processor_answers,
    cancel_is_allowed_only_before_the_card_is_saved,
    a_public_key_needs_the_client_secret_and_sees_only_the_browser_fields,
    saved_methods_are_listed_and_deleted_per_customer,
    a_saved_card_pays_a_later_intent_of_its_customer,
    a_saved_card_is_refused_where_it_may_not_pay,
    setup_intents_and_saved_methods_are_invisible_to_other_accounts_and_modes,
    simultaneous_attaches_save_one_card_and_simultaneous_charges_pay_once,
    deleting_a_customer_removes_its_saved_cards_and_stops_its_setups,
);

const SUCCESS_CARD: &str = "4242424242424242";

async fn create_setup_intent(app: &TestApp, customer_id: &str, extra: &str) -> Value {
    let body = format!(
        "customer_id={customer_id}&payment_methods[]=card&return_url=https%3A%2F%2Fshop.example%2Fsaved{extra}"
    );
    let (status, intent) = app.post("/setup_intents", &body).await;
    assert_eq!(status, 200, "{intent}");
    intent
}

fn card_body(number: &str) -> String {
    format!(
        "payment_method[type]=card&payment_method[card][number]={number}&payment_method[card][exp_month]=12\
         &payment_method[card][exp_year]=2035&payment_method[card][cvc]=123\
         &payment_method[billing][name]=Juan%20dela%20Cruz"
    )
}

async fn attach_card(app: &TestApp, intent_id: &str, number: &str) -> (u16, Value) {
    app.post(&format!("/setup_intents/{intent_id}/attach"), &card_body(number)).await
}

/// A customer with a card saved for `usage`; returns the customer and the saved method's id.
async fn customer_with_saved_card(app: &TestApp, name: &str, usage: &str) -> (Value, String) {
    let customer = app.create_customer(name).await;
    let intent = create_setup_intent(app, customer["id"].as_str().unwrap(), &format!("&usage={usage}")).await;
    let (status, saved) = attach_card(app, intent["id"].as_str().unwrap(), SUCCESS_CARD).await;
    assert_eq!((status, saved["status"].as_str()), (200, Some("succeeded")), "{saved}");
    (customer, saved["payment_method_id"].as_str().unwrap().to_owned())
}

async fn a_setup_intent_is_created_with_form_or_json_and_retrieved(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let intent = create_setup_intent(&app, customer_id, "&description=Card%20on%20file&metadata[plan]=gold").await;
    let id = intent["id"].as_str().unwrap();
    assert!(id.starts_with("si_"));
    assert!(intent["client_secret"].as_str().unwrap().starts_with(&format!("{id}_secret_")));
    assert_eq!(intent["resource"], "setup_intent");
    assert_eq!(intent["status"], "awaiting_payment_method");
    assert_eq!(intent["usage"], "on_session", "the default usage");
    assert_eq!(intent["payment_methods"], json!(["card"]));
    assert_eq!(intent["customer"]["id"], customer_id, "the customer is embedded");
    assert_eq!((&intent["payment_method_id"], &intent["next_action"]), (&Value::Null, &Value::Null));
    assert_eq!(intent["metadata"], json!({"plan": "gold"}));
    assert_eq!(intent["livemode"], false);
    let (status, fetched) = read(app.get(&format!("/setup_intents/{id}")).await).await;
    assert_eq!((status, &fetched), (200, &intent));

    let body = json!({"customer_id": customer_id, "payment_methods": ["card"], "usage": "off_session"});
    let (status, from_json) = read(app.json(Method::POST, "/setup_intents", &app.keys.secret_test, &body).await).await;
    assert_eq!((status, from_json["usage"].as_str()), (200, Some("off_session")), "{from_json}");
    let attach = json!({"payment_method": {"type": "card", "card": {
        "number": "4242 4242 4242 4242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}}});
    let path = format!("/setup_intents/{}/attach", from_json["id"].as_str().unwrap());
    let (status, saved) = read(app.json(Method::POST, &path, &app.keys.secret_test, &attach).await).await;
    assert_eq!((status, saved["status"].as_str()), (200, Some("succeeded")), "a JSON attach: {saved}");
}

async fn bad_setup_intents_are_refused_and_change_nothing(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let (status, body) = app.post("/setup_intents", "").await;
    assert_eq!(status, 400);
    let mut codes = error_codes(&body);
    codes.sort();
    assert_eq!(
        codes,
        vec![
            ("customer_id".to_owned(), "parameter_required".to_owned()),
            ("payment_methods".to_owned(), "parameter_required".to_owned())
        ]
    );
    for (body, parameter) in [
        ("customer_id=cus_nobody&payment_methods[]=card".to_string(), "customer_id"),
        ("customer_id=nonsense&payment_methods[]=card".to_string(), "customer_id"),
        (format!("customer_id={customer_id}&payment_methods[]=gcash"), "payment_methods"),
        (format!("customer_id={customer_id}&payment_methods[]=paypal"), "payment_methods"),
        (format!("customer_id={customer_id}&payment_methods[]=card&usage=sometimes"), "usage"),
        (format!("customer_id={customer_id}&payment_methods[]=card&return_url=nope"), "return_url"),
        (format!("customer_id={customer_id}&payment_methods[]=card&unknown=1"), "unknown"),
        (
            format!(
                "customer_id={customer_id}&payment_methods[]=card&payment_method_options[card][capture_type]=manual"
            ),
            "payment_method_options[card][capture_type]",
        ),
    ] {
        let (status, answer) = app.post("/setup_intents", &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(error_codes(&answer)[0].0, parameter, "{body}: {answer}");
    }
    let (status, deleted) = read(
        app.request(Method::DELETE, &format!("/customers/{customer_id}"), &app.keys.secret_test).send().await.unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{deleted}");
    let (status, answer) =
        app.post("/setup_intents", &format!("customer_id={customer_id}&payment_methods[]=card")).await;
    assert_eq!((status, error_codes(&answer)[0].0.as_str()), (400, "customer_id"), "a deleted customer: {answer}");
    assert!(!app.event_types().await.iter().any(|t| t.starts_with("setup_intent")), "nothing happened");
}

async fn every_test_card_saves_or_declines_as_its_row_says(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let saves = [
        "4242424242424242",
        "4701322211111234",
        "5425233430109903",
        "5200828282828210",
        "4000000760000002",
        "4311780000241409",
    ];
    let declines = [
        ("4000000000001000", "blocked"),
        ("4005550000000019", "generic_decline"),
        ("4503300000000008", "funds_insufficient"),
        ("4205260000000005", "cvc_incorrect"),
        ("4001270000000000", "processing_error"),
        ("4012000033330026", "system_error"),
        ("4000000000000077", "generic_decline"),
    ];
    for number in saves {
        let intent = create_setup_intent(&app, customer_id, "").await;
        let (status, saved) = attach_card(&app, intent["id"].as_str().unwrap(), number).await;
        assert_eq!((status, saved["status"].as_str()), (200, Some("succeeded")), "{number}: {saved}");
        assert!(saved["payment_method_id"].as_str().unwrap().starts_with("pm_"), "{number}");
        assert_eq!(saved["last_setup_error"], Value::Null);
    }
    for (number, code) in declines {
        let intent = create_setup_intent(&app, customer_id, "").await;
        let id = intent["id"].as_str().unwrap();
        let (status, answer) = attach_card(&app, id, number).await;
        assert_eq!(status, 400, "{number}: {answer}");
        assert_eq!(answer["errors"][0]["code"], code, "{number}: {answer}");
        let (_, after) = read(app.get(&format!("/setup_intents/{id}")).await).await;
        assert_eq!(after["status"], "awaiting_payment_method", "{number}");
        assert_eq!(
            (after["last_setup_error"]["code"].as_str(), &after["payment_method_id"]),
            (Some(code), &Value::Null)
        );
    }
    let (_, methods) = read(app.get(&format!("/customers/{customer_id}/payment_methods?limit=100")).await).await;
    assert_eq!(ids(&methods).len(), saves.len(), "only verified cards are saved");
    let succeeded = app.event_types().await.iter().filter(|t| *t == "setup_intent.succeeded").count();
    assert_eq!(succeeded, saves.len());
}

async fn a_3ds_card_is_saved_after_the_test_page_and_returns_to_the_shop(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let intent = create_setup_intent(&app, customer["id"].as_str().unwrap(), "").await;
    let id = intent["id"].as_str().unwrap();
    let (status, waiting) = attach_card(&app, id, "4000000000003220").await;
    assert_eq!((status, waiting["status"].as_str()), (200, Some("awaiting_next_action")), "{waiting}");
    let url = waiting["next_action"]["redirect_url"].as_str().unwrap().to_owned();
    assert_eq!(waiting["next_action"]["type"], "redirect");
    let (status, page) = open_page(&url).await;
    assert_eq!(status, 200);
    assert!(page.contains("to save it") && page.contains(id), "{page}");
    let answer = decide(&url, "authorize").await;
    assert_eq!(answer.status().as_u16(), 303);
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    let secret = intent["client_secret"].as_str().unwrap();
    assert_eq!(location, format!("https://shop.example/saved?setup_intent_client_secret={secret}"));
    let (_, saved) = read(app.get(&format!("/setup_intents/{id}")).await).await;
    assert_eq!((saved["status"].as_str(), &saved["next_action"]), (Some("succeeded"), &Value::Null));
    assert!(saved["payment_method_id"].as_str().unwrap().starts_with("pm_"));
    let again = decide(&url, "fail").await;
    assert_eq!(again.status().as_u16(), 303, "a used page shows how it ended and changes nothing");
    let (_, still) = read(app.get(&format!("/setup_intents/{id}")).await).await;
    assert_eq!(still["payment_method_id"], saved["payment_method_id"]);

    let failing = create_setup_intent(&app, customer["id"].as_str().unwrap(), "").await;
    let failing_id = failing["id"].as_str().unwrap();
    let (_, waiting) = attach_card(&app, failing_id, "4000000000003220").await;
    let url = waiting["next_action"]["redirect_url"].as_str().unwrap();
    assert_eq!(decide(url, "fail").await.status().as_u16(), 303);
    let (_, failed) = read(app.get(&format!("/setup_intents/{failing_id}")).await).await;
    assert_eq!(
        (failed["status"].as_str(), failed["last_setup_error"]["code"].as_str()),
        (Some("awaiting_payment_method"), Some("authentication_failed"))
    );
    assert_eq!(failed["payment_method_id"], Value::Null);
}

async fn the_processing_card_is_saved_when_the_processor_answers(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let intent = create_setup_intent(&app, customer["id"].as_str().unwrap(), "").await;
    let id = intent["id"].as_str().unwrap();
    let (status, processing) = attach_card(&app, id, "4000000000003337").await;
    assert_eq!((status, processing["status"].as_str()), (200, Some("processing")), "{processing}");
    assert_eq!(processing["payment_method_id"], Value::Null, "not saved yet");
    let (status, refused) = app.post(&format!("/setup_intents/{id}/cancel"), "").await;
    assert_eq!(status, 400);
    single_error(&refused, "resource_invalid_state");
    assert!(app.advance_and_run_due_actions(5).await >= 1);
    let (_, saved) = read(app.get(&format!("/setup_intents/{id}")).await).await;
    assert_eq!(saved["status"], "succeeded");
    assert!(saved["payment_method_id"].as_str().unwrap().starts_with("pm_"));
}

async fn cancel_is_allowed_only_before_the_card_is_saved(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let waiting = create_setup_intent(&app, customer_id, "").await;
    let id = waiting["id"].as_str().unwrap();
    let (status, canceled) = app.post(&format!("/setup_intents/{id}/cancel"), "").await;
    assert_eq!((status, canceled["status"].as_str()), (200, Some("canceled")), "{canceled}");
    let (status, refused) = attach_card(&app, id, SUCCESS_CARD).await;
    assert_eq!(status, 400);
    assert!(single_error(&refused, "resource_invalid_state").contains("canceled"), "{refused}");

    let redirected = create_setup_intent(&app, customer_id, "").await;
    let redirected_id = redirected["id"].as_str().unwrap();
    let (_, waiting) = attach_card(&app, redirected_id, "4000000000003220").await;
    let url = waiting["next_action"]["redirect_url"].as_str().unwrap().to_owned();
    let (status, canceled) = app.post(&format!("/setup_intents/{redirected_id}/cancel"), "").await;
    assert_eq!((status, canceled["status"].as_str()), (200, Some("canceled")));
    let (status, _) = open_page(&url).await;
    assert_eq!(status, 404, "a canceled setup's page cannot be used");

    let (_, saved_method) = customer_with_saved_card(&app, "Ben", "on_session").await;
    let (_, methods) = read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
    assert!(ids(&methods).is_empty(), "{saved_method} is another customer's");
    let done = create_setup_intent(&app, customer_id, "").await;
    let done_id = done["id"].as_str().unwrap();
    attach_card(&app, done_id, SUCCESS_CARD).await;
    let (status, refused) = app.post(&format!("/setup_intents/{done_id}/cancel"), "").await;
    assert_eq!(status, 400);
    assert!(single_error(&refused, "resource_invalid_state").contains("succeeded"));
    let (status, _) = app.post("/setup_intents/si_unknown/cancel", "").await;
    assert_eq!(status, 404);
}

async fn a_public_key_needs_the_client_secret_and_sees_only_the_browser_fields(app: TestApp) {
    let app = &app;
    let customer = app.create_customer("Ana").await;
    let intent = create_setup_intent(app, customer["id"].as_str().unwrap(), "&metadata[k]=v").await;
    let id = intent["id"].as_str().unwrap();
    let secret = intent["client_secret"].as_str().unwrap();
    let public = &app.keys.public_test;
    let get = |query: String| {
        let path = format!("/setup_intents/{id}{query}");
        async move { read(app.request(Method::GET, &path, public).send().await.unwrap()).await }
    };
    let (status, body) = get(String::new()).await;
    assert_eq!(
        (status, error_codes(&body)),
        (400, vec![("client_secret".to_owned(), "parameter_required".to_owned())])
    );
    let (status, body) = get("?client_secret=si_x_secret_wrong".to_owned()).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("client_secret".to_owned(), "parameter_invalid".to_owned())]));
    let (status, seen) = get(format!("?client_secret={secret}")).await;
    assert_eq!(status, 200, "{seen}");
    assert_eq!((seen["id"].as_str(), seen["status"].as_str()), (Some(id), Some("awaiting_payment_method")));
    for hidden in ["customer", "metadata", "description"] {
        assert!(seen.get(hidden).is_none(), "{hidden} is not for browsers: {seen}");
    }
    let body = format!("client_secret={secret}&{}", card_body(SUCCESS_CARD));
    let (status, saved) =
        read(app.form(Method::POST, &format!("/setup_intents/{id}/attach"), public, &body).await).await;
    assert_eq!((status, saved["status"].as_str()), (200, Some("succeeded")), "{saved}");
    let (status, _) = read(app.form(Method::POST, "/setup_intents", public, "customer_id=x").await).await;
    assert_eq!(status, 401, "a public key cannot create");
    let (status, _) = read(app.form(Method::POST, &format!("/setup_intents/{id}/cancel"), public, "").await).await;
    assert_eq!(status, 401, "a public key cannot cancel");
}

async fn saved_methods_are_listed_and_deleted_per_customer(app: TestApp) {
    let app = &app;
    let (customer, first) = customer_with_saved_card(app, "Ana", "off_session").await;
    let customer_id = customer["id"].as_str().unwrap();
    let intent = create_setup_intent(app, customer_id, "").await;
    let (_, second) = attach_card(app, intent["id"].as_str().unwrap(), "5425233430109903").await;
    let second = second["payment_method_id"].as_str().unwrap().to_owned();
    let path = format!("/customers/{customer_id}/payment_methods");
    let (status, methods) = read(app.get(&path).await).await;
    assert_eq!(status, 200, "{methods}");
    assert_eq!(ids(&methods), vec![second.clone(), first.clone()], "newest first");
    let newest = &methods["data"][0];
    assert_eq!((newest["resource"].as_str(), newest["type"].as_str()), (Some("payment_method"), Some("card")));
    assert_eq!(
        newest["details"],
        json!({"brand": "mastercard", "first6": "542523", "last4": "9903", "exp_month": 12, "exp_year": 2035, "funding": "credit"})
    );
    assert_eq!(newest["billing_details"]["name"], "Juan dela Cruz");
    assert_eq!(methods["data"][1]["usage"], "off_session");
    assert!(!methods.to_string().contains("5425233430109903"), "never the number");
    let (_, page) = read(app.get(&format!("{path}?limit=1&after={second}")).await).await;
    assert_eq!((ids(&page), page["has_more"].as_bool()), (vec![first.clone()], Some(false)));

    let (other, other_method) = customer_with_saved_card(app, "Ben", "off_session").await;
    let delete = |customer: String, method: String| async move {
        let path = format!("/customers/{customer}/payment_methods/{method}");
        read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await
    };
    let unknown_body = format!("/customers/{customer_id}/payment_methods/{first}");
    let (status, body) = read(app.form(Method::DELETE, &unknown_body, &app.keys.secret_test, "bogus=1").await).await;
    assert_eq!((status, error_codes(&body)[0].0.as_str()), (400, "bogus"), "an unknown body parameter: {body}");
    let (status, _) = delete(customer_id.to_owned(), other_method.clone()).await;
    assert_eq!(status, 404, "another customer's method is not this customer's");
    let (status, deleted) = delete(customer_id.to_owned(), first.clone()).await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted, json!({"id": first, "resource": "payment_method", "deleted": true}));
    let (status, _) = delete(customer_id.to_owned(), first.clone()).await;
    assert_eq!(status, 404, "deleted once");
    let (_, methods) = read(app.get(&path).await).await;
    assert_eq!(ids(&methods), vec![second]);
    let (_, others) =
        read(app.get(&format!("/customers/{}/payment_methods", other["id"].as_str().unwrap())).await).await;
    assert_eq!(ids(&others), vec![other_method]);
    let (status, _) = read(app.get("/customers/cus_nobody/payment_methods").await).await;
    assert_eq!(status, 404);
    let (status, body) = read(app.get(&format!("{path}?after=pm_unknown")).await).await;
    assert_eq!(status, 400, "{body}");
}

async fn a_saved_card_pays_a_later_intent_of_its_customer(app: TestApp) {
    let (customer, method) = customer_with_saved_card(&app, "Ana", "off_session").await;
    let customer_id = customer["id"].as_str().unwrap();
    let intent = app.create_intent(25_000, &format!("&customer_id={customer_id}")).await;
    let id = intent["id"].as_str().unwrap();
    let (status, paid) =
        app.post(&format!("/payment_intents/{id}/attach"), &format!("payment_method_id={method}")).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    assert_eq!(paid["payment_method_id"], method.as_str(), "the saved method paid");
    assert_eq!(paid["latest_payment"]["payment_method"]["card"]["last4"], "4242");
    assert_eq!(paid["amount_received"], 25_000);

    let (on_session_customer, on_session) = customer_with_saved_card(&app, "Ben", "on_session").await;
    let intent =
        app.create_intent(25_000, &format!("&customer_id={}", on_session_customer["id"].as_str().unwrap())).await;
    let id = intent["id"].as_str().unwrap();
    let body = format!("client_secret={}&payment_method_id={on_session}", intent["client_secret"].as_str().unwrap());
    let (status, paid) =
        read(app.form(Method::POST, &format!("/payment_intents/{id}/attach"), &app.keys.public_test, &body).await)
            .await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "the customer is present: {paid}");
}

async fn a_saved_card_is_refused_where_it_may_not_pay(app: TestApp) {
    let app = &app;
    let (customer, method) = customer_with_saved_card(app, "Ana", "off_session").await;
    let customer_id = customer["id"].as_str().unwrap();
    let (other, _) = customer_with_saved_card(app, "Ben", "off_session").await;
    let (on_session_customer, on_session) = customer_with_saved_card(app, "Cy", "on_session").await;
    let attach = |intent_id: String, body: String| async move {
        app.post(&format!("/payment_intents/{intent_id}/attach"), &body).await
    };
    let refusals = [
        (
            app.create_intent(20_000, &format!("&customer_id={}", other["id"].as_str().unwrap())).await,
            method.clone(),
            "another customer's",
            "resource_not_found",
        ),
        (app.create_intent(20_000, "").await, method.clone(), "an intent without a customer", "resource_not_found"),
        (
            app.create_intent(20_000, &format!("&customer_id={customer_id}")).await,
            "pm_unknown".to_owned(),
            "an unknown method",
            "resource_not_found",
        ),
        (
            app.create_intent(20_000, &format!("&customer_id={}", on_session_customer["id"].as_str().unwrap())).await,
            on_session,
            "an on_session method by secret key",
            "parameter_invalid",
        ),
    ];
    for (intent, method_id, case, code) in refusals {
        let id = intent["id"].as_str().unwrap().to_owned();
        let (status, answer) = attach(id.clone(), format!("payment_method_id={method_id}")).await;
        assert_eq!(status, 400, "{case}: {answer}");
        assert_eq!(error_codes(&answer), vec![("payment_method_id".to_owned(), code.to_owned())], "{case}");
        let (_, after) = read(app.get(&format!("/payment_intents/{id}")).await).await;
        assert_eq!(
            (after["status"].as_str(), &after["latest_payment"]),
            (Some("awaiting_payment_method"), &Value::Null),
            "{case}"
        );
    }
    let intent = app.create_intent(20_000, &format!("&customer_id={customer_id}")).await;
    let id = intent["id"].as_str().unwrap().to_owned();
    let path = format!("/customers/{customer_id}/payment_methods/{method}");
    let (status, _) = read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let (status, answer) = attach(id.clone(), format!("payment_method_id={method}")).await;
    assert_eq!((status, error_codes(&answer)[0].0.as_str()), (400, "payment_method_id"), "a deleted method: {answer}");
    let both = format!("payment_method_id={method}&{}", card_body(SUCCESS_CARD));
    let (status, answer) = attach(id, both).await;
    assert_eq!((status, error_codes(&answer)[0].0.as_str()), (400, "payment_method_id"), "{answer}");
}

async fn setup_intents_and_saved_methods_are_invisible_to_other_accounts_and_modes(app: TestApp) {
    let (customer, method) = customer_with_saved_card(&app, "Ana", "off_session").await;
    let customer_id = customer["id"].as_str().unwrap();
    let intent = create_setup_intent(&app, customer_id, "").await;
    let id = intent["id"].as_str().unwrap();
    for key in [&app.other_account_key, &app.keys.secret_live] {
        for path in [format!("/setup_intents/{id}"), format!("/customers/{customer_id}/payment_methods")] {
            let (status, body) = read(app.request(Method::GET, &path, key).send().await.unwrap()).await;
            assert_eq!(status, 404, "{path}: {body}");
            single_error(&body, "resource_not_found");
        }
        let (status, _) = read(app.form(Method::POST, &format!("/setup_intents/{id}/cancel"), key, "").await).await;
        assert_eq!(status, 404);
        let path = format!("/customers/{customer_id}/payment_methods/{method}");
        let (status, _) = read(app.request(Method::DELETE, &path, key).send().await.unwrap()).await;
        assert_eq!(status, 404);
        let body = format!("customer_id={customer_id}&payment_methods[]=card");
        let (status, answer) = read(app.form(Method::POST, "/setup_intents", key, &body).await).await;
        assert_eq!((status, error_codes(&answer)[0].0.as_str()), (400, "customer_id"), "{answer}");
    }
    let (_, still) = read(app.get(&format!("/setup_intents/{id}")).await).await;
    assert_eq!(still["status"], "awaiting_payment_method");
}

async fn simultaneous_attaches_save_one_card_and_simultaneous_charges_pay_once(app: TestApp) {
    let app = &app;
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let intent = create_setup_intent(app, customer_id, "&usage=off_session").await;
    let id = intent["id"].as_str().unwrap();
    let attaches = (0..10).map(|_| attach_card(app, id, SUCCESS_CARD));
    let outcomes = join_all(attaches).await;
    let saved = outcomes.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(saved, 1, "exactly one attach wins: {outcomes:?}");
    assert!(outcomes.iter().all(|(status, _)| [200, 400, 409].contains(status)), "{outcomes:?}");
    let (_, methods) = read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
    assert_eq!(ids(&methods).len(), 1, "one card saved");
    let succeeded = app.event_types().await.iter().filter(|t| *t == "setup_intent.succeeded").count();
    assert_eq!(succeeded, 1);

    let method = ids(&methods).remove(0);
    let intent = app.create_intent(30_000, &format!("&customer_id={customer_id}")).await;
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    let body = format!("payment_method_id={method}");
    let charges = (0..10).map(|_| app.post(&path, &body));
    let outcomes = join_all(charges).await;
    assert_eq!(outcomes.iter().filter(|(status, _)| *status == 200).count(), 1, "{outcomes:?}");
    let paid = app.event_types().await.iter().filter(|t| *t == "payment.paid").count();
    assert_eq!(paid, 1, "the saved card is charged once");
}

async fn deleting_a_customer_removes_its_saved_cards_and_stops_its_setups(app: TestApp) {
    let (customer, method) = customer_with_saved_card(&app, "Ana", "off_session").await;
    let customer_id = customer["id"].as_str().unwrap();
    let intent = app.create_intent(20_000, &format!("&customer_id={customer_id}")).await;
    let open_setup = create_setup_intent(&app, customer_id, "").await;
    let authenticating = create_setup_intent(&app, customer_id, "").await;
    let authenticating_id = authenticating["id"].as_str().unwrap();
    let (_, waiting) = attach_card(&app, authenticating_id, "4000000000003220").await;
    let page = waiting["next_action"]["redirect_url"].as_str().unwrap().to_owned();
    let processing = create_setup_intent(&app, customer_id, "").await;
    let processing_id = processing["id"].as_str().unwrap();
    let (status, _) = attach_card(&app, processing_id, "4000000000003337").await;
    assert_eq!(status, 200);
    let path = format!("/customers/{customer_id}");
    let (status, _) = read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let attach = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    let (status, answer) = app.post(&attach, &format!("payment_method_id={method}")).await;
    assert_eq!((status, error_codes(&answer)[0].0.as_str()), (400, "payment_method_id"), "{answer}");
    let (status, answer) = attach_card(&app, open_setup["id"].as_str().unwrap(), SUCCESS_CARD).await;
    assert_eq!(status, 400, "{answer}");
    assert!(single_error(&answer, "resource_invalid_state").contains("deleted"), "{answer}");
    assert_eq!(decide(&page, "authorize").await.status().as_u16(), 303);
    app.advance_and_run_due_actions(5).await;
    for id in [authenticating_id, processing_id] {
        let (_, after) = read(app.get(&format!("/setup_intents/{id}")).await).await;
        assert_eq!((after["status"].as_str(), &after["payment_method_id"]), (Some("canceled"), &Value::Null), "{id}");
    }
    let succeeded = app.event_types().await.iter().filter(|t| *t == "setup_intent.succeeded").count();
    assert_eq!(succeeded, 1, "only the card saved before the deletion");
}
