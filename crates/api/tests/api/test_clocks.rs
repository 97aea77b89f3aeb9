//! Test clocks and test helpers: an account's test mode moves its own clock forward, and everything
//! that falls due by then has happened when the advance answers, in order, with its events and
//! webhooks; the helpers finish a redirect or a processing payment without a browser.

use crate::billing_statements::{add_item, customer, draft};
use crate::checkout_sessions::create_session;
use crate::console::Console;
use crate::helpers::{error_codes, ids, read, single_error, TestApp};
use crate::receiver::Receiver;
use crate::webhooks::{pay, register};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::Value;
use std::time::Duration;

on_both_backends!(a_checkout_session_expires_and_its_webhook_arrives_when_the_clock_passes_it);
on_both_backends!(a_statement_due_next_week_reminds_then_goes_overdue_in_twelve_days);
on_both_backends!(holds_are_released_processing_settles_and_redirects_expire_on_advance);
on_both_backends!(the_account_takes_its_times_from_its_clock);
on_both_backends!(each_account_has_its_own_clock_in_test_mode_only);
on_both_backends!(bad_moves_are_refused_and_change_nothing);
on_both_backends!(helpers_finish_redirects_and_processing_without_a_browser);
on_both_backends!(an_advance_racing_captures_settles_each_hold_once);
on_one_backend!(the_console_shows_a_moved_clock);
on_both_backends!(each_of_concurrent_advances_answers_once_its_own_time_is_done);
on_both_backends_with!(|settings| {
    settings.webhooks.retry_base_ms = 3_600_000;
    settings.webhooks.retry_cap_ms = 3_600_000;
} => a_webhook_retry_the_clock_jumps_over_is_sent_at_once, webhooks_of_a_moved_clock_go_out_at_once);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_with_one_advance_release_each_hold_once() {
    let app = crate::helpers::spawn_app(payments_adapters::db::Backend::Postgres).await;
    let mut settings = payments_api::settings::Settings::load().unwrap();
    settings.database.url = app.database.url().to_owned();
    let settings = settings.validate().unwrap();
    let other_instance = tokio::task::spawn_blocking({
        let real_time = app.clock.clone();
        move || payments_api::state::Services::connect(&settings, real_time).unwrap()
    })
    .await
    .unwrap();
    let holds = 12;
    for _ in 0..holds {
        let intent = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
        app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    }
    let other_runs = async {
        let mut moved = 0;
        for _ in 0..20 {
            let due_work = other_instance.due_work.clone();
            moved += tokio::task::spawn_blocking(move || due_work.run(1_000).unwrap()).await.unwrap();
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        moved
    };
    let (_, moved_by_other) = tokio::join!(advance_by(&app, HOLD_SECONDS + 60), other_runs);
    assert!(moved_by_other <= holds, "{moved_by_other}");
    assert_eq!(
        events_of(&app, "payment_intent.canceled").await.len(),
        holds,
        "each hold released once, by one instance"
    );
}

const DAY: i64 = 24 * 60 * 60;
const HOLD_SECONDS: i64 = 7 * DAY;
const THREE_D_SECURE: &str = "4000000000003220";
const PROCESSING: &str = "4000000000003337";

/// The test clock as the test secret key reads it.
async fn clock(app: &TestApp) -> Value {
    let (status, clock) = read(app.get("/test_helpers/clock").await).await;
    assert_eq!(status, 200, "{clock}");
    clock
}

/// Advances the test account's clock with a form body; returns the status and the answer.
async fn advance(app: &TestApp, body: &str) -> (u16, Value) {
    app.post("/test_helpers/clock/advance", body).await
}

async fn advance_by(app: &TestApp, seconds: i64) -> Value {
    let (status, clock) = advance(app, &format!("seconds={seconds}")).await;
    assert_eq!(status, 200, "{clock}");
    clock
}

async fn object(app: &TestApp, path: &str) -> Value {
    let (status, object) = read(app.get(path).await).await;
    assert_eq!(status, 200, "{object}");
    object
}

/// The test account's events of `kind`, oldest first.
async fn events_of(app: &TestApp, kind: &str) -> Vec<Value> {
    let list = object(app, &format!("/events?limit=100&type={kind}")).await;
    let mut events = list["data"].as_array().cloned().unwrap_or_default();
    events.reverse();
    events
}

fn unix_now() -> i64 {
    i64::try_from(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()).unwrap()
}

async fn a_checkout_session_expires_and_its_webhook_arrives_when_the_clock_passes_it(app: TestApp) {
    let receiver = Receiver::start(Vec::new());
    register(&app, &receiver.url, &["checkout_session.expired"]).await;
    let session = create_session(&app, "").await;
    let id = session["id"].as_str().unwrap();
    let body = "line_items[0][name]=Mug&line_items[0][amount]=50000&line_items[0][quantity]=1&payment_methods[]=card\
                &success_url=https%3A%2F%2Fshop.example%2Fdone&cancel_url=https%3A%2F%2Fshop.example%2Fcart";
    let (status, elsewhere) =
        read(app.form(Method::POST, "/checkout_sessions", &app.other_account_key, body).await).await;
    assert_eq!(status, 200, "{elsewhere}");

    let moved = advance_by(&app, DAY).await;
    assert_eq!((moved["resource"].as_str(), moved["livemode"].as_bool()), (Some("test_clock"), Some(false)));
    assert!(moved["seconds_ahead"].as_i64().unwrap() >= DAY, "{moved}");
    let expired = object(&app, &format!("/checkout_sessions/{id}")).await;
    assert_eq!(expired["status"], "expired", "expired before the advance answered");
    assert_eq!(expired["payment_intent"]["status"], "canceled");
    let events = events_of(&app, "checkout_session.expired").await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["data"]["id"], id);
    assert_eq!(events[0]["created_at"], session["expires_at"], "the event happened when the session expired");
    let received = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert!(received[0].body.contains(id), "{}", received[0].body);

    let other_id = elsewhere["id"].as_str().unwrap();
    let path = format!("/checkout_sessions/{other_id}");
    let (_, untouched) = read(app.request(Method::GET, &path, &app.other_account_key).send().await.unwrap()).await;
    assert_eq!(untouched["status"], "active", "another account's clock did not move");
}

async fn a_statement_due_next_week_reminds_then_goes_overdue_in_twelve_days(app: TestApp) {
    let (customer_id, now) = customer(&app).await;
    let due_at = now + 7 * DAY;
    let statement = draft(&app, &customer_id, due_at).await;
    let id = statement["id"].as_str().unwrap();
    add_item(&app, id, "Consulting", 150_000, 1).await;
    let (status, open) = app.post(&format!("/billing_statements/{id}/finalize"), "").await;
    assert_eq!(status, 200, "{open}");

    advance_by(&app, 12 * DAY).await;
    let all = object(&app, "/events?limit=100").await;
    let mut reminders: Vec<(String, i64)> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["type"].as_str().unwrap().starts_with("billing_statement.") && event["data"]["id"] == id)
        .filter(|event| {
            matches!(event["type"].as_str(), Some("billing_statement.will_be_due" | "billing_statement.overdue"))
        })
        .map(|event| (event["type"].as_str().unwrap().to_owned(), event["created_at"].as_i64().unwrap()))
        .collect();
    reminders.reverse();
    assert_eq!(
        reminders,
        vec![
            ("billing_statement.will_be_due".to_owned(), due_at - 5 * DAY),
            ("billing_statement.overdue".to_owned(), due_at + 5 * DAY),
        ],
        "both reminders, in order, each at its time"
    );
    advance_by(&app, 30 * DAY).await;
    assert_eq!(events_of(&app, "billing_statement.overdue").await.len(), 1, "each reminder once");
}

async fn holds_are_released_processing_settles_and_redirects_expire_on_advance(app: TestApp) {
    let held = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
    let held_id = held["id"].as_str().unwrap();
    let (status, authorized) = app.attach_card(held_id, "4242424242424242").await;
    assert_eq!((status, authorized["status"].as_str()), (200, Some("awaiting_capture")));
    let processing = app.create_intent(10_000, "").await;
    let processing_id = processing["id"].as_str().unwrap();
    let (status, pending) = app.attach_card(processing_id, PROCESSING).await;
    assert_eq!((status, pending["status"].as_str()), (200, Some("processing")));
    let wallet = app.create_intent(10_000, "").await;
    let wallet_id = wallet["id"].as_str().unwrap();
    let (status, redirected) =
        app.post(&format!("/payment_intents/{wallet_id}/attach"), "payment_method[type]=gcash").await;
    assert_eq!((status, redirected["status"].as_str()), (200, Some("awaiting_next_action")), "{redirected}");

    advance_by(&app, 60).await;
    let settled = object(&app, &format!("/payment_intents/{processing_id}")).await;
    assert_eq!(settled["status"], "succeeded", "a processing payment settles within a minute");
    assert_eq!(object(&app, &format!("/payment_intents/{wallet_id}")).await["status"], "awaiting_next_action");

    advance_by(&app, 31 * 60).await;
    let abandoned = object(&app, &format!("/payment_intents/{wallet_id}")).await;
    assert_eq!(abandoned["status"], "awaiting_payment_method");
    assert_eq!(abandoned["last_payment_error"]["code"], "authentication_expired");
    assert_eq!(object(&app, &format!("/payment_intents/{held_id}")).await["status"], "awaiting_capture");

    advance_by(&app, HOLD_SECONDS).await;
    let released = object(&app, &format!("/payment_intents/{held_id}")).await;
    assert_eq!(released["status"], "canceled", "the hold was released at capture_before_at");
    let canceled = events_of(&app, "payment_intent.canceled").await;
    assert_eq!(canceled.len(), 1);
    assert_eq!(canceled[0]["created_at"], authorized["capture_before_at"]);
    let (status, body) = app.post(&format!("/payment_intents/{held_id}/capture"), "").await;
    assert_eq!(status, 400);
    single_error(&body, "resource_invalid_state");
}

async fn the_account_takes_its_times_from_its_clock(app: TestApp) {
    advance_by(&app, 10 * DAY).await;
    let now = clock(&app).await["now"].as_i64().unwrap();
    assert!((now - (unix_now() + 10 * DAY)).abs() <= 5, "the clock stands ten days ahead: {now}");
    let (customer_id, created_at) = customer(&app).await;
    assert!((created_at - now).abs() <= 5, "created_at {created_at} is the clock's {now}");
    let held = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
    let (_, authorized) = app.attach_card(held["id"].as_str().unwrap(), "4242424242424242").await;
    let deadline = authorized["capture_before_at"].as_i64().unwrap();
    assert!((deadline - (now + HOLD_SECONDS)).abs() <= 5, "capture_before_at is seven days after the clock's now");
    let session = create_session(&app, "").await;
    assert_eq!(session["expires_at"].as_i64().unwrap() - session["created_at"].as_i64().unwrap(), DAY);
    assert!((session["created_at"].as_i64().unwrap() - now).abs() <= 5);

    // "due_at in the future" is the clock's future: tomorrow in real time is past on the clock.
    let body =
        format!("customer_id={customer_id}&due_at={}&payment_settings[payment_methods][]=card", unix_now() + DAY);
    let (status, refused) = app.post("/billing_statements", &body).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(error_codes(&refused), vec![("due_at".to_owned(), "parameter_below_minimum".to_owned())]);
    let event = &object(&app, "/events?limit=1").await["data"][0];
    assert!((event["created_at"].as_i64().unwrap() - now).abs() <= 5, "events take the clock's time: {event}");

    // A customer session lasts 24 hours of the clock.
    let components = "components[][component]=payment_element&components[][feature]=payment_method_redisplay\
                      &components[][value]=enabled";
    let (status, session) = app.post("/customer_sessions", &format!("customer_id={customer_id}&{components}")).await;
    assert_eq!(status, 200, "{session}");
    let session_id = session["id"].as_str().unwrap();
    assert_eq!(object(&app, &format!("/customer_sessions/{session_id}")).await["expired"], false);
    advance_by(&app, DAY + 60).await;
    assert_eq!(object(&app, &format!("/customer_sessions/{session_id}")).await["expired"], true);
}

async fn each_account_has_its_own_clock_in_test_mode_only(app: TestApp) {
    let fresh = clock(&app).await;
    assert_eq!(fresh["seconds_ahead"], 0, "a clock starts at real time: {fresh}");
    advance_by(&app, 3 * DAY).await;
    let other =
        read(app.request(Method::GET, "/test_helpers/clock", &app.other_account_key).send().await.unwrap()).await.1;
    assert_eq!(other["seconds_ahead"], 0, "the other account's clock stayed: {other}");
    let other_customer = read(
        app.form(Method::POST, "/customers", &app.other_account_key, "name=B&email=b%40example.com&currency=PHP").await,
    )
    .await
    .1;
    assert!((other_customer["created_at"].as_i64().unwrap() - unix_now()).abs() <= 5, "real time there");

    let live =
        app.form(Method::POST, "/customers", &app.keys.secret_live, "name=L&email=l%40example.com&currency=PHP").await;
    let live_customer = read(live).await.1;
    assert!((live_customer["created_at"].as_i64().unwrap() - unix_now()).abs() <= 5, "live mode runs on real time");
    for (key, words) in [(&app.keys.secret_live, "live mode"), (&app.keys.public_test, "public key")] {
        for (method, path) in [(Method::GET, "/test_helpers/clock"), (Method::POST, "/test_helpers/clock/advance")] {
            let response = app.request(method.clone(), path, key).form(&[("seconds", "60")]).send().await.unwrap();
            let (status, body) = read(response).await;
            assert_eq!(status, 400, "{method} {path}: {body}");
            assert!(single_error(&body, "parameter_invalid").contains(words), "{body}");
        }
    }
    assert!(clock(&app).await["seconds_ahead"].as_i64().unwrap() < 3 * DAY + 5, "nothing moved it");
}

async fn bad_moves_are_refused_and_change_nothing(app: TestApp) {
    advance_by(&app, DAY).await;
    let before = clock(&app).await;
    let now = before["now"].as_i64().unwrap();
    let cases = [
        ("seconds=-1".to_owned(), "seconds", "parameter_below_minimum"),
        ("seconds=99999999999999".to_owned(), "seconds", "parameter_above_maximum"),
        ("seconds=9223372036854775807".to_owned(), "seconds", "parameter_above_maximum"),
        ("seconds=99999999999999999999999".to_owned(), "seconds", "parameter_type_invalid"),
        ("seconds=abc".to_owned(), "seconds", "parameter_type_invalid"),
        ("seconds=1.5".to_owned(), "seconds", "parameter_type_invalid"),
        ("seconds=10%0A".to_owned(), "seconds", "parameter_type_invalid"),
        ("seconds=%2010".to_owned(), "seconds", "parameter_type_invalid"),
        ("seconds=%2B10".to_owned(), "seconds", "parameter_type_invalid"),
        (format!("to={}", now - 3_600), "to", "parameter_below_minimum"),
        ("to=253402300800".to_owned(), "to", "parameter_above_maximum"),
        ("to=-5".to_owned(), "to", "parameter_below_minimum"),
        (format!("to={}&seconds=60", now + 60), "seconds", "parameter_invalid"),
        (String::new(), "seconds", "parameter_required"),
        ("minutes=5".to_owned(), "minutes", "parameter_invalid"),
    ];
    for (body, parameter, code) in cases {
        let (status, refused) = advance(&app, &body).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(error_codes(&refused).contains(&(parameter.to_owned(), code.to_owned())), "{body}: {refused}");
    }
    let response = app
        .json(
            Method::POST,
            "/test_helpers/clock/advance",
            &app.keys.secret_test,
            &serde_json::json!({"seconds": "ten"}),
        )
        .await;
    assert_eq!(read(response).await.0, 400);
    let after = clock(&app).await;
    assert_eq!(after["seconds_ahead"], before["seconds_ahead"], "no refused move moved the clock");
    let (status, moved) = advance(&app, &format!("to={}", now + 2 * DAY)).await;
    assert_eq!(status, 200, "{moved}");
    assert!((moved["now"].as_i64().unwrap() - (now + 2 * DAY)).abs() <= 2, "{moved}");
}

async fn helpers_finish_redirects_and_processing_without_a_browser(app: TestApp) {
    let helper = |kind: &str, id: &str, action: &str| format!("/test_helpers/{kind}/{id}/{action}");
    // A 3-D Secure challenge, authorized.
    let intent = app.create_intent(10_000, "").await;
    let id = intent["id"].as_str().unwrap().to_owned();
    assert_eq!(app.attach_card(&id, THREE_D_SECURE).await.1["status"], "awaiting_next_action");
    let (status, paid) = app.post(&helper("payment_intents", &id, "complete_redirect"), "outcome=approved").await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    assert_eq!(paid["latest_payment"]["status"], "paid");
    let (status, again) = app.post(&helper("payment_intents", &id, "complete_redirect"), "outcome=approved").await;
    assert_eq!(status, 400, "nothing is pending any more: {again}");
    single_error(&again, "resource_invalid_state");

    // An e-wallet redirect declined with a chosen code, and one with the page's own failure.
    for (body, code) in [
        ("outcome=declined&decline_code=funds_insufficient", "funds_insufficient"),
        ("outcome=declined", "authentication_failed"),
    ] {
        let intent = app.create_intent(10_000, "").await;
        let id = intent["id"].as_str().unwrap().to_owned();
        app.post(&format!("/payment_intents/{id}/attach"), "payment_method[type]=maya").await;
        let (status, declined) = app.post(&helper("payment_intents", &id, "complete_redirect"), body).await;
        assert_eq!(status, 200, "{declined}");
        assert_eq!(
            (declined["status"].as_str(), declined["last_payment_error"]["code"].as_str()),
            (Some("awaiting_payment_method"), Some(code))
        );
        assert_eq!(declined["latest_payment"]["status"], "failed");
    }

    // Processing, declined then (a second attempt) settled.
    let intent = app.create_intent(10_000, "").await;
    let id = intent["id"].as_str().unwrap().to_owned();
    app.attach_card(&id, PROCESSING).await;
    let (status, declined) = app
        .post(&helper("payment_intents", &id, "finish_processing"), "outcome=declined&decline_code=card_declined")
        .await;
    assert_eq!((status, declined["last_payment_error"]["code"].as_str()), (200, Some("card_declined")), "{declined}");
    app.attach_card(&id, PROCESSING).await;
    let (status, settled) = app.post(&helper("payment_intents", &id, "finish_processing"), "outcome=approved").await;
    assert_eq!((status, settled["status"].as_str()), (200, Some("succeeded")), "{settled}");
    assert!(app.event_types().await.contains(&"payment_intent.succeeded".to_owned()));

    // A setup intent's 3-D Secure redirect, authorized: the card is saved.
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let (_, setup) = app
        .post(
            "/setup_intents",
            &format!("customer_id={customer_id}&payment_methods[]=card&return_url=https%3A%2F%2Fshop.example%2Fsaved"),
        )
        .await;
    let setup_id = setup["id"].as_str().unwrap().to_owned();
    let card = format!("payment_method[type]=card&payment_method[card][number]={THREE_D_SECURE}&payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123");
    assert_eq!(app.post(&format!("/setup_intents/{setup_id}/attach"), &card).await.1["status"], "awaiting_next_action");
    let (status, saved) = app.post(&helper("setup_intents", &setup_id, "complete_redirect"), "outcome=approved").await;
    assert_eq!((status, saved["status"].as_str()), (200, Some("succeeded")), "{saved}");
    let methods = object(&app, &format!("/customers/{customer_id}/payment_methods")).await;
    assert_eq!(ids(&methods).len(), 1);

    // Refused: bad outcomes and codes, live mode, another account, a missing object.
    let intent = app.create_intent(10_000, "").await;
    let id = intent["id"].as_str().unwrap().to_owned();
    app.attach_card(&id, THREE_D_SECURE).await;
    for (body, parameter, code) in [
        ("", "outcome", "parameter_required"),
        ("outcome=maybe", "outcome", "parameter_invalid"),
        ("outcome=declined&decline_code=Not%20A%20Code", "decline_code", "parameter_invalid"),
        ("outcome=approved&decline_code=card_declined", "decline_code", "parameter_invalid"),
    ] {
        let (status, refused) = app.post(&helper("payment_intents", &id, "complete_redirect"), body).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(error_codes(&refused).contains(&(parameter.to_owned(), code.to_owned())), "{body}: {refused}");
    }
    let path = helper("payment_intents", &id, "complete_redirect");
    let live = read(app.form(Method::POST, &path, &app.keys.secret_live, "outcome=approved").await).await;
    assert_eq!(live.0, 400, "{}", live.1);
    let other = read(app.form(Method::POST, &path, &app.other_account_key, "outcome=approved").await).await;
    assert_eq!(other.0, 404, "{}", other.1);
    let missing = app.post(&helper("payment_intents", "pi_nope", "finish_processing"), "outcome=approved").await;
    assert_eq!(missing.0, 404);
    assert_eq!(
        object(&app, &format!("/payment_intents/{id}")).await["status"],
        "awaiting_next_action",
        "nothing changed"
    );
}

async fn an_advance_racing_captures_settles_each_hold_once(app: TestApp) {
    let mut held = Vec::new();
    for _ in 0..8 {
        let intent = app.create_intent(10_000, "&payment_method_options[card][capture_type]=manual").await;
        let id = intent["id"].as_str().unwrap().to_owned();
        app.attach_card(&id, "4242424242424242").await;
        held.push(id);
    }
    let captures =
        held.iter().map(|id| app.call(Method::POST, format!("/payment_intents/{id}/capture"), String::new()));
    let advance = async { advance_by(&app, HOLD_SECONDS + 60).await };
    let (answers, _) = tokio::join!(join_all(captures), advance);
    let mut captured = 0;
    for (id, (status, _)) in held.iter().zip(&answers) {
        let intent = object(&app, &format!("/payment_intents/{id}")).await;
        match intent["status"].as_str() {
            Some("succeeded") => {
                assert_eq!(*status, 200);
                captured += 1;
            }
            Some("canceled") => assert_eq!(*status, 400, "a capture after the release is refused"),
            other => panic!("{id} is half-way: {other:?}"),
        }
    }
    assert_eq!(events_of(&app, "payment_intent.succeeded").await.len(), captured);
    assert_eq!(events_of(&app, "payment_intent.canceled").await.len(), held.len() - captured, "each release once");
    assert_eq!(events_of(&app, "payment.paid").await.len(), captured, "each capture pays once");
}

async fn a_webhook_retry_the_clock_jumps_over_is_sent_at_once(app: TestApp) {
    let receiver = Receiver::start(vec![crate::receiver::Reply::Status(500)]);
    register(&app, &receiver.url, &["payment.paid"]).await;
    pay(&app).await;
    let first = receiver.wait_for(1, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received().len(), 1, "the retry waits an hour: {first:?}");
    advance_by(&app, 2 * 3_600).await;
    let retried = receiver.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(retried[0].body, retried[1].body, "the same event, sent again");
}

async fn the_console_shows_a_moved_clock(app: TestApp) {
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    assert!(!console.get("/dashboard").await.1.contains("Test clock"), "a clock at real time is not shown");
    let now = advance_by(&app, 3 * DAY).await["now"].as_i64().unwrap();
    let (status, page) = console.get("/dashboard").await;
    assert_eq!(status, 200);
    let (year, month, day) = payments_domain::time::Timestamp::from_unix_seconds(now).civil_date();
    assert!(page.contains(&format!("Test clock {year}-{month:02}-{day:02}")), "{page}");
    let mut live = Console::new(&app);
    live.sign_in(&app.keys.secret_live).await;
    assert!(!live.get("/dashboard").await.1.contains("Test clock"), "live mode has no clock");
}

async fn webhooks_of_a_moved_clock_go_out_at_once(app: TestApp) {
    advance_by(&app, 49 * DAY).await;
    let receiver = Receiver::start(vec![crate::receiver::Reply::Status(500)]);
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    pay(&app).await;
    let received = receiver.wait_for(1, Duration::from_secs(10)).await;
    assert!(received[0].body.contains("payment.paid"), "deliveries keep real time: {}", received[0].body);

    // Answered 500, so a retry waits; paused and resumed on the moved clock, it is due at once in
    // real time too.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received().len(), 1, "the retry waits an hour");
    let id = webhook["id"].as_str().unwrap();
    assert_eq!(app.post(&format!("/webhooks/{id}/disable"), "").await.0, 200);
    assert_eq!(app.post(&format!("/webhooks/{id}/enable"), "").await.0, 200);
    let retried = receiver.wait_for(2, Duration::from_secs(10)).await;
    assert_eq!(retried[0].body, retried[1].body);
}

async fn each_of_concurrent_advances_answers_once_its_own_time_is_done(app: TestApp) {
    let start = clock(&app).await["now"].as_i64().unwrap();
    let mut sessions = Vec::new();
    for hour in 1..=5 {
        let session = create_session(&app, &format!("&expires_at={}", start + hour * 3_600 - 60)).await;
        sessions.push((session["id"].as_str().unwrap().to_owned(), session["expires_at"].as_i64().unwrap()));
    }
    let advances = (0..5).map(|_| async {
        let (status, moved) = advance(&app, "seconds=3600").await;
        assert_eq!(status, 200, "{moved}");
        let now = moved["now"].as_i64().unwrap();
        for (id, expires_at) in &sessions {
            if *expires_at <= now {
                let session = object(&app, &format!("/checkout_sessions/{id}")).await;
                assert_eq!(session["status"], "expired", "{id} expired at {expires_at}, before the answer's {now}");
            }
        }
        moved["seconds_ahead"].as_i64().unwrap()
    });
    let mut ahead = join_all(advances).await;
    ahead.sort_unstable();
    assert_eq!(ahead, vec![3_600, 7_200, 10_800, 14_400, 18_000], "each answer is the clock as its own move left it");
    assert_eq!(clock(&app).await["seconds_ahead"], 18_000, "the moves add up");
}
