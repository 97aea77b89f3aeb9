//! Live payments over HTTP through the connector port, with the simulated processor behind it
//! (`live_processor.connector = "simulated"`): a card's token is charged once, holds are captured
//! in part and released at the processor, a decline is a failed payment, a processor that cannot
//! be reached changes nothing, an answer lost after the processor acted is settled by the janitor
//! exactly once, concurrent attaches authorize once, a card number is refused, refunds go to
//! the processor, held against the payment until it answers, never more than the payment, and a
//! 3-D Secure payment settles when the customer comes back through the service's return page, or
//! is released at the processor when the customer never finishes.

use crate::helpers::{read, single_error, spawn_app_with, TestApp};
use futures_util::future::join_all;
use payments_adapters::db::Backend;
use payments_adapters::processor::{Fault, SimulatedConnector};
use payments_api::settings::LiveConnector;
use payments_application::ports::connector::CaptureMethod;
use payments_domain::ids::PaymentId;
use payments_domain::payment_method::{CardInput, CardNumber, Cvc};
use payments_domain::pending_authorization::REDIRECT_SECONDS;
use reqwest::Method;
use serde_json::Value;
use std::sync::Arc;

on_both_backends_unstarted!(
    a_live_card_token_is_charged_once_with_the_processors_fee,
    a_live_hold_is_captured_in_part_or_released_at_the_processor,
    a_live_decline_is_a_failed_payment,
    a_processor_that_cannot_be_reached_changes_nothing,
    an_answer_lost_after_the_processor_acted_is_settled_by_the_janitor_once,
    concurrent_live_attaches_authorize_once,
    live_refunds_go_to_the_processor_and_never_exceed_the_payment,
    a_refund_the_processor_cannot_take_changes_nothing,
    a_lost_refund_answer_is_settled_by_the_janitor_once,
    a_3d_secure_payment_settles_when_the_customer_comes_back_through_the_service,
    an_authentication_left_unfinished_is_released_at_the_processor_unless_it_paid,
    a_request_lost_before_the_processor_is_given_back_only_when_it_cannot_land,
);

async fn live_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, |settings| settings.live_processor.connector = LiveConnector::Simulated).await
}

fn processor(app: &TestApp) -> Arc<SimulatedConnector> {
    app.services.simulated_processor.clone().expect("the simulated live processor")
}

/// The processor's token for a test card, as the browser gets it from the processor.
fn token(app: &TestApp, number: &str) -> String {
    let card = CardInput {
        number: CardNumber::new(number).unwrap(),
        exp_month: 12,
        exp_year: 2035,
        cvc: Cvc::new("123").unwrap(),
    };
    processor(app).tokenize(&card)
}

async fn live(app: &TestApp, method: Method, path: &str, body: &str) -> (u16, Value) {
    read(app.form(method, path, &app.keys.secret_live, body).await).await
}

async fn live_intent(app: &TestApp, amount: i64, extra: &str) -> String {
    let body = format!("amount={amount}&currency=PHP&payment_methods[]=card{extra}");
    let (status, intent) = live(app, Method::POST, "/payment_intents", &body).await;
    assert_eq!((status, intent["livemode"].as_bool()), (200, Some(true)), "{intent}");
    intent["id"].as_str().unwrap().to_owned()
}

fn with_token(token: &str) -> String {
    format!("payment_method[type]=card&payment_method[card][token]={token}")
}

async fn attach_token(app: &TestApp, intent: &str, token: &str) -> (u16, Value) {
    live(app, Method::POST, &format!("/payment_intents/{intent}/attach"), &with_token(token)).await
}

async fn intent_status(app: &TestApp, intent: &str) -> Value {
    let (status, body) = live(app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn a_live_card_token_is_charged_once_with_the_processors_fee(backend: Backend) {
    let app = live_app(backend).await;
    let intent = live_intent(&app, 10_000, "").await;

    let raw = "payment_method[type]=card&payment_method[card][number]=4242424242424242\
               &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";
    let (status, refused) = live(&app, Method::POST, &format!("/payment_intents/{intent}/attach"), raw).await;
    assert_eq!(status, 400, "{refused}");
    let detail = single_error(&refused, "parameter_invalid");
    assert!(detail.contains("never reach this service"), "{detail}");
    assert_eq!(intent_status(&app, &intent).await["status"], "awaiting_payment_method");
    assert_eq!(processor(&app).charges(), 0);

    let both = format!("{}&payment_method[card][cvc]=123", with_token("tok_sim_1"));
    let (status, refused) = live(&app, Method::POST, &format!("/payment_intents/{intent}/attach"), &both).await;
    assert_eq!(status, 400, "{refused}");
    assert!(single_error(&refused, "parameter_invalid").contains("not both"));
    // Details sent empty are absent, as the document says: the token alone pays.
    let with_empty_details = format!(
        "{}&payment_method[card][cvc]=&payment_method[card][exp_month]=",
        with_token(&token(&app, "4242424242424242"))
    );
    let (status, paid) = live(&app, Method::POST, &format!("/payment_intents/{intent}/attach"), &with_empty_details).await;
    assert_eq!(status, 200, "{paid}");
    assert_eq!((paid["status"].as_str(), paid["amount_received"].as_i64()), (Some("succeeded"), Some(10_000)));
    let payment = &paid["latest_payment"];
    // The simulated processor takes the card fee of the settings: 3.5 % + ₱15.
    assert_eq!((payment["amount"].as_i64(), payment["fee"].as_i64()), (Some(10_000), Some(1_850)), "{payment}");
    assert_eq!(payment["net_amount"].as_i64(), Some(8_150));
    assert_eq!(payment["payment_method"]["card"]["last4"], "4242", "the processor tells the card: {payment}");
    assert_eq!(processor(&app).charges(), 1);

    let (status, again) = attach_token(&app, &intent, &token(&app, "4242424242424242")).await;
    assert_eq!(status, 400, "{again}");
    single_error(&again, "resource_invalid_state");
    assert_eq!(processor(&app).charges(), 1, "a paid intent asks the processor nothing");

    let (_, events) = live(&app, Method::GET, "/events?limit=100", "").await;
    let types: Vec<&str> = events["data"].as_array().unwrap().iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types.iter().filter(|t| **t == "payment_intent.succeeded").count(), 1, "{types:?}");
    assert_eq!(types.iter().filter(|t| **t == "payment.paid").count(), 1, "{types:?}");

    let (status, test_mode) = app.post(&format!("/payment_intents/{}/attach", app.create_intent(5_000, "").await["id"].as_str().unwrap()), &with_token("tok_sim_1")).await;
    assert_eq!(status, 400, "a processor's token pays in live mode only: {test_mode}");
    single_error(&test_mode, "parameter_invalid");
}

async fn a_live_hold_is_captured_in_part_or_released_at_the_processor(backend: Backend) {
    let app = live_app(backend).await;
    let manual = "&payment_method_options[card][capture_type]=manual";
    let intent = live_intent(&app, 10_000, manual).await;
    let (status, held) = attach_token(&app, &intent, &token(&app, "4242424242424242")).await;
    assert_eq!((status, held["status"].as_str()), (200, Some("awaiting_capture")), "{held}");
    assert_eq!(held["amount_capturable"].as_i64(), Some(10_000));

    let capture = format!("/payment_intents/{intent}/capture");
    let (status, above) = live(&app, Method::POST, &capture, "amount=12000").await;
    assert_eq!(status, 400, "{above}");
    single_error(&above, "parameter_above_maximum");
    assert_eq!(intent_status(&app, &intent).await["status"], "awaiting_capture");

    let (status, captured) = live(&app, Method::POST, &capture, "amount=6000").await;
    assert_eq!(status, 200, "{captured}");
    assert_eq!((captured["status"].as_str(), captured["amount_received"].as_i64()), (Some("succeeded"), Some(6_000)));
    let payment = &captured["latest_payment"];
    assert_eq!((payment["amount"].as_i64(), payment["fee"].as_i64()), (Some(6_000), Some(1_710)), "{payment}");
    let (status, again) = live(&app, Method::POST, &capture, "amount=1000").await;
    assert_eq!(status, 400, "{again}");

    let released = live_intent(&app, 10_000, manual).await;
    let (status, _) = attach_token(&app, &released, &token(&app, "4242424242424242")).await;
    assert_eq!(status, 200);
    let (status, canceled) = live(&app, Method::POST, &format!("/payment_intents/{released}/cancel"), "").await;
    assert_eq!((status, canceled["status"].as_str()), (200, Some("canceled")), "{canceled}");
    let (status, late) = live(&app, Method::POST, &format!("/payment_intents/{released}/capture"), "").await;
    assert_eq!(status, 400, "a released hold is not captured: {late}");
}

async fn a_live_decline_is_a_failed_payment(backend: Backend) {
    let app = live_app(backend).await;
    let intent = live_intent(&app, 10_000, "").await;
    let (status, declined) = attach_token(&app, &intent, &token(&app, "4005550000000019")).await;
    assert_eq!(status, 400, "{declined}");
    single_error(&declined, "generic_decline");
    let after = intent_status(&app, &intent).await;
    assert_eq!(after["status"], "awaiting_payment_method");
    assert_eq!(after["last_payment_error"]["code"], "generic_decline");
    assert_eq!(after["latest_payment"]["status"], "failed");
    assert_eq!(processor(&app).charges(), 0);
    let (status, paid) = attach_token(&app, &intent, &token(&app, "4242424242424242")).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "another card may pay: {paid}");
}

async fn a_processor_that_cannot_be_reached_changes_nothing(backend: Backend) {
    let app = live_app(backend).await;
    let intent = live_intent(&app, 10_000, "").await;
    let card = token(&app, "4242424242424242");
    let path = format!("/payment_intents/{intent}/attach");
    let attach = || {
        app.request(Method::POST, &path, &app.keys.secret_live)
            .header("Idempotency-Key", "attach-once")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(with_token(&card))
            .send()
    };
    processor(&app).fail_next(Fault::Unreachable);
    let response = attach().await.unwrap();
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    let (_, body) = read(response).await;
    single_error(&body, "service_unavailable");
    let unchanged = intent_status(&app, &intent).await;
    assert_eq!((unchanged["status"].as_str(), &unchanged["latest_payment"]), (Some("awaiting_payment_method"), &Value::Null));
    assert_eq!(processor(&app).charges(), 0);

    let (status, paid) = read(attach().await.unwrap()).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    let (status, replayed) = read(attach().await.unwrap()).await;
    assert_eq!((status, &replayed), (200, &paid), "the same key replays");
    assert_eq!(processor(&app).charges(), 1);
}

async fn an_answer_lost_after_the_processor_acted_is_settled_by_the_janitor_once(backend: Backend) {
    let app = live_app(backend).await;
    let intent = live_intent(&app, 10_000, "").await;
    processor(&app).fail_next(Fault::DropAnswer);
    let (status, processing) = attach_token(&app, &intent, &token(&app, "4242424242424242")).await;
    assert_eq!((status, processing["status"].as_str()), (200, Some("processing")), "{processing}");
    assert_eq!(processor(&app).charges(), 1, "the processor acted");

    let (status, busy) = attach_token(&app, &intent, &token(&app, "4242424242424242")).await;
    assert_eq!(status, 400, "a claimed intent takes no other attach: {busy}");
    assert_eq!(app.advance_and_run_due_actions(10).await, 0, "not checked before its time");
    assert_eq!(intent_status(&app, &intent).await["status"], "processing");

    assert!(app.advance_and_run_due_actions(30).await >= 1);
    let settled = intent_status(&app, &intent).await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    assert_eq!(settled["latest_payment"]["fee"].as_i64(), Some(1_850));
    assert_eq!(processor(&app).charges(), 1, "found, not charged again");
    app.advance_and_run_due_actions(3_600).await;
    let (_, events) = live(&app, Method::GET, "/events?limit=100", "").await;
    let paid = events["data"].as_array().unwrap().iter().filter(|e| e["type"] == "payment.paid").count();
    assert_eq!(paid, 1);
}

async fn concurrent_live_attaches_authorize_once(backend: Backend) {
    let app = live_app(backend).await;
    let intent = live_intent(&app, 10_000, "").await;
    let tokens: Vec<String> = (0..6).map(|_| token(&app, "4242424242424242")).collect();
    let answers = join_all(tokens.iter().map(|card| attach_token(&app, &intent, card))).await;
    let won = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(won, 1, "{answers:?}");
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert!([400, 409].contains(status), "{status} {body}");
        let code = body["errors"][0]["code"].as_str().unwrap();
        assert!(["resource_conflict", "resource_invalid_state"].contains(&code), "{body}");
    }
    assert_eq!(processor(&app).charges(), 1);
    assert_eq!(intent_status(&app, &intent).await["status"], "succeeded");
}

/// A live intent paid with a card's token: its payment's id.
async fn paid_live(app: &TestApp) -> String {
    let intent = live_intent(app, 10_000, "").await;
    let (status, paid) = attach_token(app, &intent, &token(app, "4242424242424242")).await;
    assert_eq!(status, 200, "{paid}");
    paid["latest_payment"]["id"].as_str().unwrap().to_owned()
}

async fn refund(app: &TestApp, payment: &str, amount: i64) -> (u16, Value) {
    let body = format!("payment_id={payment}&amount={amount}&currency=PHP&reason=others");
    live(app, Method::POST, "/refunds", &body).await
}

async fn payment(app: &TestApp, payment: &str) -> Value {
    live(app, Method::GET, &format!("/payments/{payment}"), "").await.1
}

async fn event_count(app: &TestApp, event_type: &str) -> usize {
    let (_, events) = live(app, Method::GET, "/events?limit=100", "").await;
    events["data"].as_array().unwrap().iter().filter(|event| event["type"] == event_type).count()
}

async fn live_refunds_go_to_the_processor_and_never_exceed_the_payment(backend: Backend) {
    let app = live_app(backend).await;
    let paid = paid_live(&app).await;
    for amount in [3_000, 4_000] {
        let (status, made) = refund(&app, &paid, amount).await;
        assert_eq!((status, made["status"].as_str()), (200, Some("succeeded")), "{made}");
    }
    let (status, over) = refund(&app, &paid, 3_001).await;
    assert_eq!(status, 400, "{over}");
    single_error(&over, "parameter_above_maximum");
    let after = payment(&app, &paid).await;
    assert_eq!((after["amount_refunded"].as_i64(), after["refunded"].as_bool()), (Some(7_000), Some(true)));
    assert_eq!(event_count(&app, "payment.refunded").await, 2);
    assert_eq!(event_count(&app, "refund.created").await, 2);
    let (status, rest) = refund(&app, &paid, 3_000).await;
    assert_eq!((status, rest["status"].as_str()), (200, Some("succeeded")), "{rest}");
}

async fn a_refund_the_processor_cannot_take_changes_nothing(backend: Backend) {
    let app = live_app(backend).await;
    let paid = paid_live(&app).await;
    processor(&app).fail_next(Fault::Unreachable);
    let (status, unreachable) = refund(&app, &paid, 10_000).await;
    assert_eq!(status, 503, "{unreachable}");
    single_error(&unreachable, "service_unavailable");
    let after = payment(&app, &paid).await;
    assert_eq!((after["amount_refunded"].as_i64(), after["refunded"].as_bool()), (Some(0), Some(false)));
    assert_eq!(event_count(&app, "payment.refunded").await, 0);
    assert_eq!(event_count(&app, "refund.created").await, 0);
    let (status, made) = refund(&app, &paid, 10_000).await;
    assert_eq!((status, made["status"].as_str()), (200, Some("succeeded")), "the whole amount is left: {made}");
}

async fn a_lost_refund_answer_is_settled_by_the_janitor_once(backend: Backend) {
    let app = live_app(backend).await;
    let paid = paid_live(&app).await;
    processor(&app).fail_next(Fault::DropAnswer);
    let (status, pending) = refund(&app, &paid, 6_000).await;
    assert_eq!((status, pending["status"].as_str()), (200, Some("pending")), "{pending}");
    assert_eq!(payment(&app, &paid).await["amount_refunded"].as_i64(), Some(6_000), "held while it is asked");
    let (status, busy) = refund(&app, &paid, 1_000).await;
    assert_eq!(status, 400, "one refund at the processor at a time: {busy}");
    single_error(&busy, "resource_invalid_state");

    assert!(app.advance_and_run_due_actions(40).await >= 1);
    let id = pending["id"].as_str().unwrap();
    // The contract reads a refund back only in the answer to a change of its metadata.
    let (_, settled) = live(&app, Method::PUT, &format!("/refunds/{id}"), "metadata[checked]=yes").await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    assert_eq!(payment(&app, &paid).await["amount_refunded"].as_i64(), Some(6_000));
    app.advance_and_run_due_actions(3_600).await;
    assert_eq!(event_count(&app, "payment.refunded").await, 1);
    let (status, more) = refund(&app, &paid, 4_000).await;
    assert_eq!((status, more["status"].as_str()), (200, Some("succeeded")), "{more}");
}

/// An intent that awaits the customer on the processor's 3-D Secure page, and the processor's
/// payment for it.
async fn challenged(app: &TestApp, extra: &str) -> (String, String) {
    let intent = live_intent(app, 10_000, &format!("{extra}&return_url=https://shop.example/done")).await;
    let (status, waiting) = attach_token(app, &intent, &token(app, "4000000000003220")).await;
    assert_eq!((status, waiting["status"].as_str()), (200, Some("awaiting_next_action")), "{waiting}");
    let reserved = PaymentId::parse(waiting["latest_payment"]["id"].as_str().unwrap_or_default());
    let reference = reserved
        .and_then(|payment| processor(app).reference_of(&payment))
        .or_else(|| waiting["next_action"]["redirect_url"].as_str()?.rsplit('/').next().map(str::to_owned))
        .expect("the processor's payment");
    (intent, reference)
}

/// Follows the processor's link back to the service's return page, as the customer's browser
/// does: the service answers with a redirect to the merchant's `return_url`.
async fn come_back(back: &str) -> (u16, String) {
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let answer = client.get(back).send().await.unwrap();
    let location = answer.headers().get("location").map(|value| value.to_str().unwrap().to_owned());
    (answer.status().as_u16(), location.unwrap_or_default())
}

async fn a_3d_secure_payment_settles_when_the_customer_comes_back_through_the_service(backend: Backend) {
    let app = live_app(backend).await;
    let (intent, reference) = challenged(&app, "").await;
    assert_eq!(processor(&app).charges(), 0, "nothing charged before the customer authenticates");
    let back = processor(&app).complete_action(&reference, true, CaptureMethod::Automatic).unwrap();
    assert!(back.starts_with(&format!("{}/processor/return/", app.address)), "{back}");
    let (status, location) = come_back(&back).await;
    let paid = intent_status(&app, &intent).await;
    let secret = paid["client_secret"].as_str().unwrap();
    assert_eq!((status, location), (303, format!("https://shop.example/done?payment_intent_client_secret={secret}")));
    assert_eq!(paid["status"], "succeeded", "{paid}");
    assert_eq!(paid["latest_payment"]["fee"].as_i64(), Some(1_850), "the processor's fee: {paid}");
    // Back again (a reload): the same answer, and nothing recorded twice.
    assert_eq!(come_back(&back).await.0, 303);
    let (_, events) = live(&app, Method::GET, "/events?limit=100", "").await;
    let paid_events = events["data"].as_array().unwrap().iter().filter(|e| e["type"] == "payment.paid").count();
    assert_eq!((paid_events, processor(&app).charges()), (1, 1));

    let (failed, reference) = challenged(&app, "").await;
    let back = processor(&app).complete_action(&reference, false, CaptureMethod::Automatic).unwrap();
    assert_eq!(come_back(&back).await.0, 303);
    let after = intent_status(&app, &failed).await;
    assert_eq!(after["status"], "awaiting_payment_method", "{after}");
    assert_eq!(after["last_payment_error"]["code"], "authentication_failed");

    let unknown = format!("{}/processor/return/{}", app.address, "x".repeat(32));
    assert_eq!(come_back(&unknown).await.0, 404);
}

async fn an_authentication_left_unfinished_is_released_at_the_processor_unless_it_paid(backend: Backend) {
    let app = live_app(backend).await;
    let (abandoned, abandoned_at_processor) = challenged(&app, "").await;
    // The customer authenticated, and never came back: the processor paid.
    let (paid, paid_at_processor) = challenged(&app, "&payment_method_options[card][capture_type]=manual").await;
    processor(&app).complete_action(&paid_at_processor, true, CaptureMethod::Manual);

    let (status, refused) = live(&app, Method::POST, &format!("/payment_intents/{abandoned}/cancel"), "").await;
    assert_eq!(status, 400, "the processor awaits the customer: {refused}");
    single_error(&refused, "resource_invalid_state");
    app.advance_and_run_due_actions(REDIRECT_SECONDS - 60).await;
    assert_eq!(intent_status(&app, &abandoned).await["status"], "awaiting_next_action", "not before its time");
    assert!(app.advance_and_run_due_actions(120).await >= 2);

    let expired = intent_status(&app, &abandoned).await;
    assert_eq!(expired["status"], "awaiting_payment_method", "{expired}");
    assert_eq!(expired["last_payment_error"]["code"], "authentication_expired");
    let voided = processor(&app).complete_action(&abandoned_at_processor, true, CaptureMethod::Automatic);
    assert!(voided.is_some());
    assert_eq!(processor(&app).charges(), 1, "released at the processor: authenticating later charges nothing");
    let held = intent_status(&app, &paid).await;
    assert_eq!(held["status"], "awaiting_capture", "the processor's hold is recorded, not failed: {held}");
}

/// Each request lost on its way (the processor never saw it): the janitor finds nothing at the
/// processor, and gives back the claim or the refund only once no request of it can still land.
async fn a_request_lost_before_the_processor_is_given_back_only_when_it_cannot_land(backend: Backend) {
    use payments_domain::processor_operation::ABSENCE_PROOF_SECONDS;
    let app = live_app(backend).await;
    let intent = live_intent(&app, 10_000, "").await;
    processor(&app).fail_next(Fault::LoseRequest);
    let (status, processing) = attach_token(&app, &intent, &token(&app, "4242424242424242")).await;
    assert_eq!((status, processing["status"].as_str()), (200, Some("processing")), "{processing}");
    let paid = paid_live(&app).await;
    processor(&app).fail_next(Fault::LoseRequest);
    let (status, pending) = refund(&app, &paid, 6_000).await;
    assert_eq!((status, pending["status"].as_str()), (200, Some("pending")), "{pending}");

    // The janitor's first checks find nothing at the processor: too soon to tell.
    assert!(app.advance_and_run_due_actions(40).await >= 2);
    assert_eq!(intent_status(&app, &intent).await["status"], "processing");
    assert_eq!(payment(&app, &paid).await["amount_refunded"].as_i64(), Some(6_000), "still held");
    // Past the time any request of them could still land: nothing was done, and all is given back.
    app.advance_and_run_due_actions(ABSENCE_PROOF_SECONDS).await;
    app.advance_and_run_due_actions(3_600).await;
    assert_eq!(intent_status(&app, &intent).await["status"], "awaiting_payment_method");
    assert_eq!(payment(&app, &paid).await["amount_refunded"].as_i64(), Some(0), "the refund failed, given back");
    let (status, again) = attach_token(&app, &intent, &token(&app, "4242424242424242")).await;
    assert_eq!((status, again["status"].as_str()), (200, Some("succeeded")), "{again}");
    assert_eq!(processor(&app).charges(), 2, "the first attach and this one; the lost one charged nothing");
}
