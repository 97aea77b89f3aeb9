//! Live payments through the Stripe-API connector against localstripe, over HTTP on both backends,
//! with the account's connector set through the operator API: a card tokenized at the emulator (as
//! the browser does) is charged once with the processor's fee and refunded twice in part (an
//! over-refund refused by the service), a hold is captured in part and
//! another released at the processor, a decline is mapped by the connector's table, a processor
//! that refuses connections changes nothing, and concurrent attaches make one payment intent at
//! the processor, an answer lost behind a fault proxy after the processor charged is settled by the
//! janitor with one charge, as is a charge whose fee could not be read after it, and an expired
//! hold is released at the processor, a hold the processor released itself cancels the intent,
//! and a 3-D Secure payment is settled by the processor's event once the customer authenticated
//! there, or finished with the processor's script on the service's authentication page and
//! recorded by the return page. A payment the processor holds for an attempt the service recorded
//! without it is voided there. The connector's secrets are sealed, never shown, and another account's live mode does
//! not reach it.

use crate::helpers::{read, single_error, spawn_app_with, FaultProxy, LocalStripe, TestApp};
use futures_util::future::join_all;
use payments_adapters::db::Backend;
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends_unstarted!(
    a_card_is_charged_once_at_the_processor,
    a_hold_is_captured_in_part_or_released_at_the_processor,
    a_decline_at_the_processor_is_mapped_by_the_table,
    a_processor_refusing_connections_changes_nothing,
    concurrent_attaches_make_one_payment_at_the_processor,
    the_operator_sets_a_connector_whose_secrets_are_never_shown,
    an_answer_lost_after_the_processor_charged_is_settled_by_the_janitor_once,
    an_expired_hold_is_released_at_the_processor,
    a_signed_event_settles_a_lost_answer_before_the_janitor,
    processor_events_are_verified_kept_once_and_never_trusted,
    a_3d_secure_payment_is_settled_by_the_processors_event,
    a_3d_secure_payment_is_finished_with_stripe_js_on_the_services_page,
    a_payment_at_the_processor_that_no_attempt_claims_is_voided_there,
    saving_a_card_the_processor_cannot_save_is_refused_before_it_is_asked,
    a_hold_the_processor_released_itself_cancels_the_intent,
    a_lost_read_after_the_charge_is_never_taken_for_nothing_charged,
);

pub(crate) const TOKEN: &str = "operator-token-of-the-tests-0123456789";
/// The key the tests' connector secrets are sealed with.
const KEY: &str = "3f1c2b4a5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708";
const SECRET_KEY: &str = "sk_test_connector_secret_41d7";
const WEBHOOK_SECRET: &str = "whsec_connector_secret_93ab";

async fn operator(app: &TestApp, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request = app.client.request(method, format!("{}/operator/accounts{path}", app.address)).bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    read(request.send().await.unwrap()).await
}

/// The id of the account named `name`.
async fn account_named(app: &TestApp, name: &str) -> String {
    let (_, accounts) = operator(app, Method::GET, "", None).await;
    let found = accounts["data"].as_array().unwrap().iter().find(|account| account["name"] == name);
    found.and_then(|account| account["id"].as_str()).unwrap().to_owned()
}

fn setup(api_base_url: &str) -> Value {
    json!({
        "kind": "stripe",
        "api_base_url": api_base_url,
        "publishable_key": "pk_test_connector",
        "secret_key": SECRET_KEY,
        "webhook_secret": WEBHOOK_SECRET,
    })
}

/// An app whose first account's live connector is a Stripe-API processor at `api_base_url`.
pub(crate) async fn app_over(backend: Backend, api_base_url: &str) -> TestApp {
    let app = spawn_app_with(backend, |settings| {
        settings.operator.token = TOKEN.to_owned();
        settings.live_processor.credentials_key = KEY.to_owned();
    })
    .await;
    let account = account_named(&app, "Acme").await;
    let (status, connector) =
        operator(&app, Method::PUT, &format!("/{account}/connector"), Some(setup(api_base_url))).await;
    assert_eq!(status, 200, "{connector}");
    app
}

pub(crate) async fn live(app: &TestApp, method: Method, path: &str, body: &str) -> (u16, Value) {
    read(app.form(method, path, &app.keys.secret_live, body).await).await
}

async fn live_intent(app: &TestApp, extra: &str) -> String {
    let body = format!("amount=10000&currency=PHP&payment_methods[]=card{extra}");
    let (status, intent) = live(app, Method::POST, "/payment_intents", &body).await;
    assert_eq!(status, 200, "{intent}");
    intent["id"].as_str().unwrap().to_owned()
}

async fn attach(app: &TestApp, intent: &str, token: &str) -> (u16, Value) {
    let body = format!("payment_method[type]=card&payment_method[card][token]={token}");
    live(app, Method::POST, &format!("/payment_intents/{intent}/attach"), &body).await
}

/// The emulator's payment intents made for the service's payment `payment`.
async fn made_for(stripe: &LocalStripe, payment: &str) -> Vec<Value> {
    let all = stripe.payment_intents().await;
    all.into_iter().filter(|intent| intent["metadata"]["payrex_payment"] == payment).collect()
}

async fn a_card_is_charged_once_at_the_processor(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let intent = live_intent(&app, "").await;
    let (status, paid) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    let payment = &paid["latest_payment"];
    // localstripe's balance transactions carry no fee: the processor's fee is the payment's.
    assert_eq!((payment["fee"].as_i64(), payment["net_amount"].as_i64()), (Some(0), Some(10_000)), "{payment}");
    let at_processor = made_for(&stripe, payment["id"].as_str().unwrap()).await;
    assert_eq!(at_processor.len(), 1, "{at_processor:?}");
    assert_eq!(at_processor[0]["status"], "succeeded");
    assert_eq!(at_processor[0]["amount"], 10_000);

    // Two partial refunds reach the processor; the third, past the payment, is refused by the
    // service (localstripe would take it).
    let refund = |amount: i64| {
        let body = format!("payment_id={}&amount={amount}&currency=PHP&reason=others", payment["id"].as_str().unwrap());
        let app = &app;
        async move { live(app, Method::POST, "/refunds", &body).await }
    };
    for amount in [3_000, 4_000] {
        let (status, made) = refund(amount).await;
        assert_eq!((status, made["status"].as_str()), (200, Some("succeeded")), "{made}");
    }
    let (status, over) = refund(3_001).await;
    assert_eq!(status, 400, "{over}");
    single_error(&over, "parameter_above_maximum");
    let charge = &made_for(&stripe, payment["id"].as_str().unwrap()).await[0]["charges"]["data"][0];
    assert_eq!(charge["amount_refunded"].as_i64(), Some(7_000), "{charge}");
}

async fn a_hold_is_captured_in_part_or_released_at_the_processor(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let manual = "&payment_method_options[card][capture_type]=manual";
    let intent = live_intent(&app, manual).await;
    let (status, held) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!((status, held["status"].as_str()), (200, Some("awaiting_capture")), "{held}");
    assert_eq!(stripe.payment_intents().await[0]["status"], "requires_capture");

    let capture = format!("/payment_intents/{intent}/capture");
    let (status, above) = live(&app, Method::POST, &capture, "amount=12000").await;
    assert_eq!(status, 400, "{above}");
    single_error(&above, "parameter_above_maximum");
    assert_eq!(stripe.payment_intents().await[0]["status"], "requires_capture", "no call for a refused capture");
    let (status, captured) = live(&app, Method::POST, &capture, "amount=6000").await;
    assert_eq!((status, captured["amount_received"].as_i64()), (200, Some(6_000)), "{captured}");
    assert_eq!(captured["latest_payment"]["amount"].as_i64(), Some(6_000));
    let charge = &stripe.payment_intents().await[0]["charges"]["data"][0];
    assert_eq!((charge["captured"].as_bool(), charge["amount_refunded"].as_i64()), (Some(true), Some(4_000)), "{charge}");

    let released = live_intent(&app, manual).await;
    let (status, _) = attach(&app, &released, &stripe.card_token("4242424242424242").await).await;
    assert_eq!(status, 200);
    let (status, canceled) = live(&app, Method::POST, &format!("/payment_intents/{released}/cancel"), "").await;
    assert_eq!((status, canceled["status"].as_str()), (200, Some("canceled")), "{canceled}");
    let statuses: Vec<Value> = stripe.payment_intents().await.iter().map(|intent| intent["status"].clone()).collect();
    assert!(statuses.contains(&Value::from("canceled")), "voided at the processor: {statuses:?}");
}

async fn a_decline_at_the_processor_is_mapped_by_the_table(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let intent = live_intent(&app, "").await;
    let (status, declined) = attach(&app, &intent, &stripe.card_token("4000000000000341").await).await;
    assert_eq!(status, 400, "{declined}");
    single_error(&declined, "generic_decline");
    let (_, after) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(after["status"], "awaiting_payment_method");
    assert_eq!(after["last_payment_error"]["code"], "generic_decline", "card_declined, by the table: {after}");
    assert_eq!(after["latest_payment"]["status"], "failed");
}

async fn a_processor_refusing_connections_changes_nothing(backend: Backend) {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let app = app_over(backend, &url).await;
    let intent = live_intent(&app, "").await;
    let response = app
        .request(Method::POST, &format!("/payment_intents/{intent}/attach"), &app.keys.secret_live)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("payment_method[type]=card&payment_method[card][token]=pm_unreachable")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    let (_, body) = read(response).await;
    single_error(&body, "service_unavailable");
    let (_, after) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!((after["status"].as_str(), &after["latest_payment"]), (Some("awaiting_payment_method"), &Value::Null));
}

async fn concurrent_attaches_make_one_payment_at_the_processor(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let intent = live_intent(&app, "").await;
    let mut tokens = Vec::new();
    for _ in 0..5 {
        tokens.push(stripe.card_token("4242424242424242").await);
    }
    let answers = join_all(tokens.iter().map(|token| attach(&app, &intent, token))).await;
    assert_eq!(answers.iter().filter(|(status, _)| *status == 200).count(), 1, "{answers:?}");
    let made = stripe.payment_intents().await;
    assert_eq!(made.len(), 1, "one authorization at the processor: {made:?}");
}

async fn the_operator_sets_a_connector_whose_secrets_are_never_shown(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let account = account_named(&app, "Acme").await;
    let path = format!("/{account}/connector");
    let (status, shown) = operator(&app, Method::GET, &path, None).await;
    assert_eq!(status, 200, "{shown}");
    assert_eq!((shown["kind"].as_str(), shown["api_base_url"].as_str()), (Some("stripe"), Some(stripe.url.as_str())));
    assert_eq!((shown["secret_key"].as_str(), shown["webhook_secret"].as_str()), (Some("sealed"), Some("sealed")));
    assert!(shown["id"].as_str().unwrap().starts_with("conn_") && shown["last_call"].is_null(), "{shown}");
    let text = shown.to_string();
    assert!(!text.contains(SECRET_KEY) && !text.contains(WEBHOOK_SECRET), "{text}");

    let intent = live_intent(&app, "").await;
    let (status, _) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!(status, 200);
    let (_, after) = operator(&app, Method::GET, &path, None).await;
    assert_eq!(after["last_call"]["answered"], true, "{after}");
    assert_eq!(after["id"], shown["id"]);
    // The console of the live key shows the processor and its last call, never a secret.
    let mut console = crate::console::Console::new(&app);
    console.sign_in(&app.keys.secret_live).await;
    let (status, overview) = console.get("/dashboard").await;
    assert_eq!(status, 200);
    assert!(overview.contains("Live processor") && overview.contains(&stripe.url), "{overview}");
    assert!(overview.contains("Answered its last call"), "{overview}");
    assert!(!overview.contains(SECRET_KEY) && !overview.contains(WEBHOOK_SECRET));

    // Set again with another address: the same id (the processor's webhooks keep their address).
    let (status, again) = operator(&app, Method::PUT, &path, Some(setup("https://api.stripe.com"))).await;
    assert_eq!((status, &again["id"]), (200, &shown["id"]), "{again}");
    assert!(again["last_call"].is_null(), "another setup's last call is forgotten: {again}");

    for (field, value) in [("api_base_url", "http://api.example.com"), ("secret_key", ""), ("kind", "paypal")] {
        let mut bad = setup(&stripe.url);
        bad[field] = Value::from(value);
        let (status, refused) = operator(&app, Method::PUT, &path, Some(bad)).await;
        assert_eq!(status, 400, "{field}: {refused}");
        assert!(!refused.to_string().contains(WEBHOOK_SECRET), "{refused}");
    }
    let (_, unchanged) = operator(&app, Method::GET, &path, None).await;
    assert_eq!(unchanged["api_base_url"], "https://api.stripe.com", "a refused setup changes nothing");

    // Another account's live mode does not reach this account's processor.
    let other = account_named(&app, "Other").await;
    let (status, none) = operator(&app, Method::GET, &format!("/{other}/connector"), None).await;
    assert_eq!(status, 404, "{none}");
    let (status, _) = operator(&app, Method::DELETE, &path, None).await;
    assert_eq!(status, 200);
    let intent = live_intent(&app, "").await;
    let (status, unavailable) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!(status, 503, "no connector, no live payment: {unavailable}");
    let (status, _) = operator(&app, Method::DELETE, &path, None).await;
    assert_eq!(status, 404);

    let keyless = spawn_app_with(backend, |settings| settings.operator.token = TOKEN.to_owned()).await;
    let account = account_named(&keyless, "Acme").await;
    let (status, refused) =
        operator(&keyless, Method::PUT, &format!("/{account}/connector"), Some(setup(&stripe.url))).await;
    assert_eq!(status, 503, "no key to seal the secrets with: {refused}");
}

async fn an_answer_lost_after_the_processor_charged_is_settled_by_the_janitor_once(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let proxy = FaultProxy::start(&stripe.url).await;
    let app = app_over(backend, &proxy.url).await;
    let intent = live_intent(&app, "").await;
    let card = stripe.card_token("4242424242424242").await;
    proxy.lose_answer_to("/confirm");
    let (status, processing) = attach(&app, &intent, &card).await;
    assert_eq!((status, processing["status"].as_str()), (200, Some("processing")), "{processing}");
    let charged = stripe.payment_intents().await;
    assert_eq!(charged.len(), 1);
    assert_eq!(charged[0]["status"], "succeeded", "the processor charged, and its answer was lost");
    // The operator sees the operation the processor has not answered.
    let account = account_named(&app, "Acme").await;
    let operations = format!("/{account}/processor_operations");
    let (status, open) = operator(&app, Method::GET, &operations, None).await;
    assert_eq!(status, 200, "{open}");
    let open = open["data"].as_array().unwrap();
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!((open[0]["kind"].as_str(), open[0]["state"].as_str()), (Some("authorize"), Some("unknown")));
    assert_eq!(open[0]["payment_intent_id"], intent.as_str());
    assert!(open[0]["idempotency_key"].as_str().unwrap().ends_with(":authorize") && open[0]["next_check_at"].is_i64());
    let (status, _) = operator(&app, Method::GET, "/acct_0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8/processor_operations", None).await;
    assert_eq!(status, 404);
    let unauthenticated = app.client.get(format!("{}/operator/accounts{operations}", app.address)).send().await.unwrap();
    assert_eq!(unauthenticated.status().as_u16(), 401);

    assert!(app.advance_and_run_due_actions(40).await >= 1);
    let (_, open) = operator(&app, Method::GET, &operations, None).await;
    assert_eq!(open["data"].as_array().map(Vec::len), Some(0), "answered: {open}");
    let (_, settled) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    let payment = settled["latest_payment"]["id"].as_str().unwrap();
    assert_eq!(made_for(&stripe, payment).await.len(), 1, "found at the processor, not charged again");
    app.advance_and_run_due_actions(3_600).await;
    assert_eq!(stripe.payment_intents().await.len(), 1);
    let (_, events) = live(&app, Method::GET, "/events?limit=100", "").await;
    let paid = events["data"].as_array().unwrap().iter().filter(|event| event["type"] == "payment.paid").count();
    assert_eq!(paid, 1);
}

async fn an_expired_hold_is_released_at_the_processor(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let intent = live_intent(&app, "&payment_method_options[card][capture_type]=manual").await;
    let (status, held) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!((status, held["status"].as_str()), (200, Some("awaiting_capture")), "{held}");
    app.advance_and_run_due_actions(payments_domain::payment_intent::HOLD_SECONDS - 60).await;
    assert_eq!(stripe.payment_intents().await[0]["status"], "requires_capture", "not before its time");
    assert!(app.advance_and_run_due_actions(120).await >= 1);
    let (_, expired) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(expired["status"], "canceled", "{expired}");
    assert_eq!(stripe.payment_intents().await[0]["status"], "canceled", "released at the processor");
}

/// The address the processor sends the account's events to, as the operator API tells it.
async fn webhook_url(app: &TestApp) -> String {
    let account = account_named(app, "Acme").await;
    let (_, connector) = operator(app, Method::GET, &format!("/{account}/connector"), None).await;
    let url = connector["webhook_url"].as_str().unwrap().to_owned();
    assert_eq!(url, format!("{}/processor/webhooks/{}", app.address, connector["id"].as_str().unwrap()));
    url
}

/// Sends `body` to the processor's event address, signed with `secret` now.
async fn send_event(app: &TestApp, url: &str, body: &str, secret: &str) -> u16 {
    use hmac::{Hmac, Mac};
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{now}.{body}").as_bytes());
    let signature = hex::encode(mac.finalize().into_bytes());
    let sent = app.client.post(url).header("Stripe-Signature", format!("t={now},v1={signature}")).body(body.to_owned());
    sent.send().await.unwrap().status().as_u16()
}

fn event(id: &str, payment_intent: &str, livemode: bool) -> String {
    json!({
        "id": id,
        "object": "event",
        "type": "payment_intent.succeeded",
        "livemode": livemode,
        "data": {"object": {"id": payment_intent, "object": "payment_intent", "status": "succeeded"}},
    })
    .to_string()
}

async fn a_signed_event_settles_a_lost_answer_before_the_janitor(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let proxy = FaultProxy::start(&stripe.url).await;
    let app = app_over(backend, &proxy.url).await;
    let hook = [("url", webhook_url(&app).await), ("secret", WEBHOOK_SECRET.to_owned())];
    let registered = app.client.post(format!("{}/_config/webhooks/service", stripe.url)).form(&hook).send().await.unwrap();
    assert!(registered.status().is_success());
    let intent = live_intent(&app, "").await;
    proxy.lose_answer_to("/confirm");
    let (status, processing) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!((status, processing["status"].as_str()), (200, Some("processing")), "{processing}");

    // localstripe sends payment_intent.succeeded a second later; the service fetches the payment
    // again and settles the intent, with no move of the clock to the janitor's first check.
    let mut settled = Value::Null;
    for _ in 0..100 {
        app.advance_and_run_due_actions(0).await;
        settled = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await.1;
        if settled["status"] == "succeeded" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(settled["status"], "succeeded", "{settled}");
    assert_eq!(stripe.payment_intents().await.len(), 1, "one charge");
    app.advance_and_run_due_actions(3_600).await;
    let (_, events) = live(&app, Method::GET, "/events?limit=100", "").await;
    let paid = events["data"].as_array().unwrap().iter().filter(|event| event["type"] == "payment.paid").count();
    assert_eq!(paid, 1, "the janitor found it settled");
}

async fn processor_events_are_verified_kept_once_and_never_trusted(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let url = webhook_url(&app).await;
    let intent = live_intent(&app, "&payment_method_options[card][capture_type]=manual").await;
    let (status, _) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!(status, 200);
    let held = stripe.payment_intents().await[0]["id"].as_str().unwrap().to_owned();

    // A body that claims the hold was captured, signed: kept and answered, but the processor,
    // asked again, says it is held, and the hold stays as it is. Sent twice, it is taken once.
    let claim = event("evt_claims_paid", &held, false);
    assert_eq!(send_event(&app, &url, &claim, WEBHOOK_SECRET).await, 200);
    assert_eq!(send_event(&app, &url, &claim, WEBHOOK_SECRET).await, 200);
    app.advance_and_run_due_actions(0).await;
    let (_, after) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!((after["status"].as_str(), after["amount_received"].as_i64()), (Some("awaiting_capture"), Some(0)));

    assert_eq!(send_event(&app, &url, &claim, "whsec_forged").await, 400, "a forged signature");
    let unsigned = app.client.post(&url).body(claim.clone()).send().await.unwrap();
    assert_eq!(unsigned.status().as_u16(), 400, "no signature");
    let live_event = event("evt_live", &held, true);
    assert_eq!(send_event(&app, &url, &live_event, WEBHOOK_SECRET).await, 400, "a live event for test keys");
    assert_eq!(send_event(&app, &url, "not json", WEBHOOK_SECRET).await, 400);
    let oversized = app.client.post(&url).header("Stripe-Signature", "t=1,v1=00").body("a".repeat(2 << 20)).send().await;
    let (status, refused) = read(oversized.unwrap()).await;
    assert_eq!(status, 413, "{refused}");
    single_error(&refused, "payload_too_large");
    let elsewhere = format!("{}/processor/webhooks/conn_0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b", app.address);
    assert_eq!(send_event(&app, &elsewhere, &claim, WEBHOOK_SECRET).await, 404, "no such connector");
    let (status, _) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(status, 200);
}

/// Registers the service's event address with localstripe, which then sends its events there.
async fn send_events_to_the_service(app: &TestApp, stripe: &LocalStripe) {
    let hook = [("url", webhook_url(app).await), ("secret", WEBHOOK_SECRET.to_owned())];
    let registered = app.client.post(format!("{}/_config/webhooks/service", stripe.url)).form(&hook).send().await.unwrap();
    assert!(registered.status().is_success());
}

/// The intent `intent` once due work has run until `status`, or as it stands after ten seconds.
async fn once_it_is(app: &TestApp, intent: &str, status: &str) -> Value {
    let mut seen = Value::Null;
    for _ in 0..100 {
        app.advance_and_run_due_actions(0).await;
        seen = live(app, Method::GET, &format!("/payment_intents/{intent}"), "").await.1;
        if seen["status"] == status {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    seen
}

async fn a_3d_secure_payment_is_settled_by_the_processors_event(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    send_events_to_the_service(&app, &stripe).await;
    // The customer authenticates on the processor's page (Stripe.js makes this call there).
    let authenticate = |authenticated: &'static str| {
        let stripe = &stripe;
        let app = &app;
        async move {
            let intent = live_intent(app, "").await;
            let (status, waiting) = attach(app, &intent, &stripe.card_token("4000000000003220").await).await;
            assert_eq!((status, waiting["status"].as_str()), (200, Some("awaiting_next_action")), "{waiting}");
            let at_processor = stripe.payment_intents().await;
            let challenged = at_processor.iter().find(|made| made["status"] == "requires_action").unwrap();
            let path = format!("/v1/payment_intents/{}/_authenticate", challenged["id"].as_str().unwrap());
            let secret = challenged["client_secret"].as_str().unwrap();
            stripe.post(&path, &[("client_secret", secret), ("success", authenticated)]).await;
            intent
        }
    };
    let paid = authenticate("true").await;
    let after = once_it_is(&app, &paid, "succeeded").await;
    assert_eq!((after["status"].as_str(), after["latest_payment"]["status"].as_str()), (Some("succeeded"), Some("paid")));

    // localstripe sends no event for a failed authentication: the page's expiry asks the
    // processor, whose answer (failed, not expired) stands.
    let failed = authenticate("false").await;
    app.advance_and_run_due_actions(payments_domain::pending_authorization::REDIRECT_SECONDS + 60).await;
    let (_, after) = live(&app, Method::GET, &format!("/payment_intents/{failed}"), "").await;
    assert_eq!(after["status"], "awaiting_payment_method", "{after}");
    assert_eq!(after["last_payment_error"]["code"], "authentication_failed", "by the table: {after}");
    let charged = stripe.payment_intents().await.iter().filter(|made| made["status"] == "succeeded").count();
    assert_eq!(charged, 1);
}

async fn a_3d_secure_payment_is_finished_with_stripe_js_on_the_services_page(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let page = |url: String| {
        async move {
            let response = crate::helpers::browser().get(&url).send().await.unwrap();
            let status = response.status().as_u16();
            let policy = response.headers().get("content-security-policy").map(|v| v.to_str().unwrap().to_owned());
            let location = response.headers().get("location").map(|v| v.to_str().unwrap().to_owned());
            (status, policy.unwrap_or_default(), location.unwrap_or_default(), response.text().await.unwrap())
        }
    };
    for (authenticated, after, error) in [("true", "succeeded", Value::Null), ("false", "awaiting_payment_method", json!("authentication_failed"))] {
        let intent = live_intent(&app, "").await;
        let card = stripe.card_token("4000000000003220").await;
        let body = format!("payment_method[type]=card&payment_method[card][token]={card}&return_url=https://shop.example/done?order=42");
        let (status, waiting) = live(&app, Method::POST, &format!("/payment_intents/{intent}/attach"), &body).await;
        assert_eq!((status, waiting["status"].as_str()), (200, Some("awaiting_next_action")), "{waiting}");
        let authenticate = waiting["next_action"]["redirect_url"].as_str().unwrap().to_owned();
        let token = authenticate.rsplit('/').next().unwrap().to_owned();
        assert_eq!(authenticate, format!("{}/processor/authenticate/{token}", app.address), "the service's page");

        // The page runs the processor's script with its client secret, and may reach only it.
        let challenged = stripe.payment_intents().await.into_iter().find(|made| made["status"] == "requires_action").unwrap();
        let secret = challenged["client_secret"].as_str().unwrap();
        let (status, policy, _, html) = page(authenticate.clone()).await;
        assert_eq!(status, 200, "{html}");
        assert!(html.contains(&format!("<script src=\"{}/js.stripe.com/v3/\">", stripe.url)), "{html}");
        assert!(html.contains(&format!("data-client-secret=\"{secret}\"")), "{html}");
        assert!(!html.contains("4000000000003220"));
        assert!(policy.contains(&format!("script-src 'self' {}", stripe.url)) && policy.contains("default-src 'none'"), "{policy}");
        // Test mode's page decides nothing of a live payment, whatever its token.
        let test_page = format!("{}/test/authorize/{token}", app.address);
        assert_eq!(page(test_page.clone()).await.0, 404);
        let decided = crate::helpers::browser().post(&test_page).form(&[("decision", "authorize")]).send().await.unwrap();
        assert_eq!(decided.status().as_u16(), 404);

        // Stripe.js authenticates at the processor; the page then sends the customer back, and the
        // return page records what the processor decided and sends them on to the shop.
        let path = format!("/v1/payment_intents/{}/_authenticate", challenged["id"].as_str().unwrap());
        stripe.post(&path, &[("client_secret", secret), ("success", authenticated)]).await;
        let (status, _, location, _) = page(authenticate.clone()).await;
        assert_eq!((status, location.as_str()), (303, format!("/processor/return/{token}").as_str()), "nothing left to authenticate");
        let (status, _, location, _) = page(format!("{}{location}", app.address)).await;
        let (_, settled) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
        let client_secret = settled["client_secret"].as_str().unwrap();
        assert_eq!(status, 303);
        assert_eq!(location, format!("https://shop.example/done?order=42&payment_intent_client_secret={client_secret}"));
        assert_eq!(settled["status"], after, "{settled}");
        assert_eq!(settled["last_payment_error"]["code"], error, "{settled}");
        let at_processor = stripe.payment_intents().await;
        let challenged_now = at_processor.iter().find(|made| made["id"] == challenged["id"]).unwrap();
        let expected = if authenticated == "true" { "succeeded" } else { "canceled" };
        assert_eq!(challenged_now["status"], expected, "a failed payment's client secret confirms nothing more");
    }

    // Back before authenticating, with no return_url: not finished, and no test mode's badge.
    let intent = live_intent(&app, "").await;
    let card = stripe.card_token("4000000000003220").await;
    let (_, waiting) = attach(&app, &intent, &card).await;
    let token = waiting["next_action"]["redirect_url"].as_str().unwrap().rsplit('/').next().unwrap().to_owned();
    let (status, _, _, html) = page(format!("{}/processor/return/{token}", app.address)).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("Not finished yet") && !html.contains("TEST MODE"), "{html}");
    let (_, still) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(still["status"], "awaiting_next_action");
    let (status, _, _, html) = page(format!("{}/processor/authenticate/{}", app.address, "x".repeat(40))).await;
    assert_eq!(status, 404, "{html}");
    let charged = stripe.payment_intents().await.iter().filter(|made| made["status"] == "succeeded").count();
    assert_eq!(charged, 1);
}

async fn a_payment_at_the_processor_that_no_attempt_claims_is_voided_there(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let url = webhook_url(&app).await;
    let intent = live_intent(&app, "&payment_method_options[card][capture_type]=manual").await;
    let (status, declined) = attach(&app, &intent, &stripe.card_token("4000000000000341").await).await;
    assert_eq!(status, 400, "{declined}");
    let refused = stripe.payment_intents().await;
    let payment = refused[0]["metadata"]["payrex_payment"].as_str().unwrap().to_owned();

    // The processor then holds money for that same attempt (a request of it that landed late):
    // the service recorded the attempt without it, so no intent claims the hold.
    let method = stripe.card_token("4242424242424242").await;
    let held = stripe
        .post(
            "/v1/payment_intents",
            &[
                ("amount", "10000"),
                ("currency", "php"),
                ("capture_method", "manual"),
                ("payment_method", &method),
                ("metadata[payrex_payment]", &payment),
            ],
        )
        .await;
    let held = held["id"].as_str().unwrap().to_owned();
    let confirmed = stripe.post(&format!("/v1/payment_intents/{held}/confirm"), &[]).await;
    assert_eq!(confirmed["status"], "requires_capture", "{confirmed}");

    // Its event comes: the service asks the processor, finds the hold no attempt claims, and
    // voids it there; the intent stays as the decline left it, with no payment.
    assert_eq!(send_event(&app, &url, &event("evt_unclaimed", &held, false), WEBHOOK_SECRET).await, 200);
    app.advance_and_run_due_actions(0).await;
    let at_processor = stripe.payment_intents().await;
    let released = at_processor.iter().find(|made| made["id"] == held.as_str()).unwrap();
    assert_eq!(released["status"], "canceled", "{released}");
    let (_, after) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(after["status"], "awaiting_payment_method", "{after}");
    assert_eq!((after["latest_payment"]["id"].as_str(), after["latest_payment"]["status"].as_str()), (Some(payment.as_str()), Some("failed")));
    assert_eq!(after["amount_capturable"], 0, "nothing recorded for the hold: {after}");

    // The intent is paid as usual afterwards, by a payment of its own, which stays held.
    let (status, paid) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("awaiting_capture")), "{paid}");
    let held = stripe.payment_intents().await.into_iter().find(|made| made["status"] == "requires_capture").unwrap();
    assert_eq!(send_event(&app, &url, &event("evt_claimed", held["id"].as_str().unwrap(), false), WEBHOOK_SECRET).await, 200);
    app.advance_and_run_due_actions(0).await;
    let still = stripe.payment_intents().await.into_iter().find(|made| made["id"] == held["id"]).unwrap();
    assert_eq!(still["status"], "requires_capture", "a claimed hold is left alone");
}

async fn saving_a_card_the_processor_cannot_save_is_refused_before_it_is_asked(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let (_, customer) = live(&app, Method::POST, "/customers", "name=Ana&email=ana@example.com&currency=PHP").await;
    let customer = customer["id"].as_str().unwrap();
    let components = crate::customer_sessions::SAVE_ENABLED;
    let (status, session) = live(&app, Method::POST, "/customer_sessions", &format!("customer_id={customer}&{components}")).await;
    assert_eq!(status, 200, "{session}");
    let intent = live_intent(&app, &format!("&customer_id={customer}")).await;
    let body = format!(
        "payment_method[type]=card&payment_method[card][token]={}&save_payment_method=true&customer_session_client_secret={}",
        stripe.card_token("4242424242424242").await,
        session["client_secret"].as_str().unwrap()
    );
    let (status, refused) = live(&app, Method::POST, &format!("/payment_intents/{intent}/attach"), &body).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["errors"][0]["parameter"], "save_payment_method", "{refused}");
    let (_, after) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(after["status"], "awaiting_payment_method", "unchanged: {after}");
    assert!(stripe.payment_intents().await.is_empty(), "the processor was not asked");
}

async fn a_hold_the_processor_released_itself_cancels_the_intent(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let intent = live_intent(&app, "&payment_method_options[card][capture_type]=manual").await;
    let (status, _) = attach(&app, &intent, &stripe.card_token("4242424242424242").await).await;
    assert_eq!(status, 200);
    // The hold expires at the processor (Stripe cancels it after seven days), before any capture.
    let held = stripe.payment_intents().await[0]["id"].as_str().unwrap().to_owned();
    stripe.post(&format!("/v1/payment_intents/{held}/cancel"), &[]).await;

    let (status, refused) = live(&app, Method::POST, &format!("/payment_intents/{intent}/capture"), "").await;
    assert_eq!(status, 400, "{refused}");
    let detail = single_error(&refused, "processing_error");
    assert!(detail.contains("released the hold"), "{detail}");
    let (_, after) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!((after["status"].as_str(), after["amount_received"].as_i64()), (Some("canceled"), Some(0)), "{after}");
}

async fn a_lost_read_after_the_charge_is_never_taken_for_nothing_charged(backend: Backend) {
    let stripe = LocalStripe::start().await;
    let proxy = FaultProxy::start(&stripe.url).await;
    let app = app_over(backend, &proxy.url).await;
    let intent = live_intent(&app, "").await;
    let card = stripe.card_token("4242424242424242").await;
    // The charge is made and answered; the read of its fee that follows loses its answer.
    proxy.lose_answer_to("/v1/balance_transactions/");
    let (status, processing) = attach(&app, &intent, &card).await;
    assert_eq!((status, processing["status"].as_str()), (200, Some("processing")), "not 'nothing was charged': {processing}");
    let (again, _) = attach(&app, &intent, &card).await;
    assert_eq!(again, 400, "the claim is not given back while the charge stands");
    assert!(app.advance_and_run_due_actions(40).await >= 1);
    let (_, settled) = live(&app, Method::GET, &format!("/payment_intents/{intent}"), "").await;
    assert_eq!(settled["status"], "succeeded", "{settled}");
    assert_eq!(stripe.payment_intents().await.len(), 1, "one charge");
}
