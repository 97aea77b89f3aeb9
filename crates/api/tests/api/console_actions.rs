//! The console offers exactly what the API accepts. For every state of every resource with actions,
//! the test builds one object to read its console page, and for each action a fresh object in the
//! same state: once to try the action through the API, once through the console's form. The three
//! answers must agree: a button is shown exactly when the API and the console's form take it.
//!
//! The actions' rules are the domain's and the services', whatever the backend: one run, on SQLite.

use crate::billing_statements::{add_item, customer, draft, open_statement};
use crate::console::{form_token, Console};
use crate::helpers::{read, TestApp};
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

on_one_backend!(
    a_payment_intents_page_offers_what_the_api_accepts_in_every_state,
    a_billing_statements_page_offers_what_the_api_accepts_in_every_state,
    a_checkout_sessions_page_offers_what_the_api_accepts_in_every_state,
    a_webhooks_page_offers_only_what_changes_it,
    the_balance_page_changes_the_schedule_only_where_the_api_does
);

const DAY: i64 = 24 * 60 * 60;
const SUCCEEDS: &str = "4242424242424242";
const DECLINED: &str = "4000000000000077";
const CHALLENGED: &str = "4000000000003220";
const PROCESSING: &str = "4000000000003337";

type Built<'a> = Pin<Box<dyn Future<Output = String> + Send + 'a>>;

/// Which of `actions` the console's page of `object` (under `list`) offers a form for.
async fn offered(console: &Console<'_>, list: &str, object: &str, actions: &[&'static str]) -> BTreeSet<&'static str> {
    let (status, page) = console.get(&format!("{list}/{object}")).await;
    assert_eq!(status, 200, "{list}/{object}: {page}");
    actions.iter().copied().filter(|action| page.contains(&format!("action=\"{list}/{object}/{action}\""))).collect()
}

/// Whether the console's form of `action` takes it (a 303 to the object's page with `?done=`), or
/// refuses it with a 4xx and the reason.
async fn console_takes(console: &Console<'_>, path: &str, fields: &[(&str, &str)]) -> bool {
    let (status, location) = console.post(path, fields).await;
    assert!(status == 303 || (400..500).contains(&status), "{path}: {status}");
    status == 303 && location.contains("?done=")
}

/// Whether the API takes `body` at `path`: a 2xx, or a 4xx in the contract's shape.
async fn api_takes(app: &TestApp, path: &str, body: &str) -> bool {
    let (status, answer) = app.post(path, body).await;
    assert!(status == 200 || (400..500).contains(&status), "{path}: {status} {answer}");
    if status != 200 {
        assert!(answer["errors"][0]["code"].is_string(), "{answer}");
    }
    status == 200
}

async fn intent(app: &TestApp, id: &str) -> serde_json::Value {
    let (status, intent) = read(app.get(&format!("/payment_intents/{id}")).await).await;
    assert_eq!(status, 200, "{intent}");
    intent
}

/// The id of the intent's latest payment, if it has one.
async fn latest_payment(app: &TestApp, intent_id: &str) -> Option<String> {
    let intent = intent(app, intent_id).await;
    let payment = &intent["latest_payment"];
    payment.as_str().or_else(|| payment["id"].as_str()).map(str::to_owned)
}

/// Pays `intent_id` with a card, asserting the status it ends in.
async fn attach(app: &TestApp, intent_id: &str, card: &str, status: &str) {
    let (code, answer) = app.attach_card(intent_id, card).await;
    let ended = intent(app, intent_id).await;
    assert_eq!(ended["status"], status, "{code} {answer}");
}

async fn refund(app: &TestApp, intent_id: &str, amount: i64) {
    let payment = latest_payment(app, intent_id).await.unwrap();
    let body = format!("amount={amount}&currency=PHP&payment_id={payment}&reason=others");
    let (status, answer) = app.post("/refunds", &body).await;
    assert_eq!(status, 200, "{answer}");
}

/// A payment intent of ₱200.00 in `state`: its id.
fn payment_intent_in<'a>(app: &'a TestApp, state: &'static str) -> Built<'a> {
    Box::pin(async move {
        let manual = "&payment_method_options[card][capture_type]=manual";
        let extra = if state == "awaiting_capture" { manual } else { "" };
        let own = |value: &serde_json::Value| value["id"].as_str().unwrap().to_owned();
        let id = match state {
            "owned by a checkout session" | "owned by a paid checkout session" => {
                let session = crate::checkout_sessions::create_session(app, "").await;
                own(&session["payment_intent"])
            }
            "owned by a billing statement" | "owned by a paid billing statement" => {
                own(&open_statement(app).await["payment_intent"])
            }
            _ => own(&app.create_intent(20_000, extra).await),
        };
        match state {
            "declined" => attach(app, &id, DECLINED, "awaiting_payment_method").await,
            "awaiting_next_action" => attach(app, &id, CHALLENGED, "awaiting_next_action").await,
            "processing" => attach(app, &id, PROCESSING, "processing").await,
            "awaiting_capture" => attach(app, &id, SUCCEEDS, "awaiting_capture").await,
            "canceled" => assert!(api_takes(app, &format!("/payment_intents/{id}/cancel"), "").await),
            "awaiting_payment_method" | "owned by a checkout session" | "owned by a billing statement" => {}
            paid => {
                attach(app, &id, SUCCEEDS, "succeeded").await;
                let amount = intent(app, &id).await["amount"].as_i64().unwrap();
                match paid {
                    "partly refunded" => refund(app, &id, 100).await,
                    "fully refunded" => refund(app, &id, amount).await,
                    _ => {}
                }
            }
        }
        id
    })
}

async fn a_payment_intents_page_offers_what_the_api_accepts_in_every_state(app: TestApp) {
    const LIST: &str = "/dashboard/payment_intents";
    const ACTIONS: [&str; 3] = ["capture", "cancel", "refund"];
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    let states = [
        "awaiting_payment_method",
        "declined",
        "awaiting_next_action",
        "processing",
        "awaiting_capture",
        "succeeded",
        "partly refunded",
        "fully refunded",
        "canceled",
        "owned by a checkout session",
        "owned by a paid checkout session",
        "owned by a billing statement",
        "owned by a paid billing statement",
    ];
    let mut offered_somewhere = BTreeSet::new();
    for state in states {
        let shown = offered(&console, LIST, &payment_intent_in(&app, state).await, &ACTIONS).await;
        let (mut by_api, mut by_console) = (BTreeSet::new(), BTreeSet::new());
        for action in ACTIONS {
            for through_console in [false, true] {
                let id = payment_intent_in(&app, state).await;
                let capturable = intent(&app, &id).await["amount_capturable"].as_i64().unwrap().max(1).to_string();
                let payment = latest_payment(&app, &id).await;
                let taken = match (action, through_console) {
                    ("refund", false) => match &payment {
                        Some(payment) => {
                            let body = format!("amount=100&currency=PHP&payment_id={payment}&reason=others");
                            api_takes(&app, "/refunds", &body).await
                        }
                        None => false,
                    },
                    ("capture", false) => {
                        api_takes(&app, &format!("/payment_intents/{id}/capture"), &format!("amount={capturable}"))
                            .await
                    }
                    (_, false) => api_takes(&app, &format!("/payment_intents/{id}/{action}"), "").await,
                    (_, true) => {
                        let payment = payment.unwrap_or_default();
                        let fields: Vec<(&str, &str)> = match action {
                            "capture" => vec![("form_token", &token), ("amount", &capturable)],
                            "refund" => vec![
                                ("form_token", &token),
                                ("payment_id", &payment),
                                ("currency", "PHP"),
                                ("amount", "100"),
                                ("reason", "others"),
                            ],
                            _ => vec![("form_token", &token)],
                        };
                        console_takes(&console, &format!("{LIST}/{id}/{action}"), &fields).await
                    }
                };
                if taken {
                    if through_console { &mut by_console } else { &mut by_api }.insert(action);
                }
            }
        }
        assert_eq!(shown, by_api, "an intent {state}: the page offers {shown:?}, the API takes {by_api:?}");
        assert_eq!(by_console, by_api, "an intent {state}: the console's forms take what the API takes");
        offered_somewhere.extend(shown);
    }
    assert_eq!(offered_somewhere, ACTIONS.into_iter().collect(), "every action is offered in some state");
}

/// A billing statement in `state`: its id.
fn billing_statement_in<'a>(app: &'a TestApp, state: &'static str) -> Built<'a> {
    Box::pin(async move {
        let own = |value: &serde_json::Value| value["id"].as_str().unwrap().to_owned();
        if state.starts_with("draft") || state == "empty draft" {
            let (customer_id, now) = customer(app).await;
            let id = own(&draft(app, &customer_id, now + 10 * DAY).await);
            if state != "empty draft" {
                add_item(app, &id, "Consulting", 150_000, 1).await;
            }
            if state == "draft of a deleted customer" {
                let (status, answer) = app.call(reqwest::Method::DELETE, format!("/customers/{customer_id}"), "".into()).await;
                assert_eq!(status, 200, "{answer}");
            }
            return id;
        }
        let open = open_statement(app).await;
        let (id, intent_id) = (own(&open), own(&open["payment_intent"]));
        match state {
            "open" => {}
            "open with its payment processing" => attach(app, &intent_id, PROCESSING, "processing").await,
            "paid" => attach(app, &intent_id, SUCCEEDS, "succeeded").await,
            "void" => assert!(api_takes(app, &format!("/billing_statements/{id}/void"), "").await),
            "uncollectible" => assert!(api_takes(app, &format!("/billing_statements/{id}/mark_uncollectible"), "").await),
            other => unreachable!("{other}"),
        }
        id
    })
}

async fn a_billing_statements_page_offers_what_the_api_accepts_in_every_state(app: TestApp) {
    const LIST: &str = "/dashboard/billing_statements";
    const ACTIONS: [&str; 4] = ["finalize", "send", "void", "mark_uncollectible"];
    let states = [
        "draft",
        "empty draft",
        "draft of a deleted customer",
        "open",
        "open with its payment processing",
        "paid",
        "void",
        "uncollectible",
    ];
    let mut offered_somewhere = BTreeSet::new();
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    for state in states {
        let shown = offered(&console, LIST, &billing_statement_in(&app, state).await, &ACTIONS).await;
        let (mut by_api, mut by_console) = (BTreeSet::new(), BTreeSet::new());
        for action in ACTIONS {
            let id = billing_statement_in(&app, state).await;
            if api_takes(&app, &format!("/billing_statements/{id}/{action}"), "").await {
                by_api.insert(action);
            }
            let id = billing_statement_in(&app, state).await;
            if console_takes(&console, &format!("{LIST}/{id}/{action}"), &[("form_token", &token)]).await {
                by_console.insert(action);
            }
        }
        assert_eq!(shown, by_api, "a statement {state}: the page offers {shown:?}, the API takes {by_api:?}");
        assert_eq!(by_console, by_api, "a statement {state}: the console's forms take what the API takes");
        offered_somewhere.extend(shown);
    }
    assert_eq!(offered_somewhere, ACTIONS.into_iter().collect(), "every action is offered in some state");
}

/// A checkout session in `state`: its id.
fn checkout_session_in<'a>(app: &'a TestApp, state: &'static str) -> Built<'a> {
    Box::pin(async move {
        let session = crate::checkout_sessions::create_session(app, "").await;
        let id = session["id"].as_str().unwrap().to_owned();
        let intent_id = session["payment_intent"]["id"].as_str().unwrap();
        match state {
            "active" => {}
            "active with its payment processing" => attach(app, intent_id, PROCESSING, "processing").await,
            "completed" => attach(app, intent_id, SUCCEEDS, "succeeded").await,
            "expired" => assert!(api_takes(app, &format!("/checkout_sessions/{id}/expire"), "").await),
            other => unreachable!("{other}"),
        }
        id
    })
}

async fn a_checkout_sessions_page_offers_what_the_api_accepts_in_every_state(app: TestApp) {
    const LIST: &str = "/dashboard/checkout_sessions";
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    for state in ["active", "active with its payment processing", "completed", "expired"] {
        let shown = !offered(&console, LIST, &checkout_session_in(&app, state).await, &["expire"]).await.is_empty();
        let id = checkout_session_in(&app, state).await;
        let by_api = api_takes(&app, &format!("/checkout_sessions/{id}/expire"), "").await;
        let id = checkout_session_in(&app, state).await;
        let by_console = console_takes(&console, &format!("{LIST}/{id}/expire"), &[("form_token", &token)]).await;
        assert_eq!((shown, by_console), (by_api, by_api), "a session {state}: offered, console, API");
        assert_eq!(by_api, state == "active", "only an active session without a processing payment expires");
    }
}

/// A webhook's page offers what changes it: disable an enabled one, enable a disabled one. The API
/// takes the other too, and it changes nothing (both are idempotent, as a retry needs).
async fn a_webhooks_page_offers_only_what_changes_it(app: TestApp) {
    const LIST: &str = "/dashboard/webhooks";
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    for (status, offers, idle) in [("enabled", "disable", "enable"), ("disabled", "enable", "disable")] {
        let webhook = crate::webhooks::register(&app, "https://shop.example/hooks", &["payment_intent.succeeded"]).await;
        let id = webhook["id"].as_str().unwrap();
        if status == "disabled" {
            assert!(api_takes(&app, &format!("/webhooks/{id}/disable"), "").await);
        }
        let shown = offered(&console, LIST, id, &["enable", "disable", "rotate_secret", "delete"]).await;
        let expected: BTreeSet<_> = [offers, "rotate_secret", "delete"].into_iter().collect();
        assert_eq!(shown, expected, "a webhook {status}");
        let (code, unchanged) = app.post(&format!("/webhooks/{id}/{idle}"), "").await;
        assert_eq!((code, unchanged["status"].as_str()), (200, Some(status)), "{idle} on a webhook {status}");
        let token = form_token(&console.get(&format!("{LIST}/{id}")).await.1);
        assert!(console_takes(&console, &format!("{LIST}/{id}/{offers}"), &[("form_token", &token)]).await);
        let (_, changed) = read(app.get(&format!("/webhooks/{id}")).await).await;
        assert_ne!(changed["status"], status, "{offers} changed it");
    }
}

/// The payout schedule and bank account: in test mode the Balance page offers them, its forms take
/// what the API's test helper takes, and neither writes an event; in live mode the page offers no
/// form and says why, and a form posted anyway is refused as the API refuses the live key, with
/// nothing changed.
async fn the_balance_page_changes_the_schedule_only_where_the_api_does(app: TestApp) {
    const BALANCE: &str = "/dashboard/balance";
    let bank = [
        ("bank_account[account_name]", "Acme Trading"),
        ("bank_account[account_number]", "000111111116"),
        ("bank_account[bank_name]", "Test Bank"),
    ];
    let schedule = |key: &str| {
        let request = app.request(reqwest::Method::GET, "/balance", key).send();
        async move { read(request.await.unwrap()).await.1["payout_schedule"].clone() }
    };
    let events = |key: &str| {
        let request = app.request(reqwest::Method::GET, "/events?limit=100", key).send();
        async move { read(request.await.unwrap()).await.1["data"].as_array().map_or(0, Vec::len) }
    };

    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let (_, page) = console.get(BALANCE).await;
    assert!(page.contains("Save bank account") && page.contains("Save schedule"), "{page}");
    let token = console.form_token().await;
    let mut fields = vec![("form_token", token.as_str())];
    fields.extend(bank);
    assert!(console_takes(&console, &format!("{BALANCE}/schedule"), &fields).await);
    assert_eq!(schedule(&app.keys.secret_test).await["destination"]["account_number"], "000111111116");
    let body = "bank_account[account_name]=Acme&bank_account[account_number]=000123456789&bank_account[bank_name]=Test+Bank";
    assert!(api_takes(&app, "/test_helpers/payout_schedule", body).await);
    assert_eq!(events(&app.keys.secret_test).await, 0, "a schedule change is no event, by the console or the API");

    let live_before = schedule(&app.keys.secret_live).await;
    assert!(live_before.is_object(), "{live_before}");
    let refused = app.request(reqwest::Method::POST, "/test_helpers/payout_schedule", &app.keys.secret_live).form(&bank).send();
    let (status, body) = read(refused.await.unwrap()).await;
    assert_eq!(status, 400, "the API refuses the live key: {body}");
    let mut live = Console::new(&app);
    live.sign_in(&app.keys.secret_live).await;
    let (_, page) = live.get(BALANCE).await;
    assert!(!page.contains("Save bank account") && !page.contains("Save schedule"), "no form in live mode: {page}");
    assert!(page.contains("payout schedule and bank account are set by the service"), "{page}");
    let token = live.form_token().await;
    let mut fields = vec![("form_token", token.as_str())];
    fields.extend(bank);
    assert!(!console_takes(&live, &format!("{BALANCE}/schedule"), &fields).await, "the console refuses it too");
    assert_eq!(schedule(&app.keys.secret_live).await, live_before, "nothing changed");
    assert_eq!(events(&app.keys.secret_live).await, 0);
}
