//! Billing statements and their line items over HTTP: drafts and their edits, finalizing (numbers
//! from the customer's sequence, the payment intent), sending through the outbox, void and
//! uncollectible, every bad input refused, concurrency, the due-date reminders with a moved clock,
//! and the hosted page paid as a browser without JavaScript would. The real SMTP conversation is in
//! `billing_statement_mail.rs`, the real browser in `billing_statement_browser.rs`.

use crate::checkout_sessions::{card_fields, visit};
use crate::helpers::{browser, error_codes, ids, open_page, read, single_error, TestApp};
use crate::receiver::Receiver;
use reqwest::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, LOCATION};
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    a_draft_gets_line_items_and_finalizes_into_a_numbered_open_statement,
    bad_statements_and_line_items_are_refused_and_change_nothing,
    only_drafts_change_and_open_statements_close_once,
    concurrent_finalizes_of_one_customer_never_share_a_number,
    line_item_edits_racing_a_finalize_keep_the_amount_right,
    the_page_shows_the_statement_and_pays_it_once,
    the_due_date_reminders_come_once_each_with_a_moved_clock,
    sending_writes_the_email_to_the_outbox_and_the_mailbox_shows_it,
    statements_are_invisible_to_other_accounts_and_modes,
);

const DAY: i64 = 24 * 60 * 60;

/// A customer with the statement prefix `ACME` (the next one `ACME2`, …) and its `created_at` (the
/// service's now).
pub(crate) async fn customer(app: &TestApp) -> (String, i64) {
    let (_, existing) = read(app.get("/customers?limit=100").await).await;
    let prefix = match ids(&existing).len() {
        0 => "ACME".to_owned(),
        n => format!("ACME{}", n + 1),
    };
    let body =
        format!("name=Juan%20dela%20Cruz&email=juan%40example.com&currency=PHP&billing_statement_prefix={prefix}");
    let (status, customer) = app.post("/customers", &body).await;
    assert_eq!(status, 200, "{customer}");
    (customer["id"].as_str().unwrap().to_owned(), customer["created_at"].as_i64().unwrap())
}

pub(crate) async fn draft(app: &TestApp, customer_id: &str, due_at: i64) -> Value {
    let body = format!("customer_id={customer_id}&due_at={due_at}&metadata[invoice]=42&payment_settings[payment_methods][]=card&payment_settings[payment_methods][]=gcash");
    let (status, statement) = app.post("/billing_statements", &body).await;
    assert_eq!(status, 200, "{statement}");
    statement
}

pub(crate) async fn add_item(
    app: &TestApp,
    statement_id: &str,
    description: &str,
    unit_price: i64,
    quantity: i64,
) -> Value {
    let body = format!(
        "billing_statement_id={statement_id}&description={description}&unit_price={unit_price}&quantity={quantity}"
    );
    let (status, item) = app.post("/billing_statement_line_items", &body).await;
    assert_eq!(status, 200, "{item}");
    item
}

async fn retrieve(app: &TestApp, id: &str) -> Value {
    let (status, statement) = read(app.get(&format!("/billing_statements/{id}")).await).await;
    assert_eq!(status, 200, "{statement}");
    statement
}

/// An open statement of ₱1,500.00 + 2 × ₱250.00 for a new customer, due in ten days.
pub(crate) async fn open_statement(app: &TestApp) -> Value {
    let (customer_id, now) = customer(app).await;
    let statement = draft(app, &customer_id, now + 10 * DAY).await;
    let id = statement["id"].as_str().unwrap();
    add_item(app, id, "Consulting", 150_000, 1).await;
    add_item(app, id, "Travel", 25_000, 2).await;
    let (status, open) = app.post(&format!("/billing_statements/{id}/finalize"), "").await;
    assert_eq!(status, 200, "{open}");
    open
}

async fn a_draft_gets_line_items_and_finalizes_into_a_numbered_open_statement(app: TestApp) {
    let (customer_id, now) = customer(&app).await;
    let statement = draft(&app, &customer_id, now + 10 * DAY).await;
    let id = statement["id"].as_str().unwrap();
    assert!(id.starts_with("bstm_") && !id.starts_with("bstm_li_"), "{id}");
    assert_eq!(
        (&statement["resource"], &statement["status"], &statement["amount"], &statement["currency"]),
        (&json!("billing_statement"), &json!("draft"), &json!(0), &json!("PHP"))
    );
    assert_eq!(
        statement["customer"],
        json!({"id": customer_id, "name": "Juan dela Cruz", "email": "juan@example.com"})
    );
    assert_eq!(statement["customer_id"], customer_id.as_str());
    assert_eq!(statement["billing_statement_merchant_name"], "Acme");
    assert_eq!(statement["payment_settings"], json!({"payment_methods": ["card", "gcash"]}));
    assert_eq!(statement["billing_details_collection"], "always");
    for absent in ["url", "billing_statement_url", "billing_statement_number", "payment_intent", "description"] {
        assert_eq!(statement[absent], Value::Null, "{absent} of a draft");
    }

    let consulting = add_item(&app, id, "Consulting", 150_000, 1).await;
    let item_id = consulting["id"].as_str().unwrap();
    assert!(item_id.starts_with("bstm_li_"), "{item_id}");
    assert_eq!(
        (
            &consulting["resource"],
            &consulting["billing_statement_id"],
            &consulting["unit_price"],
            &consulting["quantity"]
        ),
        (&json!("billing_statement_line_item"), &json!(id), &json!(150_000), &json!(1))
    );
    let travel = add_item(&app, id, "Travel", 25_000, 2).await;
    let extra = add_item(&app, id, "Extra", 1_000, 1).await;
    assert_eq!(retrieve(&app, id).await["amount"], 150_000 + 50_000 + 1_000);

    // The spec's spelling with a trailing period, and JSON.
    let travel_path = format!("/billing_statement_line_items/{}.", travel["id"].as_str().unwrap());
    let (status, updated) = read(app.form(Method::PUT, &travel_path, &app.keys.secret_test, "quantity=3").await).await;
    assert_eq!((status, &updated["quantity"], &updated["unit_price"]), (200, &json!(3), &json!(25_000)));
    let path = format!("/billing_statement_line_items/{}", extra["id"].as_str().unwrap());
    let (status, deleted) = read(app.request(Method::DELETE, &path, &app.keys.secret_test).send().await.unwrap()).await;
    assert_eq!(
        (status, &deleted["deleted"], &deleted["resource"]),
        (200, &json!(true), &json!("billing_statement_line_item"))
    );
    let (status, gone) = read(app.get(&path).await).await;
    assert_eq!((status, single_error(&gone, "resource_not_found").is_empty()), (404, false));
    let (status, fetched) = read(app.get(&format!("/billing_statement_line_items/{item_id}")).await).await;
    assert_eq!((status, fetched), (200, consulting.clone()));
    let statement = retrieve(&app, id).await;
    assert_eq!(statement["amount"], 150_000 + 75_000);
    let items: Vec<&str> =
        statement["line_items"].as_array().unwrap().iter().map(|i| i["description"].as_str().unwrap()).collect();
    assert_eq!(items, ["Consulting", "Travel"], "in the order they were added");

    let (status, open) = app.post(&format!("/billing_statements/{id}/finalize"), "").await;
    assert_eq!(status, 200, "{open}");
    assert_eq!((&open["status"], &open["billing_statement_number"]), (&json!("open"), &json!("ACME-0001")));
    let secret = open["payment_intent"]["client_secret"].as_str().unwrap();
    assert!(open["url"].as_str().unwrap().starts_with(&format!("{}/b/{id}_secret_", app.address)));
    assert!(!open["url"].as_str().unwrap().contains(secret), "the page's secret is the statement's own");
    assert_eq!(open["billing_statement_url"], open["url"]);
    let intent = &open["payment_intent"];
    assert_eq!(
        (&intent["amount"], &intent["status"], &intent["customer"]["id"]),
        (&json!(225_000), &json!("awaiting_payment_method"), &json!(customer_id))
    );
    assert_eq!(
        (&intent["description"], &intent["metadata"], &intent["payment_methods"]),
        (&json!("Payment for Billing Statement ACME-0001"), &json!({"invoice": "42"}), &json!(["card", "gcash"]))
    );
    assert_eq!(intent["return_url"], open["url"], "redirects come back to the page");
    let (_, customer) = read(app.get(&format!("/customers/{customer_id}")).await).await;
    assert_eq!(customer["next_billing_statement_sequence_number"], "2");

    // A second statement of the customer gets the next number; lists filter by customer and status.
    let second = draft(&app, &customer_id, now + 20 * DAY).await;
    let second_id = second["id"].as_str().unwrap();
    let (status, list) = read(app.get("/billing_statements?limit=1").await).await;
    assert_eq!((status, ids(&list), &list["has_more"]), (200, vec![second_id.to_owned()], &json!(true)));
    let (_, older) = read(app.get(&format!("/billing_statements?after={second_id}")).await).await;
    assert_eq!(ids(&older), vec![id.to_owned()]);
    let (_, drafts) = read(app.get(&format!("/billing_statements?customer_id={customer_id}&status=draft")).await).await;
    assert_eq!(ids(&drafts), vec![second_id.to_owned()]);
    let (_, opened) = read(app.get("/billing_statements?status=open").await).await;
    assert_eq!(ids(&opened), vec![id.to_owned()]);
    let (_, nobody) = read(app.get("/billing_statements?customer_id=cus_nobody").await).await;
    assert!(ids(&nobody).is_empty());
    let (status, bad) = read(app.get("/billing_statements?status=late").await).await;
    assert_eq!((status, error_codes(&bad)), (400, vec![("status".into(), "parameter_invalid".into())]));

    let types = app.event_types().await;
    let expected = [
        "billing_statement.created",
        "billing_statement_line_item.created",
        "billing_statement_line_item.created",
        "billing_statement_line_item.created",
        "billing_statement_line_item.updated",
        "billing_statement_line_item.deleted",
        "billing_statement.finalized",
        "billing_statement.created",
    ];
    assert_eq!(types, expected);
    let (_, events) = read(app.get("/events?limit=2").await).await;
    let finalized = &events["data"][1];
    assert_eq!(finalized["data"]["status"], "open");
    assert_eq!(finalized["previous_attributes"]["status"], "draft");
}

async fn bad_statements_and_line_items_are_refused_and_change_nothing(app: TestApp) {
    let (customer_id, now) = customer(&app).await;
    let (status, body) = app.post("/billing_statements", "description=x").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("customer_id".into(), "parameter_required".into())]));
    let cases: [(String, Vec<(&str, &str)>); 7] = [
        ("customer_id=cus_nobody".into(), vec![("customer_id", "resource_not_found")]),
        ("customer_id=pi_123".into(), vec![("customer_id", "resource_not_found")]),
        (format!("customer_id={customer_id}&currency=USD"), vec![("currency", "parameter_invalid")]),
        (format!("customer_id={customer_id}&due_at={}", now - DAY), vec![("due_at", "parameter_below_minimum")]),
        (
            format!("customer_id={customer_id}&due_at=-5&billing_details_collection=never"),
            vec![("billing_details_collection", "parameter_invalid"), ("due_at", "parameter_below_minimum")],
        ),
        (
            format!("customer_id={customer_id}&payment_settings[payment_methods][]=cash&colour=red"),
            vec![("colour", "parameter_invalid"), ("payment_settings[payment_methods]", "parameter_invalid")],
        ),
        (
            format!("customer_id={customer_id}&due_at=2.5&statement_descriptor=ABCDEFGHIJKLMNOPQRSTUVW"),
            vec![("due_at", "parameter_type_invalid"), ("statement_descriptor", "parameter_invalid")],
        ),
    ];
    for (fields, expected) in cases {
        let (status, refused) = app.post("/billing_statements", &fields).await;
        let mut codes = error_codes(&refused);
        codes.sort();
        let expected: Vec<(String, String)> =
            expected.iter().map(|(p, c)| ((*p).to_owned(), (*c).to_owned())).collect();
        assert_eq!((status, codes), (400, expected), "{fields}: {refused}");
    }
    let (_, list) = read(app.get("/billing_statements").await).await;
    assert!(ids(&list).is_empty(), "nothing was created");

    let statement = draft(&app, &customer_id, now + DAY).await;
    let id = statement["id"].as_str().unwrap();
    let (status, body) = app.post("/billing_statement_line_items", "").await;
    let mut codes = error_codes(&body);
    codes.sort();
    assert_eq!(
        (status, codes),
        (
            400,
            ["billing_statement_id", "description", "quantity", "unit_price"]
                .map(|p| (p.to_owned(), "parameter_required".to_owned()))
                .to_vec()
        )
    );
    let item_cases: [(String, Vec<(&str, &str)>); 6] = [
        (
            format!("billing_statement_id={id}&description=%20&unit_price=0&quantity=0"),
            vec![
                ("description", "parameter_invalid"),
                ("quantity", "parameter_below_minimum"),
                ("unit_price", "parameter_below_minimum"),
            ],
        ),
        (
            format!("billing_statement_id={id}&description={}&unit_price=100&quantity=1", "x".repeat(256)),
            vec![("description", "parameter_invalid")],
        ),
        (
            format!("billing_statement_id={id}&description=A&unit_price=1e3&quantity=1.5"),
            vec![("quantity", "parameter_type_invalid"), ("unit_price", "parameter_type_invalid")],
        ),
        (
            format!("billing_statement_id={id}&description=A&unit_price=6000000000&quantity=1"),
            vec![("unit_price", "parameter_above_maximum")],
        ),
        (
            format!("billing_statement_id={id}&description=A&unit_price=3000000000&quantity=2"),
            vec![("unit_price", "parameter_above_maximum")],
        ),
        (
            "billing_statement_id=bstm_nobody&description=A&unit_price=100&quantity=1".into(),
            vec![("billing_statement_id", "resource_not_found")],
        ),
    ];
    for (fields, expected) in item_cases {
        let (status, refused) = app.post("/billing_statement_line_items", &fields).await;
        let mut codes = error_codes(&refused);
        codes.sort();
        let expected: Vec<(String, String)> =
            expected.iter().map(|(p, c)| ((*p).to_owned(), (*c).to_owned())).collect();
        assert_eq!((status, codes), (400, expected), "{}: {refused}", &fields[..fields.len().min(80)]);
    }
    assert_eq!(retrieve(&app, id).await, statement, "no refused line item changed the statement");

    // Finalizing needs a due date ahead and a total within the bounds.
    let undated = {
        let (status, undated) = app.post("/billing_statements", &format!("customer_id={customer_id}")).await;
        assert_eq!(status, 200);
        undated
    };
    let undated_id = undated["id"].as_str().unwrap();
    add_item(&app, undated_id, "Work", 5_000, 1).await;
    let (status, refused) = app.post(&format!("/billing_statements/{undated_id}/finalize"), "").await;
    assert_eq!((status, error_codes(&refused)), (400, vec![("due_at".into(), "parameter_required".into())]));
    add_item(&app, id, "Small", 1_999, 1).await;
    let (status, refused) = app.post(&format!("/billing_statements/{id}/finalize"), "").await;
    assert_eq!((status, error_codes(&refused)), (400, vec![("amount".into(), "parameter_below_minimum".into())]));
    let (status, refused) = app.post(&format!("/billing_statements/{id}/finalize"), "due_at=1").await;
    assert_eq!((status, error_codes(&refused)), (400, vec![("due_at".into(), "parameter_invalid".into())]));
    app.clock.advance(2 * DAY);
    add_item(&app, id, "Enough", 10_000, 1).await;
    let (status, refused) = app.post(&format!("/billing_statements/{id}/finalize"), "").await;
    assert_eq!((status, error_codes(&refused)), (400, vec![("due_at".into(), "parameter_below_minimum".into())]));
    assert_eq!(retrieve(&app, id).await["status"], "draft");
    let (_, customer) = read(app.get(&format!("/customers/{customer_id}")).await).await;
    assert_eq!(customer["next_billing_statement_sequence_number"], "1", "a refused finalize takes no number");

    // An empty list of methods is named once, where it was given.
    let body = json!({"customer_id": customer_id, "payment_settings": {"payment_methods": []}});
    let (status, refused) =
        read(app.json(Method::POST, "/billing_statements", &app.keys.secret_test, &body).await).await;
    assert_eq!(
        (status, error_codes(&refused)),
        (400, vec![("payment_settings[payment_methods]".into(), "parameter_invalid".into())])
    );
    // A sequence at its largest value cannot number another statement; past it is refused as such.
    let customer_path = format!("/customers/{customer_id}");
    let key = app.keys.secret_test.clone();
    let too_far = "next_billing_statement_sequence_number=1000000000000";
    let (status, refused) = read(app.form(Method::PUT, &customer_path, &key, too_far).await).await;
    assert_eq!(
        (status, error_codes(&refused)),
        (400, vec![("next_billing_statement_sequence_number".into(), "parameter_above_maximum".into())])
    );
    let last = "next_billing_statement_sequence_number=999999999999";
    assert_eq!(read(app.form(Method::PUT, &customer_path, &key, last).await).await.0, 200);
    let fresh = draft(&app, &customer_id, now + 10 * DAY).await;
    let fresh_id = fresh["id"].as_str().unwrap();
    add_item(&app, fresh_id, "Work", 5_000, 1).await;
    let (status, refused) = app.post(&format!("/billing_statements/{fresh_id}/finalize"), "").await;
    assert_eq!(status, 400);
    assert!(single_error(&refused, "parameter_above_maximum").contains("set it lower"), "{refused}");

    for path in
        ["/billing_statements/bstm_nobody", "/billing_statements/x", "/billing_statement_line_items/bstm_li_nobody"]
    {
        let (status, missing) = read(app.get(path).await).await;
        assert_eq!(status, 404, "{path}: {missing}");
        single_error(&missing, "resource_not_found");
    }
    let (status, missing) = app.post("/billing_statements/bstm_nobody/finalize", "").await;
    assert_eq!((status, single_error(&missing, "resource_not_found").contains("bstm_nobody")), (404, true));
}

async fn only_drafts_change_and_open_statements_close_once(app: TestApp) {
    let open = open_statement(&app).await;
    let id = open["id"].as_str().unwrap();
    let item = open["line_items"][0]["id"].as_str().unwrap();
    let key = app.keys.secret_test.clone();
    let refusals = [
        app.post(
            "/billing_statement_line_items",
            &format!("billing_statement_id={id}&description=More&unit_price=100&quantity=1"),
        )
        .await,
        read(app.form(Method::PUT, &format!("/billing_statement_line_items/{item}"), &key, "quantity=9").await).await,
        read(app.request(Method::DELETE, &format!("/billing_statement_line_items/{item}"), &key).send().await.unwrap())
            .await,
        read(app.form(Method::PUT, &format!("/billing_statements/{id}"), &key, "description=Changed").await).await,
        read(app.request(Method::DELETE, &format!("/billing_statements/{id}"), &key).send().await.unwrap()).await,
        app.post(&format!("/billing_statements/{id}/finalize"), "").await,
    ];
    for (status, refused) in refusals {
        assert_eq!(status, 400, "{refused}");
        assert!(single_error(&refused, "resource_invalid_state").contains("open"), "{refused}");
    }
    let (status, updated) =
        read(app.form(Method::PUT, &format!("/billing_statements/{id}"), &key, "metadata[po]=7").await).await;
    assert_eq!((status, &updated["metadata"], &updated["amount"]), (200, &json!({"po": "7"}), &open["amount"]));
    for unchanged in ["metadata[po]=7", ""] {
        let (status, same) =
            read(app.form(Method::PUT, &format!("/billing_statements/{id}"), &key, unchanged).await).await;
        assert_eq!((status, &same["updated_at"]), (200, &updated["updated_at"]), "{same}");
    }

    // The merchant cannot cancel or change the statement's intent behind its back.
    let intent_id = open["payment_intent"]["id"].as_str().unwrap();
    let (status, refused) = app.post(&format!("/payment_intents/{intent_id}/cancel"), "").await;
    assert_eq!(status, 400);
    assert!(single_error(&refused, "resource_invalid_state").contains(id), "{refused}");

    let (status, voided) = app.post(&format!("/billing_statements/{id}/void"), "").await;
    assert_eq!((status, &voided["status"], &voided["url"]), (200, &json!("void"), &Value::Null));
    assert_eq!(voided["payment_intent"]["status"], "canceled");
    let (_, events) = read(app.get("/events?limit=3").await).await;
    let voided_event =
        events["data"].as_array().unwrap().iter().find(|e| e["type"] == "billing_statement.voided").unwrap();
    assert_eq!(voided_event["data"]["payment_intent"]["status"], "canceled");
    assert_eq!(
        voided_event["previous_attributes"]["payment_intent"]["status"], "awaiting_payment_method",
        "the event's previous attributes show the intent before it was canceled"
    );
    for action in ["void", "mark_uncollectible", "send", "finalize"] {
        let (status, refused) = app.post(&format!("/billing_statements/{id}/{action}"), "").await;
        assert_eq!(status, 400, "{action}: {refused}");
        single_error(&refused, "resource_invalid_state");
    }
    let (status, page) = open_page(open["url"].as_str().unwrap()).await;
    assert_eq!(status, 410);
    assert!(page.contains("voided"), "{page}");

    let other = open_statement(&app).await;
    let other_id = other["id"].as_str().unwrap();
    assert_eq!(other["billing_statement_number"], "ACME2-0001", "each customer has its own prefix and sequence");
    let (status, closed) = app.post(&format!("/billing_statements/{other_id}/mark_uncollectible"), "").await;
    assert_eq!(
        (status, &closed["status"], &closed["payment_intent"]["status"]),
        (200, &json!("uncollectible"), &json!("canceled"))
    );

    // A draft is deleted with its line items; a body parameter is refused first.
    let (customer_id, now) = customer(&app).await;
    let draft = draft(&app, &customer_id, now + DAY).await;
    let draft_id = draft["id"].as_str().unwrap();
    let line = add_item(&app, draft_id, "Work", 5_000, 1).await;
    let path = format!("/billing_statements/{draft_id}");
    let (status, refused) = read(app.form(Method::DELETE, &path, &key, "force=true").await).await;
    assert_eq!((status, error_codes(&refused)), (400, vec![("force".into(), "parameter_invalid".into())]));
    let (status, deleted) = read(app.request(Method::DELETE, &path, &key).send().await.unwrap()).await;
    assert_eq!(deleted, json!({"id": draft_id, "resource": "billing_statement", "deleted": true}), "{status}");
    assert_eq!(read(app.get(&path).await).await.0, 404);
    assert_eq!(
        read(app.get(&format!("/billing_statement_line_items/{}", line["id"].as_str().unwrap())).await).await.0,
        404
    );

    let types = app.event_types().await;
    for expected in [
        "billing_statement.voided",
        "billing_statement.marked_uncollectible",
        "billing_statement.deleted",
        "billing_statement.updated",
    ] {
        assert_eq!(types.iter().filter(|t| *t == expected).count(), 1, "{expected}: {types:?}");
    }
    assert_eq!(types.iter().filter(|t| *t == "payment_intent.canceled").count(), 2, "{types:?}");
}

async fn concurrent_finalizes_of_one_customer_never_share_a_number(app: TestApp) {
    let (customer_id, now) = customer(&app).await;
    let mut statements = Vec::new();
    for _ in 0..6 {
        let statement = draft(&app, &customer_id, now + DAY).await;
        let id = statement["id"].as_str().unwrap().to_owned();
        add_item(&app, &id, "Work", 5_000, 1).await;
        statements.push(id);
    }
    let finalizes =
        statements.iter().map(|id| app.call(Method::POST, format!("/billing_statements/{id}/finalize"), String::new()));
    let answers = futures_util::future::join_all(finalizes).await;
    let mut numbers: Vec<String> = answers
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, 200, "{body}");
            body["billing_statement_number"].as_str().unwrap().to_owned()
        })
        .collect();
    numbers.sort();
    assert_eq!(numbers, (1..=6).map(|n| format!("ACME-{n:04}")).collect::<Vec<_>>());
    let (_, customer) = read(app.get(&format!("/customers/{customer_id}")).await).await;
    assert_eq!(customer["next_billing_statement_sequence_number"], "7");
}

async fn line_item_edits_racing_a_finalize_keep_the_amount_right(app: TestApp) {
    let (customer_id, now) = customer(&app).await;
    let statement = draft(&app, &customer_id, now + DAY).await;
    let id = statement["id"].as_str().unwrap().to_owned();
    let first = add_item(&app, &id, "Base", 5_000, 1).await;
    let first_path = format!("/billing_statement_line_items/{}", first["id"].as_str().unwrap());
    let mut requests = vec![app.call(Method::POST, format!("/billing_statements/{id}/finalize"), String::new())];
    for n in 0..6 {
        requests.push(app.call(
            Method::POST,
            "/billing_statement_line_items".to_owned(),
            format!("billing_statement_id={id}&description=Item%20{n}&unit_price=1000&quantity=1"),
        ));
    }
    requests.push(app.call(Method::PUT, first_path, "quantity=2".to_owned()));
    let answers = futures_util::future::join_all(requests).await;
    assert_eq!(answers[0].0, 200, "the finalize succeeds: {}", answers[0].1);
    for (status, body) in &answers[1..] {
        assert!(
            *status == 200 || (*status == 400 && body["errors"][0]["code"] == "resource_invalid_state"),
            "{status}: {body}"
        );
    }
    let statement = retrieve(&app, &id).await;
    let sum: i64 = statement["line_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["unit_price"].as_i64().unwrap() * i["quantity"].as_i64().unwrap())
        .sum();
    assert_eq!(statement["amount"], sum);
    assert_eq!(statement["payment_intent"]["amount"], sum, "the intent charges exactly the finalized items");
    let added = answers[1..7].iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(statement["line_items"].as_array().unwrap().len(), 1 + added, "every accepted line item is on it");
}

async fn the_page_shows_the_statement_and_pays_it_once(app: TestApp) {
    let receiver = Receiver::start(Vec::new());
    let body = format!("url={}&events[]=billing_statement.paid&events[]=payment.paid", receiver.url);
    assert_eq!(app.post("/webhooks", &body).await.0, 200);
    let open = open_statement(&app).await;
    let url = open["url"].as_str().unwrap();
    let response = browser().get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[CACHE_CONTROL], "no-store");
    assert!(response.headers()[CONTENT_SECURITY_POLICY].to_str().unwrap().contains("default-src 'none'"));
    let page = response.text().await.unwrap();
    for shown in [
        "Acme",
        "ACME-0001",
        "Juan dela Cruz",
        "juan@example.com",
        "Consulting",
        "Travel",
        "2 × ₱250.00",
        "₱2,000.00",
        "Pay ₱2,000.00",
        "GCash",
    ] {
        assert!(page.contains(shown), "{shown} missing from the page");
    }
    assert!(!page.contains("Overdue") && !page.contains("<script"), "{page}");

    let visit = visit(url).await;
    let unreadable = visit.submit("payment_method[type]=card%00").await;
    assert_eq!(unreadable.status(), 400);
    assert!(unreadable.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(unreadable.text().await.unwrap().contains("Nothing was charged"));
    let declined = visit.submit(&card_fields("4005550000000019")).await;
    assert_eq!(declined.status(), 402);
    assert!(declined.text().await.unwrap().contains("role=\"alert\""));
    let paid = visit.submit(&card_fields("4242424242424242")).await;
    let path = url.trim_start_matches(app.address.as_str());
    assert_eq!((paid.status().as_u16(), paid.headers()[LOCATION].to_str().unwrap()), (303, path), "back to the page");
    let again = visit.submit(&card_fields("4242424242424242")).await;
    assert_eq!(again.status(), 303, "a second submission is sent to the paid page, not charged");
    let (status, page) = open_page(url).await;
    assert_eq!(status, 200);
    assert!(page.contains("Paid") && !page.contains("payment_method[card][number]"), "{page}");

    let statement = retrieve(&app, open["id"].as_str().unwrap()).await;
    assert_eq!((&statement["status"], &statement["url"]), (&json!("paid"), &Value::Null));
    let payment = &statement["payment_intent"]["latest_payment"];
    assert_eq!(
        (&payment["status"], &payment["origin"], &payment["amount"]),
        (&json!("paid"), &json!("billing_statement"), &json!(200_000))
    );
    let types = app.event_types().await;
    assert_eq!(types.iter().filter(|t| *t == "payment.paid").count(), 1, "{types:?}");
    let tail: Vec<&str> = types.iter().rev().take(3).rev().map(String::as_str).collect();
    assert_eq!(tail, ["payment_intent.succeeded", "payment.paid", "billing_statement.paid"]);

    // The merchant's webhook hears of it.
    let received = receiver.wait_for(2, std::time::Duration::from_secs(10)).await;
    let events: Vec<Value> = received.iter().map(|delivery| serde_json::from_str(&delivery.body).unwrap()).collect();
    let paid = events.iter().find(|event| event["type"] == "billing_statement.paid").expect("billing_statement.paid");
    assert_eq!((&paid["data"]["id"], &paid["data"]["status"]), (&open["id"], &json!("paid")));
    assert_eq!(paid["previous_attributes"]["status"], "open");
}

async fn the_due_date_reminders_come_once_each_with_a_moved_clock(app: TestApp) {
    let open = open_statement(&app).await;
    let url = open["url"].as_str().unwrap();
    let count = |types: &[String], wanted: &str| types.iter().filter(|t| *t == wanted).count();
    app.advance_and_run_due_actions(DAY).await;
    assert_eq!(count(&app.event_types().await, "billing_statement.will_be_due"), 0, "nine days before: nothing");
    app.advance_and_run_due_actions(4 * DAY + 60).await;
    app.advance_and_run_due_actions(60).await;
    let types = app.event_types().await;
    assert_eq!((count(&types, "billing_statement.will_be_due"), count(&types, "billing_statement.overdue")), (1, 0));
    app.advance_and_run_due_actions(5 * DAY).await;
    let (status, page) = open_page(url).await;
    assert!(status == 200 && page.contains("Overdue"), "past due_at the page says so");
    assert_eq!(count(&app.event_types().await, "billing_statement.overdue"), 0, "overdue comes five days after due_at");
    app.advance_and_run_due_actions(5 * DAY).await;
    app.advance_and_run_due_actions(DAY).await;
    let types = app.event_types().await;
    assert_eq!((count(&types, "billing_statement.will_be_due"), count(&types, "billing_statement.overdue")), (1, 1));
    // An open statement can still be paid after due_at.
    let paid = visit(url).await.submit(&card_fields("4242424242424242")).await;
    assert_eq!(paid.status(), 303);
    assert_eq!(retrieve(&app, open["id"].as_str().unwrap()).await["status"], "paid");
}

async fn sending_writes_the_email_to_the_outbox_and_the_mailbox_shows_it(app: TestApp) {
    let (customer_id, now) = customer(&app).await;
    let statement = draft(&app, &customer_id, now + DAY).await;
    let id = statement["id"].as_str().unwrap();
    let (status, refused) = app.post(&format!("/billing_statements/{id}/send"), "").await;
    assert_eq!(status, 400, "a draft is not sent: {refused}");
    let open = open_statement(&app).await;
    let open_id = open["id"].as_str().unwrap();
    let (status, sent) = app.post(&format!("/billing_statements/{open_id}/send"), "").await;
    assert_eq!((status, &sent["id"], &sent["status"]), (200, &json!(open_id), &json!("open")));
    assert!(app.event_types().await.contains(&"billing_statement.sent".to_owned()));

    // Without a mail server the message is kept for the mailbox, which only a test secret key opens.
    let mailbox = format!("{}/test/mailbox", app.address);
    let anonymous = browser().get(&mailbox).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    assert!(anonymous.headers()["www-authenticate"].to_str().unwrap().starts_with("Basic"));
    let live = browser().get(&mailbox).basic_auth(&app.keys.secret_live, Some("")).send().await.unwrap();
    assert_eq!(live.status(), 401, "live mail is never shown");
    let url = open["url"].as_str().unwrap();
    let page = app.mailbox_showing("kept here").await;
    for shown in
        ["kept here", "Billing statement ACME2-0001 from Acme", "juan@example.com", url, "₱2,000.00", "Message-ID"]
    {
        assert!(page.contains(shown), "{shown} missing from the mailbox: {page}");
    }
    let other = browser().get(&mailbox).basic_auth(&app.other_account_key, Some("")).send().await.unwrap();
    assert!(!other.text().await.unwrap().contains("ACME2-0001"), "another account sees none of it");

    // Live mode has no mail server to send through.
    let live_key = app.keys.secret_live.clone();
    let (status, live_customer) =
        read(app.form(Method::POST, "/customers", &live_key, "name=Live&email=live%40example.com&currency=PHP").await)
            .await;
    assert_eq!(status, 200);
    let body = format!("customer_id={}&due_at={}", live_customer["id"].as_str().unwrap(), now + DAY);
    let (_, live_statement) = read(app.form(Method::POST, "/billing_statements", &live_key, &body).await).await;
    let live_id = live_statement["id"].as_str().unwrap();
    let item = format!("billing_statement_id={live_id}&description=Work&unit_price=5000&quantity=1");
    assert_eq!(read(app.form(Method::POST, "/billing_statement_line_items", &live_key, &item).await).await.0, 200);
    let finalize = app.form(Method::POST, &format!("/billing_statements/{live_id}/finalize"), &live_key, "").await;
    assert_eq!(read(finalize).await.0, 200);
    let (status, unavailable) =
        read(app.form(Method::POST, &format!("/billing_statements/{live_id}/send"), &live_key, "").await).await;
    assert_eq!(status, 503, "{unavailable}");
    assert!(single_error(&unavailable, "service_unavailable").contains("No mail server"), "{unavailable}");
}

async fn statements_are_invisible_to_other_accounts_and_modes(app: TestApp) {
    let open = open_statement(&app).await;
    let id = open["id"].as_str().unwrap();
    let item = open["line_items"][0]["id"].as_str().unwrap();
    for key in [&app.other_account_key, &app.keys.secret_live] {
        for path in [format!("/billing_statements/{id}"), format!("/billing_statement_line_items/{item}")] {
            let (status, _) = read(app.request(Method::GET, &path, key).send().await.unwrap()).await;
            assert_eq!(status, 404, "{path}");
        }
        let (status, _) = read(app.form(Method::POST, &format!("/billing_statements/{id}/void"), key, "").await).await;
        assert_eq!(status, 404);
        let (_, list) = read(app.request(Method::GET, "/billing_statements", key).send().await.unwrap()).await;
        assert!(ids(&list).is_empty());
    }
    let (status, _) =
        read(app.request(Method::GET, "/billing_statements", &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(status, 401, "a public key cannot read statements");
    assert_eq!(retrieve(&app, id).await["status"], "open");
}
