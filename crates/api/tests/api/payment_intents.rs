//! Payment intents over HTTP: creation rules, every test card, capture and cancel from every status,
//! public-key access, background expiries with a moved clock, and concurrent captures and attaches.

use crate::helpers::{error_codes, read, single_error, TestApp};
use futures_util::future::join_all;
use payments_domain::payment_intent::{HOLD_SECONDS, REDIRECT_SECONDS};
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    creating_an_intent_returns_every_field,
    amount_bounds_and_types_are_enforced,
    descriptor_currency_and_methods_are_validated,
    every_test_card_has_its_outcome,
    expired_invalid_and_disallowed_cards_are_refused,
    a_manual_hold_is_captured_in_part_and_never_above_the_hold,
    capture_and_cancel_from_every_wrong_status_are_refused,
    a_public_key_sees_only_browser_fields_with_the_right_client_secret,
    an_intent_can_be_updated_only_while_awaiting_a_payment_method,
    an_unused_hold_is_released_after_seven_days,
    an_abandoned_redirect_expires_after_thirty_minutes,
    the_processing_card_succeeds_in_the_background,
    twenty_simultaneous_captures_take_the_money_once,
    twenty_simultaneous_attaches_charge_once,
    live_mode_without_a_processor_is_unavailable,
    an_intent_embeds_its_customer,
);

const INTENT_FIELDS: [&str; 23] = [
    "id",
    "resource",
    "amount",
    "amount_received",
    "amount_capturable",
    "client_secret",
    "currency",
    "description",
    "last_payment_error",
    "latest_payment",
    "livemode",
    "metadata",
    "next_action",
    "payment_method_id",
    "payment_methods",
    "payment_method_options",
    "statement_descriptor",
    "status",
    "return_url",
    "capture_before_at",
    "customer",
    "created_at",
    "updated_at",
];

fn id(value: &Value) -> String {
    value["id"].as_str().expect("an id").to_owned()
}

async fn creating_an_intent_returns_every_field(app: TestApp) {
    let body = "amount=12050&currency=PHP&payment_methods[]=card&payment_methods[]=gcash&description=Order+42\
                &statement_descriptor=ACME+STORE&metadata[order]=42&payment_method_options[card][capture_type]=manual\
                &payment_method_options[card][allowed_funding][]=credit&return_url=https%3A%2F%2Fshop.example%2Fdone";
    let (status, intent) = app.post("/payment_intents", body).await;
    assert_eq!(status, 200, "{intent}");
    for field in INTENT_FIELDS {
        assert!(intent.get(field).is_some(), "{field} missing from {intent}");
    }
    let intent_id = id(&intent);
    assert!(intent_id.starts_with("pi_") && intent_id.len() == 35, "{intent_id}");
    assert!(intent["client_secret"].as_str().unwrap().starts_with(&format!("{intent_id}_secret_")));
    assert_eq!(intent["status"], "awaiting_payment_method");
    assert_eq!((intent["amount"].as_i64(), intent["amount_received"].as_i64()), (Some(12_050), Some(0)));
    assert_eq!(intent["payment_methods"], json!(["card", "gcash"]));
    assert_eq!(
        intent["payment_method_options"],
        json!({"card": {"capture_type": "manual", "allowed_bins": [], "allowed_funding": ["credit"]}})
    );
    assert_eq!(intent["metadata"], json!({"order": "42"}));
    assert_eq!(intent["statement_descriptor"], "ACME STORE");
    let (status, fetched) = read(app.get(&format!("/payment_intents/{intent_id}")).await).await;
    assert_eq!((status, fetched), (200, intent));
}

async fn amount_bounds_and_types_are_enforced(app: TestApp) {
    let create = |amount: Value| json!({"amount": amount, "currency": "PHP", "payment_methods": ["card"]});
    let cases = [
        (json!(1999), Some("parameter_below_minimum")),
        (json!(2000), None),
        (json!(5_999_999_999_i64), None),
        (json!(6_000_000_000_i64), Some("parameter_above_maximum")),
        (json!(-2500), Some("parameter_type_invalid")),
        (json!(2500.5), Some("parameter_type_invalid")),
        (json!("abc"), Some("parameter_type_invalid")),
        // JSON has numbers: digits in a string are text, as the document states (a form's are read).
        (json!("2500"), Some("parameter_type_invalid")),
    ];
    for (amount, expected) in cases {
        let (status, body) =
            read(app.json(Method::POST, "/payment_intents", &app.keys.secret_test, &create(amount.clone())).await)
                .await;
        match expected {
            None => assert_eq!(status, 200, "{amount}: {body}"),
            Some(code) => {
                assert_eq!(status, 400, "{amount}: {body}");
                assert_eq!(error_codes(&body), vec![("amount".to_owned(), code.to_owned())], "{amount}");
            }
        }
    }
    let (status, body) = app.post("/payment_intents", "amount=1999&currency=PHP&payment_methods[]=card").await;
    assert_eq!((status, error_codes(&body)[0].1.as_str()), (400, "parameter_below_minimum"));
}

async fn descriptor_currency_and_methods_are_validated(app: TestApp) {
    let base = "amount=5000&payment_methods[]=card";
    let cases = [
        (
            format!("{base}&currency=PHP&statement_descriptor={}", "X".repeat(23)),
            "statement_descriptor",
            "parameter_invalid",
        ),
        (format!("{base}&currency=USD"), "currency", "parameter_invalid"),
        ("amount=5000&currency=PHP&payment_methods[]=paypal".to_owned(), "payment_methods", "parameter_invalid"),
        ("amount=5000&currency=PHP".to_owned(), "payment_methods", "parameter_required"),
        (base.to_owned(), "currency", "parameter_required"),
        (
            format!("{base}&currency=PHP&payment_method_options[card][capture_type]=later"),
            "payment_method_options[card][capture_type]",
            "parameter_invalid",
        ),
        (format!("{base}&currency=PHP&return_url=javascript:alert(1)"), "return_url", "parameter_invalid"),
        (format!("{base}&currency=PHP&customer_id=cus_unknown"), "customer_id", "resource_not_found"),
    ];
    for (body, parameter, code) in cases {
        let (status, answer) = app.post("/payment_intents", &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(error_codes(&answer), vec![(parameter.to_owned(), code.to_owned())], "{body}");
    }
    let (status, _) =
        app.post("/payment_intents", &format!("{base}&currency=PHP&statement_descriptor={}", "X".repeat(22))).await;
    assert_eq!(status, 200);
}

async fn every_test_card_has_its_outcome(app: TestApp) {
    let successes = [
        "4242424242424242",
        "4701322211111234",
        "5425233430109903",
        "5200828282828210",
        "4000000760000002",
        "4311780000241409",
    ];
    for number in successes {
        let intent = app.create_intent(10_000, "").await;
        let (status, paid) = app.attach_card(&id(&intent), number).await;
        assert_eq!(status, 200, "{number}: {paid}");
        assert_eq!(paid["status"], "succeeded", "{number}");
        assert_eq!(paid["amount_received"], 10_000);
        let payment = &paid["latest_payment"];
        assert_eq!((payment["status"].as_str(), payment["amount"].as_i64()), (Some("paid"), Some(10_000)), "{number}");
        assert_eq!(payment["payment_method"]["card"]["last4"], &number[12..]);
        assert_eq!(payment["fee"].as_i64(), Some(10_000 * 350 / 10_000 + 1_500));
        assert_eq!(payment["net_amount"].as_i64(), Some(10_000 - 1_850));
    }
    let declines = [
        ("4000000000001000", "blocked"),
        ("4005550000000019", "generic_decline"),
        ("4503300000000008", "funds_insufficient"),
        ("4205260000000005", "cvc_incorrect"),
        ("4001270000000000", "processing_error"),
        ("4012000033330026", "system_error"),
        ("4000000000000077", "generic_decline"),
    ];
    for (number, code) in declines {
        let intent = app.create_intent(10_000, "").await;
        let (status, body) = app.attach_card(&id(&intent), number).await;
        assert_eq!(status, 400, "{number}: {body}");
        single_error(&body, code);
        let (_, after) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
        assert_eq!(after["status"], "awaiting_payment_method", "{number}");
        assert_eq!(after["last_payment_error"]["code"], code, "{number}");
        assert_eq!(after["latest_payment"]["status"], "failed", "{number}");
    }
    let intent = app.create_intent(10_000, "").await;
    let (status, challenged) = app.attach_card(&id(&intent), "4000000000003220").await;
    assert_eq!((status, challenged["status"].as_str()), (200, Some("awaiting_next_action")));
    assert_eq!(challenged["next_action"]["type"], "redirect");
    assert!(challenged["next_action"]["redirect_url"].as_str().unwrap().contains("/test/authorize/"));
    let intent = app.create_intent(10_000, "").await;
    let (status, processing) = app.attach_card(&id(&intent), "4000000000003337").await;
    assert_eq!((status, processing["status"].as_str()), (200, Some("processing")));
}

async fn expired_invalid_and_disallowed_cards_are_refused(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let path = format!("/payment_intents/{}/attach", id(&intent));
    let expired =
        "payment_method[type]=card&payment_method[card][number]=4242424242424242&payment_method[card][exp_month]=1\
                   &payment_method[card][exp_year]=2020&payment_method[card][cvc]=123";
    let (status, body) = app.post(&path, expired).await;
    assert_eq!(status, 400);
    single_error(&body, "card_expired");
    let (status, body) = app.attach_card(&id(&intent), "4242424242424241").await;
    assert_eq!(status, 400);
    assert_eq!(error_codes(&body), vec![("payment_method[card][number]".to_owned(), "parameter_invalid".to_owned())]);
    let (status, body) = app.post(&path, "payment_method[type]=card").await;
    assert_eq!(
        (status, error_codes(&body)),
        (400, vec![("payment_method[card]".to_owned(), "parameter_required".to_owned())])
    );
    let (status, body) = app.post(&path, "").await;
    assert_eq!(
        (status, error_codes(&body)),
        (400, vec![("payment_method".to_owned(), "parameter_required".to_owned())])
    );

    let debit_only = app.create_intent(10_000, "&payment_method_options[card][allowed_funding][]=debit").await;
    let (status, body) = app.attach_card(&id(&debit_only), "4242424242424242").await;
    assert_eq!(status, 400);
    single_error(&body, "card_not_allowed");
    let (status, _) = app.attach_card(&id(&debit_only), "4701322211111234").await;
    assert_eq!(status, 200, "a debit card passes");
    let bins = app.create_intent(10_000, "&payment_method_options[card][allowed_bins][]=542523").await;
    let (status, body) = app.attach_card(&id(&bins), "4242424242424242").await;
    assert_eq!(status, 400);
    single_error(&body, "card_not_allowed");
    let card_only = {
        let (_, intent) = app.post("/payment_intents", "amount=5000&currency=PHP&payment_methods[]=card").await;
        intent
    };
    let (status, body) =
        app.post(&format!("/payment_intents/{}/attach", id(&card_only)), "payment_method[type]=gcash").await;
    assert_eq!(
        (status, error_codes(&body)),
        (400, vec![("payment_method[type]".to_owned(), "parameter_invalid".to_owned())])
    );
}

async fn a_manual_hold_is_captured_in_part_and_never_above_the_hold(app: TestApp) {
    let intent = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
    let (status, held) = app.attach_card(&id(&intent), "4242424242424242").await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(held["status"], "awaiting_capture");
    assert_eq!((held["amount_capturable"].as_i64(), held["amount_received"].as_i64()), (Some(10_000), Some(0)));
    let deadline = held["capture_before_at"].as_i64().unwrap();
    assert_eq!(deadline - held["updated_at"].as_i64().unwrap(), HOLD_SECONDS);
    let capture = format!("/payment_intents/{}/capture", id(&intent));
    let (status, body) = app.post(&capture, "amount=10001").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("amount".to_owned(), "parameter_above_maximum".to_owned())]));
    let (status, body) = app.post(&capture, "amount=1999").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("amount".to_owned(), "parameter_below_minimum".to_owned())]));
    let (status, captured) = app.post(&capture, "amount=6000").await;
    assert_eq!(status, 200, "{captured}");
    assert_eq!(captured["status"], "succeeded");
    assert_eq!((captured["amount_received"].as_i64(), captured["amount_capturable"].as_i64()), (Some(6_000), Some(0)));
    assert_eq!(captured["latest_payment"]["amount"], 6_000);
    assert_eq!(
        app.event_types().await,
        vec!["payment_intent.awaiting_capture", "payment_intent.succeeded", "payment.paid"]
    );
}

async fn capture_and_cancel_from_every_wrong_status_are_refused(app: TestApp) {
    let awaiting_method = app.create_intent(10_000, "").await;
    let succeeded = app.create_intent(10_000, "").await;
    app.attach_card(&id(&succeeded), "4242424242424242").await;
    let next_action = app.create_intent(10_000, "").await;
    app.attach_card(&id(&next_action), "4000000000003220").await;
    let processing = app.create_intent(10_000, "").await;
    app.attach_card(&id(&processing), "4000000000003337").await;
    let canceled = app.create_intent(10_000, "").await;
    let (status, _) = app.post(&format!("/payment_intents/{}/cancel", id(&canceled)), "").await;
    assert_eq!(status, 200);
    let refusals = [
        (&awaiting_method, "capture", "awaiting_payment_method"),
        (&succeeded, "capture", "succeeded"),
        (&succeeded, "cancel", "succeeded"),
        (&next_action, "capture", "awaiting_next_action"),
        (&next_action, "cancel", "awaiting_next_action"),
        (&processing, "capture", "processing"),
        (&processing, "cancel", "processing"),
        (&canceled, "capture", "canceled"),
        (&canceled, "cancel", "canceled"),
    ];
    for (intent, action, status_name) in refusals {
        let body = if action == "capture" { "amount=2000" } else { "" };
        let (status, answer) = app.post(&format!("/payment_intents/{}/{action}", id(intent)), body).await;
        assert_eq!(status, 400, "{action} from {status_name}: {answer}");
        let detail = single_error(&answer, "resource_invalid_state");
        assert!(detail.contains(status_name), "{action} from {status_name}: {detail}");
    }
    let (status, _) = app.post(&format!("/payment_intents/{}/cancel", id(&awaiting_method)), "").await;
    assert_eq!(status, 200, "cancel is allowed while awaiting a payment method");
}

async fn a_public_key_sees_only_browser_fields_with_the_right_client_secret(app: TestApp) {
    let intent = app.create_intent(10_000, "&metadata[order]=7&description=Secret+order").await;
    let secret = intent["client_secret"].as_str().unwrap();
    let path = format!("/payment_intents/{}", id(&intent));
    let public = |query: String| app.request(Method::GET, &format!("{path}{query}"), &app.keys.public_test).send();
    let (status, seen) = read(public(format!("?client_secret={secret}")).await.unwrap()).await;
    assert_eq!(status, 200, "{seen}");
    let mut keys: Vec<&str> = seen.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut expected = vec![
        "amount",
        "client_secret",
        "currency",
        "id",
        "last_payment_error",
        "livemode",
        "next_action",
        "payment_method_options",
        "payment_methods",
        "resource",
        "return_url",
        "status",
    ];
    expected.sort_unstable();
    assert_eq!(keys, expected);
    let (status, body) = read(public("?client_secret=pi_wrong_secret_x".into()).await.unwrap()).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("client_secret".to_owned(), "parameter_invalid".to_owned())]));
    let (status, body) = read(public(String::new()).await.unwrap()).await;
    assert_eq!(
        (status, error_codes(&body)),
        (400, vec![("client_secret".to_owned(), "parameter_required".to_owned())])
    );
    let (status, _) =
        read(app.form(Method::POST, "/payment_intents", &app.keys.public_test, "amount=5000").await).await;
    assert_eq!(status, 401, "a public key cannot create");
    let (status, _) = read(app.form(Method::POST, &format!("{path}/cancel"), &app.keys.public_test, "").await).await;
    assert_eq!(status, 401, "a public key cannot cancel");
    let attach = format!(
        "client_secret={secret}&payment_method[type]=card&payment_method[card][number]=4242424242424242\
         &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123"
    );
    let (status, paid) =
        read(app.form(Method::POST, &format!("{path}/attach"), &app.keys.public_test, &attach).await).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    assert!(paid.get("latest_payment").is_none() && paid.get("metadata").is_none(), "{paid}");
}

async fn an_intent_can_be_updated_only_while_awaiting_a_payment_method(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let path = format!("/payment_intents/{}", id(&intent));
    let (status, updated) = read(
        app.form(Method::PUT, &path, &app.keys.secret_test, "amount=15000&description=Bigger&metadata[k]=v").await,
    )
    .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!((updated["amount"].as_i64(), updated["description"].as_str()), (Some(15_000), Some("Bigger")));
    app.attach_card(&id(&intent), "4242424242424242").await;
    let (status, body) = read(app.form(Method::PUT, &path, &app.keys.secret_test, "amount=20000").await).await;
    assert_eq!(status, 400);
    assert!(single_error(&body, "resource_invalid_state").contains("succeeded"));
    let (status, body) = read(app.form(Method::PUT, &path, &app.keys.secret_test, "currency=PHP").await).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("currency".to_owned(), "parameter_invalid".to_owned())]));
}

async fn an_unused_hold_is_released_after_seven_days(app: TestApp) {
    let intent = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
    app.attach_card(&id(&intent), "4242424242424242").await;
    // The two accounts' daily payout schedules fall due meanwhile, each run once (with nothing to pay).
    assert_eq!(app.advance_and_run_due_actions(HOLD_SECONDS - 60).await, 2, "the hold still runs");
    assert_eq!(app.advance_and_run_due_actions(120).await, 1);
    let (_, released) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    assert_eq!((released["status"].as_str(), released["amount_capturable"].as_i64()), (Some("canceled"), Some(0)));
    let (status, body) = app.post(&format!("/payment_intents/{}/capture", id(&intent)), "amount=5000").await;
    assert_eq!(status, 400);
    single_error(&body, "resource_invalid_state");
    assert_eq!(app.event_types().await.last().map(String::as_str), Some("payment_intent.canceled"));
}

async fn an_abandoned_redirect_expires_after_thirty_minutes(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let (_, challenged) = app.attach_card(&id(&intent), "4000000000003220").await;
    let page = challenged["next_action"]["redirect_url"].as_str().unwrap().to_owned();
    // The expiry, and the two accounts' daily payouts when the half hour passes midnight in Manila
    // (16:00 UTC): a test run then must not fail for the time of day.
    let ran = app.advance_and_run_due_actions(REDIRECT_SECONDS + 1).await;
    assert!(ran == 1 || ran == 3, "{ran} due actions");
    let (_, expired) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    assert_eq!(expired["status"], "awaiting_payment_method");
    assert_eq!(expired["last_payment_error"]["code"], "authentication_expired");
    assert_eq!(expired["latest_payment"]["status"], "failed");
    let response = app.client.get(&page).send().await.unwrap();
    assert_eq!(response.status(), 404, "an expired link cannot be used");
}

async fn the_processing_card_succeeds_in_the_background(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    app.attach_card(&id(&intent), "4000000000003337").await;
    // The advance finishes it, unless the background job already did by real time (the card takes
    // three seconds, which a loaded machine can spend between the attach and the advance): once.
    let ran = app.advance_and_run_due_actions(5).await;
    assert!(ran <= 1, "{ran} due actions ran");
    let (_, done) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    assert_eq!((done["status"].as_str(), done["latest_payment"]["status"].as_str()), (Some("succeeded"), Some("paid")));
    assert_eq!(app.event_types().await, vec!["payment_intent.succeeded", "payment.paid"]);
}

async fn twenty_simultaneous_captures_take_the_money_once(app: TestApp) {
    let intent = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
    app.attach_card(&id(&intent), "4242424242424242").await;
    let path = format!("/payment_intents/{}/capture", id(&intent));
    let captures = (0..20).map(|_| app.post(&path, "amount=10000"));
    let outcomes = join_all(captures).await;
    let succeeded = outcomes.iter().filter(|(status, _)| *status == 200).count();
    for (status, body) in &outcomes {
        assert!(matches!(status, 200 | 400 | 409), "{status}: {body}");
    }
    assert_eq!(succeeded, 1, "exactly one capture wins: {outcomes:?}");
    let types = app.event_types().await;
    assert_eq!(types.iter().filter(|t| *t == "payment.paid").count(), 1, "{types:?}");
    assert_eq!(types.iter().filter(|t| *t == "payment_intent.succeeded").count(), 1, "{types:?}");
}

/// Each attach asks the processor, then records its outcome only if no other attach did first: on
/// PostgreSQL the payment, the intent's update, the events and a webhook's deliveries go out as one
/// statement, so a loser writes none of them.
async fn twenty_simultaneous_attaches_charge_once(app: TestApp) {
    let hook = "url=http://127.0.0.1:1/hook&events[]=payment.paid&events[]=payment_intent.succeeded";
    assert_eq!(app.post("/webhooks", hook).await.0, 200);
    let intent = app.create_intent(10_000, "").await;
    let intent_id = id(&intent);
    let attaches = (0..20).map(|_| app.attach_card(&intent_id, "4242424242424242"));
    let outcomes = join_all(attaches).await;
    let winners: Vec<&Value> = outcomes.iter().filter(|(status, _)| *status == 200).map(|(_, body)| body).collect();
    assert_eq!(winners.len(), 1, "exactly one attach wins: {outcomes:?}");
    for (status, body) in outcomes.iter().filter(|(status, _)| *status != 200) {
        assert!(matches!(status, 400 | 409), "{status}: {body}");
        let codes: Vec<String> = error_codes(body).into_iter().map(|(_, code)| code).collect();
        assert!(codes == ["resource_conflict"] || codes == ["resource_invalid_state"], "{status}: {body}");
    }
    let (_, stored) = read(app.get(&format!("/payment_intents/{}", id(&intent))).await).await;
    assert_eq!((stored["status"].as_str(), stored["amount_received"].as_i64()), (Some("succeeded"), Some(10_000)));
    assert_eq!(stored["latest_payment"]["id"], winners[0]["latest_payment"]["id"], "the winner's payment is the one");
    let types = app.event_types().await;
    assert_eq!(types, ["payment_intent.succeeded", "payment.paid"], "one change's events, once");
}

async fn live_mode_without_a_processor_is_unavailable(app: TestApp) {
    let body = "amount=5000&currency=PHP&payment_methods[]=card";
    let (status, intent) = read(app.form(Method::POST, "/payment_intents", &app.keys.secret_live, body).await).await;
    assert_eq!((status, intent["livemode"].as_bool()), (200, Some(true)));
    let attach =
        "payment_method[type]=card&payment_method[card][number]=4242424242424242&payment_method[card][exp_month]=12\
                  &payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";
    let path = format!("/payment_intents/{}/attach", id(&intent));
    let (status, body) = read(app.form(Method::POST, &path, &app.keys.secret_live, attach).await).await;
    assert_eq!(status, 503);
    single_error(&body, "service_unavailable");
}

async fn an_intent_embeds_its_customer(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let intent = app.create_intent(10_000, &format!("&customer_id={}", id(&customer))).await;
    assert_eq!(intent["customer"], customer);
    let (_, paid) = app.attach_card(&id(&intent), "4242424242424242").await;
    assert_eq!(paid["latest_payment"]["customer"], customer);
}

/// Two instances share one PostgreSQL (SQLite serves a single instance).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_running_due_actions_release_each_hold_once() {
    let app = crate::helpers::spawn_app(payments_adapters::db::Backend::Postgres).await;
    let mut settings = payments_api::settings::Settings::load().unwrap();
    settings.database.url = app.database.url().to_owned();
    let settings = settings.validate().unwrap();
    let other_instance = tokio::task::spawn_blocking({
        let clock = app.clock.clone();
        move || payments_api::state::Services::connect(&settings, clock).unwrap()
    })
    .await
    .unwrap();
    let holds = 12;
    for _ in 0..holds {
        let intent = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
        app.attach_card(&id(&intent), "4242424242424242").await;
    }
    app.clock.advance(HOLD_SECONDS + 1);
    let runs = [app.services.due_work.clone(), other_instance.due_work.clone()]
        .map(|due_work| tokio::task::spawn_blocking(move || due_work.run(1_000).unwrap()));
    let moved: usize = join_all(runs).await.into_iter().map(Result::unwrap).sum();
    // So is each of the two accounts' daily payout schedules, which fell due meanwhile.
    assert_eq!(moved, holds + 2, "each hold is released by exactly one instance");
    let canceled = app.event_types().await.iter().filter(|t| *t == "payment_intent.canceled").count();
    assert_eq!(canceled, holds, "one event per released hold");
}
