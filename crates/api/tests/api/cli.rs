//! The client commands of the `payments` binary, run as processes against a running service:
//! `trigger` for every event type, `fixtures` (the docs' example and a bad reference), `listen`
//! forwarding to real receivers and resuming across a restart of the service, `logs tail`,
//! `events resend` and `webhooks recover`, and what each says when it cannot do its job.

use crate::command::{payments, Running};
use crate::helpers::{read, TestApp};
use crate::instance::Instance;
use crate::receiver::{Receiver, Reply};
use crate::webhooks::{pay, register, verify};
use payments_adapters::db::testing::TestDatabase;
use payments_adapters::db::Backend;
use payments_domain::event::EventType;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(20);

on_both_backends!(
    trigger_makes_every_event_type_happen,
    the_docs_fixtures_seed_a_customer_a_checkout_session_and_a_statement,
    listen_forwards_signed_events_by_rule_and_retries_a_failed_forward,
    events_resend_reaches_every_webhook_that_listens,
);
on_both_backends_with!(|settings| settings.webhooks.give_up_after_seconds = 1 => webhooks_recover_requeues_what_failed);
on_one_backend!(
    trigger_overrides_fields_and_refuses_bad_input_before_any_request,
    trigger_through_a_page_makes_a_payment_that_carries_its_page_session,
    a_fixture_with_a_bad_reference_fails_with_its_line_and_name,
    the_docs_payout_fixtures_make_a_payout_of_two_payments_and_a_refund,
    the_docs_page_fixtures_make_a_storefront_and_pay_an_order_on_it,
    logs_tail_follows_the_request_log_with_its_filters,
    client_commands_say_what_they_need,
);

async fn trigger_makes_every_event_type_happen(app: TestApp) {
    let own = "bank_account[account_name]=Mine%20Inc&bank_account[account_number]=5550001111&bank_account[bank_name]=BPI";
    assert_eq!(app.post("/test_helpers/payout_schedule", own).await.0, 200);
    for event_type in EventType::ALL {
        let ran = payments(&app.address, &app.keys.secret_test, &["trigger", event_type.as_str(), "--json"]).await;
        assert!(ran.success, "{event_type:?}: {ran:?}");
        let lines = ran.json_lines();
        let made: Vec<&Value> = lines.iter().filter(|line| line["type"] == "event").collect();
        assert!(!made.is_empty(), "{event_type:?}: {ran:?}");
        for event in made {
            let (status, stored) = read(app.get(&format!("/events/{}", event["id"].as_str().unwrap())).await).await;
            assert_eq!((status, stored["type"].as_str()), (200, Some(event_type.as_str())), "{stored}");
        }
    }
    let (_, balance) = read(app.get("/balance").await).await;
    let destination = &balance["payout_schedule"]["destination"];
    assert_eq!(
        (&destination["account_name"], &destination["account_number"], &destination["bank_name"]),
        (&json!("Mine Inc"), &json!("5550001111"), &json!("BPI")),
        "payout.failed sets back the account's own bank account"
    );
}

async fn trigger_overrides_fields_and_refuses_bad_input_before_any_request(app: TestApp) {
    let key = &app.keys.secret_test;
    let overrides = ["--override", "payment_intent:amount=7500", "--override", "payment_intent:metadata.order_id=42"];
    let ran =
        payments(&app.address, key, &[&["trigger", "payment_intent.succeeded", "--json"], &overrides[..]].concat())
            .await;
    assert!(ran.success, "{ran:?}");
    let intent = &ran.json_lines()[1]["answer"];
    assert_eq!((intent["amount"].as_i64(), intent["status"].as_str()), (Some(7500), Some("succeeded")), "{intent}");
    assert_eq!(intent["metadata"]["order_id"], "42");

    let before = app.event_types().await.len();
    for (args, says) in [
        (vec!["trigger", "payment_intent.exploded"], "unknown event type \"payment_intent.exploded\""),
        (vec!["trigger", "payment_intent.succeeded", "--override", "nope:amount=1"], "has no step \"nope\""),
        (vec!["trigger", "payment_intent.succeeded", "--override", "payment_intent:amount=lots"], "is a whole number"),
        (vec!["trigger", "payment_intent.succeeded", "--override", "amount"], "expected STEP:PATH=VALUE"),
        (vec!["trigger"], "required"),
    ] {
        let ran = payments(&app.address, key, &args).await;
        assert!(!ran.success && ran.stderr.contains(says), "{args:?}: {ran:?}");
    }
    assert_eq!(app.event_types().await.len(), before, "a refused trigger made nothing");
    // Two at once: each reports the event of its own objects only.
    let (first, second) = tokio::join!(
        payments(&app.address, key, &["trigger", "payment.paid", "--json"]),
        payments(&app.address, key, &["trigger", "payment.paid", "--json"])
    );
    let reported = |ran: &crate::command::Finished| -> Vec<String> {
        ran.json_lines().iter().filter(|l| l["type"] == "event").map(|l| l["id"].as_str().unwrap().to_owned()).collect()
    };
    let (first, second) = (reported(&first), reported(&second));
    assert!(first.len() == 1 && second.len() == 1 && first != second, "{first:?} {second:?}");
    // The service's refusal, as it said it: live mode has no processor.
    let ran = payments(&app.address, &app.keys.secret_live, &["trigger", "payment.paid"]).await;
    assert!(!ran.success && ran.stderr.contains("503"), "{ran:?}");
    let listed = payments(&app.address, "", &["trigger", "--list", "--json"]).await;
    assert!(listed.success, "--list needs no key: {listed:?}");
    let listed: BTreeSet<String> =
        listed.json_lines().iter().map(|line| line["event_type"].as_str().unwrap().to_owned()).collect();
    assert_eq!(listed, EventType::ALL.iter().map(|t| t.as_str().to_owned()).collect());
}

async fn the_docs_fixtures_seed_a_customer_a_checkout_session_and_a_statement(app: TestApp) {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/fixtures/seed.json");
    let ran = payments(&app.address, &app.keys.secret_test, &["fixtures", file, "--json"]).await;
    assert!(ran.success, "{ran:?}");
    let made: Vec<(String, Value)> = ran
        .json_lines()
        .into_iter()
        .map(|line| (line["name"].as_str().unwrap().to_owned(), line["answer"].clone()))
        .collect();
    let names: Vec<&str> = made.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["customer", "checkout_session", "clock", "billing_statement", "line_item", "finalized"]);
    let customer_id = made[0].1["id"].as_str().unwrap();
    let (_, sessions) = read(app.get(&format!("/checkout_sessions?customer_reference_id={customer_id}")).await).await;
    assert_eq!(sessions["data"][0]["amount"], 125_000, "{sessions}");
    let (_, statements) = read(app.get(&format!("/billing_statements?customer_id={customer_id}")).await).await;
    let statement = &statements["data"][0];
    assert_eq!(
        (statement["status"].as_str(), statement["amount"].as_i64()),
        (Some("open"), Some(150_000)),
        "{statement}"
    );
    assert_eq!(statement["description"], "Subscription for Juan dela Cruz");
}

async fn the_docs_payout_fixtures_make_a_payout_of_two_payments_and_a_refund(app: TestApp) {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/fixtures/payouts.json");
    let ran = payments(&app.address, &app.keys.secret_test, &["fixtures", file, "--json"]).await;
    assert!(ran.success, "{ran:?}");
    let made: BTreeMap<String, Value> = ran
        .json_lines()
        .into_iter()
        .map(|line| (line["name"].as_str().unwrap().to_owned(), line["answer"].clone()))
        .collect();
    let payout = &made["payout"]["data"][0];
    assert_eq!(payout["status"], "successful", "{payout}");
    let lines = made["lines"]["data"].as_array().unwrap();
    let mut paid: Vec<&str> = lines.iter().map(|line| line["transaction_id"].as_str().unwrap()).collect();
    paid.sort_unstable();
    let mut expected = vec![
        made["paid"]["latest_payment"]["id"].as_str().unwrap(),
        made["second_paid"]["latest_payment"]["id"].as_str().unwrap(),
        made["refund"]["id"].as_str().unwrap(),
    ];
    expected.sort_unstable();
    assert_eq!(paid, expected);
    let net: i64 = lines.iter().map(|line| line["net_amount"].as_i64().unwrap()).sum();
    assert_eq!(payout["net_amount"].as_i64(), Some(net));
}

async fn a_fixture_with_a_bad_reference_fails_with_its_line_and_name(app: TestApp) {
    let directory = std::env::temp_dir().join(format!("payments-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let file = directory.join("bad.json");
    std::fs::write(
        &file,
        r#"{
  "fixtures": [
    {"name": "customer", "path": "/customers",
     "params": {"name": "Ana", "email": "ana@example.com", "currency": "PHP"}},
    {"name": "statement", "path": "/billing_statements",
     "params": {"customer_id": "${custmer:id}"}},
    {"name": "never", "path": "/customers",
     "params": {"name": "Never", "email": "never@example.com", "currency": "PHP"}}
  ]
}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let ran = payments(&app.address, &app.keys.secret_test, &["fixtures", path]).await;
    assert!(!ran.success, "{ran:?}");
    let says = format!("{path}:6: fixture \"statement\": ${{custmer:id}}: no earlier fixture is named \"custmer\"");
    assert!(ran.stderr.contains(&says), "{}", ran.stderr);
    let (_, customers) = read(app.get("/customers").await).await;
    let names: Vec<&str> = customers["data"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Ana"], "the requests before ran, none after");
    // A failed request names its fixture too.
    std::fs::write(&file, "{\"fixtures\": [\n  {\"name\": \"broke\", \"path\": \"/customers\", \"params\": {}}\n]}")
        .unwrap();
    let ran = payments(&app.address, &app.keys.secret_test, &["fixtures", path]).await;
    assert!(ran.stderr.contains(&format!("{path}:2: fixture \"broke\"")) && ran.stderr.contains("400"), "{ran:?}");
    let ran = payments(&app.address, &app.keys.secret_test, &["fixtures", "/nonexistent/seed.json"]).await;
    assert!(!ran.success && ran.stderr.contains("/nonexistent/seed.json"), "{ran:?}");
    std::fs::remove_dir_all(directory).unwrap();
}

/// The ready line of `listen --json`, once printed: the signing secret.
async fn signing_secret(listen: &Running) -> String {
    let ready = listen.wait_for(1, WAIT, |line| line.contains("\"ready\"")).await;
    serde_json::from_str::<Value>(&ready[0]).unwrap()["secret"].as_str().unwrap().to_owned()
}

async fn listen_forwards_signed_events_by_rule_and_retries_a_failed_forward(app: TestApp) {
    let everything = Receiver::start(vec![Reply::Status(500)]);
    let refunds = Receiver::start(Vec::new());
    let listen = Running::start(
        &app.address,
        &app.keys.secret_test,
        &[
            "listen",
            "--json",
            "--forward-to",
            &everything.url,
            "--forward-to",
            &format!("refund.*={}/refunds", refunds.url.trim_end_matches("/hooks")),
            "--events",
            "payment_intent.*,refund.created",
        ],
    );
    let secret = signing_secret(&listen).await;
    let ran = payments(&app.address, &app.keys.secret_test, &["trigger", "refund.created"]).await;
    assert!(ran.success, "{ran:?}");
    // payment_intent.succeeded and refund.created to the first (its first answer refused, that
    // forward retried); refund.created to the second; payment.paid and payment.refunded to neither.
    let received = everything.wait_for(3, WAIT).await;
    let to_refunds = refunds.wait_for(1, WAIT).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!((everything.received().len(), refunds.received().len()), (3, 1));
    let types = |deliveries: &[crate::receiver::Received]| -> Vec<String> {
        deliveries
            .iter()
            .map(|d| serde_json::from_str::<Value>(&d.body).unwrap()["type"].as_str().unwrap().to_owned())
            .collect()
    };
    let distinct: BTreeSet<String> = types(&received).into_iter().collect();
    assert_eq!(distinct, BTreeSet::from(["payment_intent.succeeded".to_owned(), "refund.created".to_owned()]));
    assert_eq!(types(&to_refunds), ["refund.created"]);
    assert_eq!(to_refunds[0].path, "/refunds");
    for delivery in received.iter().chain(&to_refunds) {
        assert!(verify(&delivery.signature, &delivery.body, &secret), "signed with the secret listen printed");
        let event: Value = serde_json::from_str(&delivery.body).unwrap();
        assert_eq!(delivery.standard[0], event["id"].as_str().unwrap());
        let (_, stored) = read(app.get(&format!("/events/{}", delivery.standard[0])).await).await;
        assert_eq!(stored["data"], event["data"], "the event as the service wrote it");
    }
    let forwards: Vec<Value> = listen.json_lines().into_iter().filter(|line| line["type"] == "forward").collect();
    let outcomes: Vec<(&str, &str, i64)> = forwards
        .iter()
        .map(|f| (f["event_type"].as_str().unwrap(), f["outcome"].as_str().unwrap(), f["status"].as_i64().unwrap()))
        .collect();
    assert_eq!(outcomes.iter().filter(|o| o.1 == "retrying" && o.2 == 500).count(), 1, "{outcomes:?}");
    assert_eq!(outcomes.iter().filter(|o| o.1 == "delivered").count(), 3, "{outcomes:?}");
    // The secret is the same on the next run, for the same key.
    let again = Running::start(&app.address, &app.keys.secret_test, &["listen", "--json"]);
    assert_eq!(signing_secret(&again).await, secret);
}

/// A service killed and started again on the same port and database: `listen` reconnects and
/// resumes after the last event it printed, so every event is printed exactly once.
async fn listen_resumes_across_a_restart_of_the_service(backend: Backend) {
    let database = tokio::task::spawn_blocking(move || TestDatabase::new(backend)).await.unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut service = Instance::start_on(database.url(), port).await;
    let key = service.wait_for_printed_key().await;
    let listen = Running::start(&service.address, &key, &["listen", "--json"]);
    signing_secret(&listen).await;
    // A charge through the other client command: payment_intent.succeeded and payment.paid.
    let charge = |address: String, key: String| async move {
        let ran = payments(&address, &key, &["trigger", "payment_intent.succeeded"]).await;
        assert!(ran.success, "{ran:?}");
    };
    let is_event = |line: &str| line.contains("\"type\":\"event\"");
    // Dropped before its first event: it resumes from where its stream started.
    service.kill_now();
    service = Instance::start_on(database.url(), port).await;
    charge(service.address.clone(), key.clone()).await;
    listen.wait_for(2, WAIT, is_event).await;
    charge(service.address.clone(), key.clone()).await;
    listen.wait_for(2, WAIT, is_event).await;
    // Two more, then the service is killed at once: listen may or may not have had them.
    charge(service.address.clone(), key.clone()).await;
    charge(service.address.clone(), key.clone()).await;
    service.kill_now();
    service = Instance::start_on(database.url(), port).await;
    charge(service.address.clone(), key.clone()).await;
    let printed = listen.wait_for(10, WAIT, is_event).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let ids: Vec<String> = listen
        .json_lines()
        .iter()
        .filter(|line| line["type"] == "event")
        .map(|line| line["event"]["id"].as_str().unwrap().to_owned())
        .collect();
    let listed = reqwest::Client::new().get(format!("{}/events?limit=100", service.address)).basic_auth(&key, Some(""));
    let listed: Value = listed.send().await.unwrap().json().await.unwrap();
    let mut all: Vec<String> =
        listed["data"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_owned()).collect();
    all.reverse();
    assert_eq!(ids, all, "every event once, in order ({} printed)", printed.len());
}

mod listen_resumes_across_a_restart_of_the_service {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::listen_resumes_across_a_restart_of_the_service(payments_adapters::db::Backend::Sqlite).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::listen_resumes_across_a_restart_of_the_service(payments_adapters::db::Backend::Postgres).await;
    }
}

async fn logs_tail_follows_the_request_log_with_its_filters(app: TestApp) {
    app.create_customer("Before").await;
    let tail = Running::start(&app.address, &app.keys.secret_test, &["logs", "tail", "--status", "4xx", "--json"]);
    // The tail starts after the newest entry: wait until it has read it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    app.create_customer("Ana").await;
    let (status, _) = read(app.get("/customers/cus_nothing").await).await;
    assert_eq!(status, 404);
    let lines = tail.wait_for(1, WAIT, |line| line.contains("cus_nothing")).await;
    let entry: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!((entry["status"].as_i64(), entry["method"].as_str()), (Some(404), Some("GET")), "{entry}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(tail.json_lines().iter().all(|line| line["status"] == 404), "only 4xx: {:?}", tail.lines());
}

async fn events_resend_reaches_every_webhook_that_listens(app: TestApp) {
    let first = Receiver::start(Vec::new());
    let second = Receiver::start(Vec::new());
    let one = register(&app, &first.url, &["payment.paid"]).await;
    register(&app, &second.url, &["payment.paid", "refund.created"]).await;
    register(&app, &second.url, &["refund.created"]).await;
    pay(&app).await;
    let delivered = first.wait_for(1, WAIT).await;
    second.wait_for(1, WAIT).await;
    let event_id: String =
        serde_json::from_str::<Value>(&delivered[0].body).unwrap()["id"].as_str().unwrap().to_owned();
    let ran = payments(&app.address, &app.keys.secret_test, &["events", "resend", &event_id, "--json"]).await;
    assert!(ran.success, "{ran:?}");
    assert_eq!(ran.json_lines().len(), 2, "both webhooks that listen to payment.paid: {ran:?}");
    first.wait_for(2, WAIT).await;
    second.wait_for(2, WAIT).await;
    let only = one["id"].as_str().unwrap();
    let ran = payments(&app.address, &app.keys.secret_test, &["events", "resend", &event_id, "--webhook", only]).await;
    assert!(ran.success && ran.stdout.contains(only), "{ran:?}");
    first.wait_for(3, WAIT).await;
    assert_eq!(second.received().len(), 2);
    // Another account sees neither the event nor the webhook.
    let ran = payments(&app.address, &app.other_account_key, &["events", "resend", &event_id, "--webhook", only]).await;
    assert!(!ran.success && ran.stderr.contains("404"), "{ran:?}");
}

async fn webhooks_recover_requeues_what_failed(app: TestApp) {
    let receiver = Receiver::start(vec![Reply::Status(500); 40]);
    let webhook = register(&app, &receiver.url, &["payment.paid"]).await;
    let id = webhook["id"].as_str().unwrap();
    pay(&app).await;
    // The retry window is one second: the delivery fails after a few attempts.
    let mut failed = false;
    for _ in 0..100 {
        let (_, event) = read(app.get("/events?type=payment.paid").await).await;
        if event["data"][0]["pending_webhooks"] == 0 {
            failed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(failed, "the delivery failed");
    let attempts = receiver.received().len();
    let ran =
        payments(&app.address, &app.keys.secret_test, &["webhooks", "recover", id, "--since", "10m", "--json"]).await;
    assert!(ran.success, "{ran:?}");
    assert_eq!(
        (ran.json_lines()[0]["requeued"].as_i64(), ran.json_lines()[0]["webhook_id"].as_str()),
        (Some(1), Some(id))
    );
    receiver.wait_for(attempts + 1, WAIT).await;
    let ran = payments(&app.address, &app.keys.secret_test, &["webhooks", "recover", id, "--since", "yesterday"]).await;
    assert!(!ran.success && ran.stderr.contains("--since \"yesterday\""), "{ran:?}");
}

async fn client_commands_say_what_they_need(app: TestApp) {
    // `ready`, the image's health check, needs no key and says so by its exit status.
    let ran = payments(&app.address, "", &["ready"]).await;
    assert!(ran.success && ran.stdout.contains("ready"), "{ran:?}");
    let gone = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let ran = payments(&format!("http://{gone}"), "", &["ready"]).await;
    assert!(!ran.success && ran.stderr.contains("cannot reach the service"), "{ran:?}");
    let ran = payments(&app.address, "", &["fixtures", "seed.json"]).await;
    assert!(!ran.success && ran.stderr.contains("a secret API key is needed"), "{ran:?}");
    let ran = payments(&app.address, "sk_test_nothing", &["trigger", "payment.paid"]).await;
    assert!(!ran.success && ran.stderr.contains("401"), "{ran:?}");
    let ran = payments(&app.address, &app.keys.public_test, &["listen"]).await;
    assert!(!ran.success && ran.stderr.contains("401"), "a public key cannot listen: {ran:?}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let ran = payments(&format!("http://{closed}"), &app.keys.secret_test, &["listen"]).await;
    assert!(!ran.success && ran.stderr.contains("cannot reach the service"), "{ran:?}");
    for (args, says) in [
        (vec!["listen", "--forward-to", "ftp://localhost/x"], "not an http or https URL"),
        (vec!["listen", "--events", "payment.exploded"], "unknown event type"),
        (vec!["events", "resend", "evt_../../customers"], "404"),
    ] {
        let ran = payments(&app.address, &app.keys.secret_test, &args).await;
        assert!(!ran.success && ran.stderr.contains(says), "{args:?}: {ran:?}");
    }
}

/// `trigger payment.refunded --page`: the payment is an order on a new storefront page, so the
/// merchant's handler of `payment.paid` and `payment.refunded` reads a `page_session`; a recipe
/// that makes no payment intent, or a hold, is refused before any request.
async fn trigger_through_a_page_makes_a_payment_that_carries_its_page_session(app: TestApp) {
    let key = &app.keys.secret_test;
    let ran = payments(&app.address, key, &["trigger", "payment.refunded", "--page", "--json", "--override", "payment_intent:amount=7500"]).await;
    assert!(ran.success, "{ran:?}");
    let steps: Vec<String> = ran.json_lines().iter().filter_map(|line| line["name"].as_str().map(str::to_owned)).collect();
    assert!(steps.starts_with(&["page_product".to_owned(), "page_price".to_owned(), "page".to_owned()]), "{steps:?}");
    let (_, events) = read(app.get("/events?type=payment.paid").await).await;
    let payment = &events["data"][0]["data"];
    assert_eq!((payment["amount"].as_i64(), payment["origin"].as_str()), (Some(7500), Some("pages")), "{payment}");
    assert_eq!(payment["page_session"]["custom_fields"][0]["value"], "M");
    assert_eq!(payment["page_session"]["line_items"][0]["total_amount"], 7500);
    let (_, refunded) = read(app.get("/events?type=payment.refunded").await).await;
    assert!(refunded["data"][0]["data"]["page_session"].is_object(), "{refunded}");

    let before = app.event_types().await.len();
    for (event_type, says) in [("payment_intent.awaiting_capture", "hold"), ("checkout_session.expired", "no payment intent")] {
        let ran = payments(&app.address, key, &["trigger", event_type, "--page"]).await;
        assert!(!ran.success && ran.stderr.contains(says), "{event_type}: {ran:?}");
    }
    assert_eq!(app.event_types().await.len(), before, "a refused trigger made nothing");
}

async fn the_docs_page_fixtures_make_a_storefront_and_pay_an_order_on_it(app: TestApp) {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/fixtures/pages.json");
    let ran = payments(&app.address, &app.keys.secret_test, &["fixtures", file, "--json"]).await;
    assert!(ran.success, "{ran:?}");
    let payment = ran.json_lines().into_iter().find(|line| line["name"] == "payment").unwrap()["answer"].clone();
    assert_eq!(payment["amount"], 100_000, "two mugs and a shirt: {payment}");
    let session = &payment["page_session"];
    let values: Vec<&str> = session["custom_fields"].as_array().unwrap().iter().map(|f| f["value"].as_str().unwrap()).collect();
    assert_eq!(values, ["M", "1 Osmeña Blvd, Cebu City"]);
    let totals: Vec<i64> = session["line_items"].as_array().unwrap().iter().map(|l| l["total_amount"].as_i64().unwrap()).collect();
    assert_eq!(totals.iter().sum::<i64>(), 100_000, "{session}");
}
