//! The operator API for accounts (`/operator/accounts`): off by default, refused without its token
//! and with a wrong one; accounts created, listed and deleted; an account's test data deleted,
//! exported and imported into a fresh account with its ids, and a bad export refused whole. And
//! `payments accounts`, the same verbs against the database.

use crate::helpers::{read, single_error, spawn_app, TestApp};
use payments_adapters::db::testing::exported_parents_first;
use payments_adapters::db::Backend;
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::process::Command;

const TOKEN: &str = "operator-token-of-the-tests-0123456789";

on_both_backends_with!(|settings| settings.operator.token = super::TOKEN.into() =>
    accounts_are_created_listed_and_deleted,
    an_account_deleted_while_its_requests_run_answers_no_500,
    deleting_test_data_keeps_the_keys_and_live_mode,
    an_export_imports_into_a_fresh_account_with_its_ids,
    an_export_of_an_older_schema_imports_with_the_defaults_of_later_columns,
    an_export_from_before_the_ledger_is_paid_out_whole,
    a_bad_export_is_refused_whole_and_changes_nothing,
    the_accounts_command_does_the_same_against_the_database,
);

/// An operator call: status and body text.
async fn operator(app: &TestApp, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request = app.client.request(method, format!("{}/operator/accounts{path}", app.address)).bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    read(request.send().await.unwrap()).await
}

async fn create_account(app: &TestApp, name: &str) -> Value {
    let (status, account) = operator(app, Method::POST, "", Some(json!({"name": name}))).await;
    assert_eq!(status, 200, "{account}");
    account
}

fn test_key(account: &Value) -> String {
    account["test"]["secret_key"].as_str().unwrap().to_owned()
}

/// The account's export, as text.
async fn export(app: &TestApp, account_id: &str) -> String {
    let response = app
        .client
        .get(format!("{}/operator/accounts/{account_id}/test_data", app.address))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    response.text().await.unwrap()
}

async fn import(app: &TestApp, account_id: &str, export: &str) -> (u16, Value) {
    let request = app
        .client
        .post(format!("{}/operator/accounts/{account_id}/test_data", app.address))
        .bearer_auth(TOKEN)
        .header("content-type", "application/x-ndjson")
        .body(export.to_owned());
    read(request.send().await.unwrap()).await
}

async fn get(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    read(app.request(Method::GET, path, key).send().await.unwrap()).await
}

async fn post(app: &TestApp, key: &str, path: &str, body: &str) -> Value {
    let (status, answer) = read(app.form(Method::POST, path, key, body).await).await;
    assert_eq!(status, 200, "{path}: {answer}");
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_api_is_off_by_default_and_refuses_a_missing_or_wrong_token() {
    let off = spawn_app(Backend::Sqlite).await;
    for (method, path) in [(Method::GET, ""), (Method::POST, ""), (Method::DELETE, "/acct_x/test_data")] {
        let request = off.client.request(method, format!("{}/operator/accounts{path}", off.address)).bearer_auth(TOKEN);
        let (status, body) = read(request.send().await.unwrap()).await;
        assert_eq!(status, 404, "{body}");
        single_error(&body, "route_not_found");
    }

    let on = crate::helpers::spawn_app_with(Backend::Sqlite, |settings| settings.operator.token = TOKEN.into()).await;
    let url = format!("{}/operator/accounts", on.address);
    let wrong = format!("{TOKEN}x");
    let refused = [
        on.client.get(&url),
        on.client.get(&url).bearer_auth(&wrong),
        on.client.get(&url).bearer_auth(&TOKEN[..TOKEN.len() - 1]),
        on.client.get(&url).bearer_auth(""),
        // An account's own secret key is not the operator's.
        on.client.get(&url).bearer_auth(&on.keys.secret_test),
        on.client.post(&url).bearer_auth(&wrong).json(&json!({"name": "Intruder"})),
    ];
    for request in refused {
        let (status, body) = read(request.send().await.unwrap()).await;
        assert_eq!(status, 401, "{body}");
        single_error(&body, "auth_invalid");
    }
    // Basic authentication with the token is not the operator's way in.
    let (status, body) = read(on.client.get(&url).basic_auth(TOKEN, Some("")).send().await.unwrap()).await;
    assert_eq!(status, 401, "{body}");
    let (status, list) = read(on.client.get(&url).bearer_auth(TOKEN).send().await.unwrap()).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["data"].as_array().unwrap().len(), 2, "no account was created by a refused call: {list}");
    // A token read from a secret store with its newline works as the token.
    let padded = crate::helpers::spawn_app_with(Backend::Sqlite, |settings| {
        settings.operator.token = format!(" {TOKEN}\n");
    })
    .await;
    let answer = padded.client.get(format!("{}/operator/accounts", padded.address)).bearer_auth(TOKEN).send().await;
    assert_eq!(answer.unwrap().status(), 200);
    // The operator routes are not the merchant's API: not in its document.
    let (_, document) = read(on.client.get(format!("{}/openapi.json", on.address)).send().await.unwrap()).await;
    assert!(!document["paths"].as_object().unwrap().keys().any(|path| path.starts_with("/operator")));
}

async fn accounts_are_created_listed_and_deleted(app: TestApp) {
    let created = create_account(&app, "Throwaway").await;
    let id = created["id"].as_str().unwrap();
    assert!(id.starts_with("acct_") && created["live"]["secret_key"].as_str().unwrap().starts_with("sk_live_"));
    let key = test_key(&created);
    post(&app, &key, "/customers", "name=Ana&email=ana%40example.com&currency=PHP").await;

    for body in [json!({}), json!({"name": "  "}), json!({"name": "x".repeat(256)}), json!({"name": "A", "extra": 1})] {
        let (status, refused) = operator(&app, Method::POST, "", Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {refused}");
    }
    let (_, page) = operator(&app, Method::GET, "?limit=1", None).await;
    assert_eq!((page["data"].as_array().unwrap().len(), &page["has_more"]), (1, &json!(true)));
    let mut listed = Vec::new();
    let mut after = String::new();
    loop {
        let (status, page) = operator(&app, Method::GET, &format!("?limit=2{after}"), None).await;
        assert_eq!(status, 200, "{page}");
        for account in page["data"].as_array().unwrap() {
            listed.push(account["id"].as_str().unwrap().to_owned());
            assert!(account.get("test").is_none(), "a list shows no keys: {account}");
        }
        if page["has_more"] == false {
            break;
        }
        after = format!("&after={}", listed.last().unwrap());
    }
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(listed.contains(&id.to_owned()));
    for bad in ["?limit=0", "?limit=101", "?after=nonsense", "?colour=red"] {
        let (status, body) = operator(&app, Method::GET, bad, None).await;
        assert!([400, 404].contains(&status), "{bad}: {body}");
    }
    let (status, account) = operator(&app, Method::GET, &format!("/{id}"), None).await;
    assert_eq!((status, &account["name"]), (200, &json!("Throwaway")));

    let (status, deleted) = operator(&app, Method::DELETE, &format!("/{id}"), None).await;
    assert_eq!((status, &deleted["deleted"]), (200, &json!(true)), "{deleted}");
    // Its keys stop working at once, though this instance resolved them a moment ago.
    let (status, body) = get(&app, &key, "/customers").await;
    assert_eq!(status, 401, "{body}");
    for (method, path) in
        [(Method::GET, format!("/{id}")), (Method::DELETE, format!("/{id}")), (Method::GET, "/acct_nothing".into())]
    {
        let (status, body) = operator(&app, method, &path, None).await;
        assert_eq!(status, 404, "{path}: {body}");
        single_error(&body, "resource_not_found");
    }
    // The other accounts are untouched.
    let (status, _) = get(&app, &app.keys.secret_test, "/customers").await;
    assert_eq!(status, 200);
}

async fn deleting_test_data_keeps_the_keys_and_live_mode(app: TestApp) {
    let account = create_account(&app, "Suite").await;
    let id = account["id"].as_str().unwrap();
    let key = test_key(&account);
    let live_key = account["live"]["secret_key"].as_str().unwrap().to_owned();
    let test_customer = post(&app, &key, "/customers", "name=Ana&email=ana%40example.com&currency=PHP").await;
    let live_customer = post(&app, &live_key, "/customers", "name=Lia&email=lia%40example.com&currency=PHP").await;
    let intent = post(&app, &key, "/payment_intents", "amount=10000&currency=PHP&payment_methods[]=card").await;
    post(&app, &key, "/test_helpers/clock/advance", "seconds=86400").await;
    let neighbour = app.create_customer("Neighbour").await;

    let (status, deleted) = operator(&app, Method::DELETE, &format!("/{id}/test_data"), None).await;
    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["deleted_test_data"]["customers"], 1, "{deleted}");
    assert_eq!(deleted["deleted_test_data"]["payment_intents"], 1, "{deleted}");
    for path in [
        format!("/customers/{}", test_customer["id"].as_str().unwrap()),
        format!("/payment_intents/{}", intent["id"].as_str().unwrap()),
    ] {
        let (status, body) = get(&app, &key, &path).await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    let (status, events) = get(&app, &key, "/events").await;
    assert_eq!((status, events["data"].as_array().unwrap().len()), (200, 0), "{events}");
    let (_, clock) = get(&app, &key, "/test_helpers/clock").await;
    assert_eq!(clock["seconds_ahead"], 0, "the test clock is back at real time: {clock}");
    let (status, _) = get(&app, &live_key, &format!("/customers/{}", live_customer["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "live mode stays");
    let (status, _) =
        get(&app, &app.keys.secret_test, &format!("/customers/{}", neighbour["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "another account stays");
    // The key still works: the account goes on with an empty test mode.
    post(&app, &key, "/customers", "name=Ben&email=ben%40example.com&currency=PHP").await;
}

/// Seeds a test mode with a bit of everything, and answers each object's path with its body.
async fn seed(app: &TestApp, key: &str) -> Vec<(String, Value)> {
    let customer =
        post(app, key, "/customers", "name=Ana&email=ana%40example.com&currency=PHP&metadata[tier]=gold").await;
    let customer_id = customer["id"].as_str().unwrap().to_owned();
    let intent =
        post(app, key, "/payment_intents", "amount=10000&currency=PHP&payment_methods[]=card&metadata[order]=7").await;
    let intent_id = intent["id"].as_str().unwrap().to_owned();
    let card = "payment_method[type]=card&payment_method[card][number]=4242424242424242\
                &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";
    let paid = post(app, key, &format!("/payment_intents/{intent_id}/attach"), card).await;
    let payment_id = paid["latest_payment"]["id"].as_str().unwrap().to_owned();
    post(app, key, "/refunds", &format!("payment_id={payment_id}&amount=2500&currency=PHP&reason=others")).await;
    let statement = post(app, key, "/billing_statements", &format!("customer_id={customer_id}")).await;
    let statement_id = statement["id"].as_str().unwrap().to_owned();
    post(
        app,
        key,
        "/billing_statement_line_items",
        &format!("billing_statement_id={statement_id}&description=Plan&unit_price=5000&quantity=2"),
    )
    .await;
    let webhook =
        post(app, key, "/webhooks", "url=https%3A%2F%2Fshop.example%2Fhooks&events[]=payment_intent.succeeded").await;
    let setup = post(app, key, "/setup_intents", &format!("customer_id={customer_id}&payment_methods[]=card")).await;
    let setup_id = setup["id"].as_str().unwrap().to_owned();
    post(app, key, &format!("/setup_intents/{setup_id}/attach"), card).await;
    let body = format!("customer_id={customer_id}&{}", crate::customer_sessions::ALL_ENABLED);
    let customer_session = post(app, key, "/customer_sessions", &body).await;
    let checkout = post(app, key, "/checkout_sessions", crate::checkout_sessions::SESSION).await;
    let product = post(app, key, "/products", "name=Mug&image=https%3A%2F%2Fshop.example%2Fmug.png").await;
    let product_id = product["id"].as_str().unwrap().to_owned();
    let price = post(app, key, "/prices", &format!("product_id={product_id}&amount=25000&description=Each")).await;
    let price_id = price["id"].as_str().unwrap().to_owned();
    let page_body = format!(
        "title=Merch&template=storefront&prices[]={price_id}&payment_methods[]=card\
         &custom_fields[0][name]=Size&custom_fields[0][type]=dropdown&custom_fields[0][options][]=S&custom_fields[0][options][]=M"
    );
    let page = post(app, key, "/pages", &page_body).await;
    // Four days: the card payment and the refund are paid out (a payout with its lines).
    post(app, key, "/test_helpers/clock/advance", "seconds=345600").await;
    let (_, payouts) = get(app, key, "/payouts").await;
    let payout_id = payouts["data"][0]["id"].as_str().unwrap_or_else(|| panic!("a payout: {payouts}")).to_owned();
    let mut paths = vec![
        format!("/payouts/{payout_id}"),
        format!("/payouts/{payout_id}/transactions"),
        format!("/customers/{customer_id}"),
        format!("/payment_intents/{intent_id}"),
        format!("/payments/{payment_id}"),
        format!("/billing_statements/{statement_id}"),
        format!("/webhooks/{}", webhook["id"].as_str().unwrap()),
        format!("/setup_intents/{setup_id}"),
        format!("/customers/{customer_id}/payment_methods"),
        format!("/customer_sessions/{}", customer_session["id"].as_str().unwrap()),
        format!("/checkout_sessions/{}", checkout["id"].as_str().unwrap()),
        format!("/products/{product_id}"),
        format!("/prices/{price_id}"),
        format!("/pages/{}", page["id"].as_str().unwrap()),
        "/customers?metadata[tier]=gold".to_owned(),
        "/events?limit=100".to_owned(),
        "/test_helpers/clock".to_owned(),
    ];
    let mut seeded = Vec::new();
    for path in paths.drain(..) {
        let (status, body) = get(app, key, &path).await;
        assert_eq!(status, 200, "{path}: {body}");
        seeded.push((path, body));
    }
    seeded
}

async fn an_export_imports_into_a_fresh_account_with_its_ids(app: TestApp) {
    let source = create_account(&app, "Source").await;
    let source_id = source["id"].as_str().unwrap();
    let seeded = seed(&app, &test_key(&source)).await;
    let exported = export(&app, source_id).await;
    let header: Value = serde_json::from_str(exported.lines().next().unwrap()).unwrap();
    assert_eq!(
        (header["format"].as_str(), header["account"].as_str()),
        (Some("payments.account_test_data"), Some(source_id))
    );
    assert!(header["schema"].as_str().is_some_and(|schema| schema.len() == 14), "{header}");
    assert_eq!(header["rows"].as_u64().unwrap() as usize, exported.lines().count() - 1);
    // The seed holds a row of every exported table, so each is read back on import below.
    let collections: BTreeSet<String> = exported
        .lines()
        .skip(1)
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["collection"].as_str().unwrap().to_owned())
        .collect();
    let tables: BTreeSet<String> = exported_parents_first().into_iter().map(|(table, _)| table.to_owned()).collect();
    assert_eq!(collections, tables);

    // Named as the source: statements show the merchant's name.
    let fresh = create_account(&app, "Source").await;
    let fresh_id = fresh["id"].as_str().unwrap();
    // Ids are unique in the whole database: while the source holds them, the import is refused whole.
    let (status, refused) = import(&app, fresh_id, &exported).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["errors"][0]["parameter"], "line 2", "{refused}");
    assert_eq!(export(&app, fresh_id).await.lines().count(), 1, "nothing was imported");

    let (status, _) = operator(&app, Method::DELETE, &format!("/{source_id}/test_data"), None).await;
    assert_eq!(status, 200);
    let (status, imported) = import(&app, fresh_id, &exported).await;
    assert_eq!((status, &imported["imported_rows"]), (200, &header["rows"]), "{imported}");
    let fresh_key = test_key(&fresh);
    for (path, before) in &seeded {
        let (status, after) = get(&app, &fresh_key, path).await;
        assert_eq!(status, 200, "{path}: {after}");
        if path == "/test_helpers/clock" {
            assert!(after["seconds_ahead"].as_i64() >= before["seconds_ahead"].as_i64(), "{after}");
        } else {
            assert_eq!(&after, before, "{path} reads back the same");
        }
    }
    // A second import into the now non-empty account is refused.
    let (status, refused) = import(&app, fresh_id, &exported).await;
    assert_eq!(status, 400, "{refused}");
    single_error(&refused, "resource_invalid_state");
    // The fresh account's objects are its own: the source and other accounts do not see them.
    for key in [test_key(&source), app.other_account_key.clone()] {
        let (status, _) = get(&app, &key, &seeded[0].0).await;
        assert_eq!(status, 404);
    }
    // The export of the fresh account holds the same rows.
    let again = export(&app, fresh_id).await;
    assert_eq!(again.lines().skip(1).collect::<Vec<_>>(), exported.lines().skip(1).collect::<Vec<_>>());
}

/// The export as lines of JSON, its header first.
fn export_values(exported: &str) -> Vec<Value> {
    exported.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn export_text(lines: &[Value]) -> String {
    lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
}

/// An export made before `2026-11-29-000022_webhook_secret_rotation` has no previous secret in its
/// webhooks' rows: it imports, and they take their defaults. The same rows claiming today's schema
/// lack fields, and a schema this service never had is a newer service's: both are refused whole.
async fn an_export_of_an_older_schema_imports_with_the_defaults_of_later_columns(app: TestApp) {
    let source = create_account(&app, "Source").await;
    let source_id = source["id"].as_str().unwrap();
    let seeded = seed(&app, &test_key(&source)).await;
    let mut lines = export_values(&export(&app, source_id).await);
    assert_eq!(operator(&app, Method::DELETE, &format!("/{source_id}/test_data"), None).await.0, 200);
    for line in lines.iter_mut().filter(|line| line["collection"] == "webhooks") {
        let fields = line["fields"].as_object_mut().unwrap();
        assert!(fields.remove("previous_secret_key").is_some() && fields.remove("previous_secret_expires_at_ms").is_some());
    }
    let target = create_account(&app, "Source").await;
    let target_id = target["id"].as_str().unwrap();
    let webhook_line = lines.iter().position(|line| line["collection"] == "webhooks").unwrap() + 1;

    let (status, refused) = import(&app, target_id, &export_text(&lines)).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["errors"][0]["parameter"], format!("line {webhook_line}"), "{refused}");
    assert!(refused["errors"][0]["detail"].as_str().unwrap().contains("previous_secret_key"), "{refused}");
    lines[0]["schema"] = json!("29991231000000");
    let (status, refused) = import(&app, target_id, &export_text(&lines)).await;
    assert_eq!((status, &refused["errors"][0]["parameter"]), (400, &json!("line 1")), "{refused}");
    assert_eq!(export(&app, target_id).await.lines().count(), 1, "nothing was imported");

    lines[0]["schema"] = json!("20261129000021");
    let (status, imported) = import(&app, target_id, &export_text(&lines)).await;
    assert_eq!(status, 200, "{imported}");
    let key = test_key(&target);
    for (path, before) in seeded.iter().filter(|(path, _)| path.starts_with("/webhooks/")) {
        assert_eq!(&get(&app, &key, path).await.1, before, "{path} reads back with its defaults");
    }
    let again = export_values(&export(&app, target_id).await);
    let webhook = again.iter().find(|line| line["collection"] == "webhooks").unwrap();
    assert_eq!(webhook["fields"]["previous_secret_key"], Value::Null, "{webhook}");
}

/// An export made before `2026-12-02-000027_payouts` has payments and refunds but no ledger: the
/// import gives them their entries (as that migration's successor does to a database), so the next
/// payout takes the payment and its refund, and the schedule starts again from the imported clock.
async fn an_export_from_before_the_ledger_is_paid_out_whole(app: TestApp) {
    let source = create_account(&app, "Source").await;
    let source_id = source["id"].as_str().unwrap();
    seed(&app, &test_key(&source)).await;
    let ledger = ["balance_entries", "payouts", "payout_transactions"];
    let mut lines: Vec<Value> = export_values(&export(&app, source_id).await)
        .into_iter()
        .filter(|line| !ledger.contains(&line["collection"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(operator(&app, Method::DELETE, &format!("/{source_id}/test_data"), None).await.0, 200);
    lines[0]["schema"] = json!("20261201000026");
    lines[0]["rows"] = json!(lines.len() - 1);
    let target = create_account(&app, "Target").await;
    let (status, imported) = import(&app, target["id"].as_str().unwrap(), &export_text(&lines)).await;
    assert_eq!(status, 200, "{imported}");
    let key = test_key(&target);
    let (_, balance) = get(&app, &key, "/balance").await;
    let (payment, refund) = (lines.iter().find(|l| l["collection"] == "payments" && l["fields"]["status"] == "paid"), lines.iter().find(|l| l["collection"] == "refunds"));
    let (payment, refund) = (&payment.unwrap()["fields"], &refund.unwrap()["fields"]);
    let net = payment["amount"].as_i64().unwrap() - payment["fee"].as_i64().unwrap() - refund["amount"].as_i64().unwrap();
    assert_eq!(balance["available"].as_i64(), Some(net), "settled long ago: {balance}");
    let next = balance["payout_schedule"]["next_payout_at"].as_i64().unwrap();
    let (_, clock) = get(&app, &key, "/test_helpers/clock").await;
    let now = clock["now"].as_i64().unwrap();
    assert!(next > now && next <= now + 86_400, "the next payout follows the imported clock: {next} after {now}");
    post(&app, &key, "/test_helpers/clock/advance", "seconds=86400").await;
    let (_, payouts) = get(&app, &key, "/payouts").await;
    assert_eq!(payouts["data"].as_array().map(Vec::len), Some(1), "{payouts}");
    assert_eq!(payouts["data"][0]["net_amount"].as_i64(), Some(net), "{payouts}");
    let path = format!("/payouts/{}/transactions", payouts["data"][0]["id"].as_str().unwrap());
    let (_, transactions) = get(&app, &key, &path).await;
    let mut paid: Vec<&str> =
        transactions["data"].as_array().unwrap().iter().map(|line| line["transaction_id"].as_str().unwrap()).collect();
    paid.sort_unstable();
    assert_eq!(paid, [payment["id"].as_str().unwrap(), refund["id"].as_str().unwrap()]);
}

async fn a_bad_export_is_refused_whole_and_changes_nothing(app: TestApp) {
    let source = create_account(&app, "Source").await;
    let source_id = source["id"].as_str().unwrap();
    seed(&app, &test_key(&source)).await;
    let exported = export(&app, source_id).await;
    let (status, _) = operator(&app, Method::DELETE, &format!("/{source_id}/test_data"), None).await;
    assert_eq!(status, 200);
    let target = create_account(&app, "Target").await;
    let target_id = target["id"].as_str().unwrap();

    let lines: Vec<Value> = exported.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let changed = |collection: &str, change: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut lines = lines.clone();
        let row = lines.iter_mut().find(|line| line["collection"] == collection).unwrap();
        change(row["fields"].as_object_mut().unwrap());
        lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
    };
    let line_of =
        |collection: &str| format!("line {}", lines.iter().position(|l| l["collection"] == collection).unwrap() + 1);
    // Objects of another account: a customer, and an intent with no payment yet.
    let foreign_customer = app.create_customer("Elsewhere").await["id"].as_str().unwrap().to_owned();
    let foreign_intent = app.create_intent(10_000, "").await["id"].as_str().unwrap().to_owned();
    let header_with = |name: &str, value: Value| {
        let mut header = lines[0].clone();
        header[name] = value;
        std::iter::once(header.to_string())
            .chain(exported.lines().skip(1).map(str::to_owned))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let huge = format!("{}\n{}\n", lines[0], "x".repeat(1_500_000));
    let cases: Vec<(String, String)> = vec![
        (
            changed("billing_statements", &|f| {
                f.insert("customer_id".into(), json!(foreign_customer));
            }),
            line_of("billing_statements"),
        ),
        (
            changed("payments", &|f| {
                f.insert("payment_intent_id".into(), json!(foreign_intent));
            }),
            line_of("payments"),
        ),
        (
            changed("events", &|f| {
                f.insert("body".into(), json!("not json"));
            }),
            line_of("events"),
        ),
        (
            changed("events", &|f| {
                let body = f["body"].as_str().unwrap().replace("\"livemode\":false", "\"livemode\":true");
                f.insert("body".into(), json!(body));
            }),
            line_of("events"),
        ),
        (header_with("test_clock_offset_ms", json!(i64::MAX)), "line 1".into()),
        (header_with("test_clock_offset_ms", json!(-1)), "line 1".into()),
        (header_with("comment", json!("hello")), "line 1".into()),
        // Past the API's own body limit (1 MiB), still read whole: the second line is not a row.
        (huge, "line 2".into()),
        (
            changed("customers", &|f| {
                f.insert("created_at".into(), json!("yesterday"));
            }),
            line_of("customers"),
        ),
        (
            changed("customers", &|f| {
                f.insert("colour".into(), json!("red"));
            }),
            line_of("customers"),
        ),
        (
            changed("customers", &|f| {
                f.insert("name".into(), json!("Ana\u{0}Cruz"));
            }),
            line_of("customers"),
        ),
        (
            changed("customers", &|f| {
                f.remove("email");
            }),
            line_of("customers"),
        ),
        (
            changed("customers", &|f| {
                f.insert("metadata".into(), json!("not json"));
            }),
            line_of("customers"),
        ),
        (
            changed("payment_intents", &|f| {
                f.insert("status".into(), json!("haunted"));
            }),
            line_of("payment_intents"),
        ),
        (
            changed("payments", &|f| {
                f.insert("payment_intent_id".into(), json!("pi_nowhere"));
            }),
            line_of("payments"),
        ),
        (
            changed("refunds", &|f| {
                f.insert("id".into(), json!("not-a-refund-id"));
            }),
            line_of("refunds"),
        ),
        (
            format!("{}\n{{\"collection\":\"accounts\",\"fields\":{{}}}}", {
                let mut header = lines[0].clone();
                header["rows"] = json!(1);
                header
            }),
            "line 2".into(),
        ),
        // A line longer than any stored row is refused before it is held whole.
        (
            format!(
                "{}\n{{\"collection\":\"customers\",\"fields\":{{\"name\":\"{}\"}}}}\n",
                {
                    let mut header = lines[0].clone();
                    header["rows"] = json!(1);
                    header
                },
                "x".repeat(2 << 20)
            ),
            "line 2".into(),
        ),
        ("{\"format\":\"something else\"}\n".into(), "line 1".into()),
        ("not json at all".into(), "line 1".into()),
        (exported.lines().take(3).collect::<Vec<_>>().join("\n"), "body".into()),
        (format!("{exported}garbage\n"), format!("line {}", lines.len() + 1)),
        (String::new(), "body".into()),
    ];
    for (body, parameter) in cases {
        let (status, refused) = import(&app, target_id, &body).await;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(
            refused["errors"][0]["parameter"],
            parameter.as_str(),
            "{refused}: {}",
            &body[..body.len().min(300)]
        );
        assert_eq!(export(&app, target_id).await.lines().count(), 1, "nothing was imported: {refused}");
    }
    let (status, _) = import(&app, "acct_nobody", &exported).await;
    assert_eq!(status, 404);
    let (status, imported) = import(&app, target_id, &exported).await;
    assert_eq!(status, 200, "the whole export still imports: {imported}");
}

/// `payments accounts VERB` run against the app's database, as an operator runs it on the host.
fn accounts_command(app: &TestApp, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_payments"))
        .arg("accounts")
        .args(args)
        .env("PAYMENTS__DATABASE__URL", app.database.url())
        .env("PAYMENTS__LOG__LEVEL", "warn")
        .output()
        .expect("run payments accounts");
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.success(), text(&output.stdout), text(&output.stderr))
}

async fn the_accounts_command_does_the_same_against_the_database(app: TestApp) {
    let (ok, created, stderr) = accounts_command(&app, &["create", "--name", "Command line"]);
    assert!(ok, "{stderr}");
    let created: Value = serde_json::from_str(&created).unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let key = test_key(&created);
    let customer = post(&app, &key, "/customers", "name=Ana&email=ana%40example.com&currency=PHP").await;

    let (ok, listed, stderr) = accounts_command(&app, &["list"]);
    assert!(ok, "{stderr}");
    let listed: Vec<Value> = listed.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(listed.len(), 3);
    assert!(listed.iter().any(|account| account["id"] == id.as_str()));

    let file = std::env::temp_dir().join(format!("{id}.jsonl"));
    let (ok, _, stderr) = accounts_command(&app, &["export", &id, "--output", file.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let (ok, deleted, stderr) = accounts_command(&app, &["delete-test-data", &id]);
    assert!(ok, "{stderr}");
    assert!(deleted.contains("\"customers\": 1"), "{deleted}");
    let (status, _) = get(&app, &key, &format!("/customers/{}", customer["id"].as_str().unwrap())).await;
    assert_eq!(status, 404);
    let (ok, imported, stderr) = accounts_command(&app, &["import", &id, file.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(imported.contains("\"imported_rows\""), "{imported}");
    let (status, _) = get(&app, &key, &format!("/customers/{}", customer["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "the import is read through the API");
    let (ok, _, stderr) = accounts_command(&app, &["import", &id, file.to_str().unwrap()]);
    assert!(!ok && stderr.contains("already has test-mode objects"), "{stderr}");
    std::fs::remove_file(&file).ok();

    let (ok, _, stderr) = accounts_command(&app, &["delete", &id]);
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = accounts_command(&app, &["delete", &id]);
    assert!(!ok && stderr.contains("no such account"), "{stderr}");
    let (ok, _, stderr) = accounts_command(&app, &["delete", "not-an-account"]);
    assert!(!ok && stderr.contains("not of an account's form"), "{stderr}");
    // The service remembers a resolved key for seconds: past them, it sees the account is gone.
    app.clock.advance(11);
    let (status, body) = get(&app, &key, "/customers").await;
    assert_eq!(status, 401, "{body}");
}

async fn an_account_deleted_while_its_requests_run_answers_no_500(app: TestApp) {
    let account = create_account(&app, "Busy").await;
    let id = account["id"].as_str().unwrap().to_owned();
    let key = test_key(&account);
    post(&app, &key, "/customers", "name=Ana&email=ana%40example.com&currency=PHP").await;
    let requests: Vec<_> = (0..24)
        .map(|n| {
            let (app, key) = (&app, key.clone());
            async move {
                let body = format!("amount={}&currency=PHP&payment_methods[]=card", 10_000 + n);
                app.form(Method::POST, "/payment_intents", &key, &body).await.status().as_u16()
            }
        })
        .collect();
    let delete = async {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        operator(&app, Method::DELETE, &format!("/{id}"), None).await
    };
    let (statuses, (deleted, body)) = tokio::join!(futures_util::future::join_all(requests), delete);
    assert_eq!(deleted, 200, "{body}");
    assert!(statuses.iter().all(|status| [200, 401, 409].contains(status)), "{statuses:?}");
    let (status, _) = get(&app, &key, "/customers").await;
    assert_eq!(status, 401);
    let (status, list) = operator(&app, Method::GET, "", None).await;
    assert_eq!(status, 200);
    assert!(!list["data"].as_array().unwrap().iter().any(|a| a["id"] == id.as_str()), "{list}");
}
