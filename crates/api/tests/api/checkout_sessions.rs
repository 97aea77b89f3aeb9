//! Checkout sessions over HTTP: create, retrieve, list and expire with every bad input refused, the
//! background expiry, the events, and the hosted page driven as a browser without JavaScript would
//! (form token, declines, double submissions, redirects to `success_url`). Real-browser tests are in
//! `checkout_browser.rs`.

use crate::helpers::{browser, error_codes, ids, open_page, read, single_error, TestApp};
use reqwest::header::{CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    a_session_is_created_with_its_intent_and_listed,
    bad_sessions_are_refused_and_change_nothing,
    expiring_cancels_the_intent_once,
    the_background_job_expires_sessions_at_expires_at,
    the_page_pays_once_and_sends_the_customer_to_success_url,
    a_declined_card_is_shown_and_another_attempt_pays,
    concurrent_submissions_charge_once,
    the_page_refuses_posts_without_its_form_token,
    the_page_answers_head_as_get_and_other_methods_405,
    pages_of_unknown_expired_and_other_sessions,
    sessions_are_invisible_to_other_accounts_and_modes,
);

pub(crate) const SESSION: &str = "line_items[0][name]=Mug&line_items[0][amount]=150000&line_items[0][quantity]=2\
    &line_items[1][name]=Tea&line_items[1][amount]=12345&line_items[1][quantity]=1\
    &line_items[1][description]=Green%20tea&line_items[1][image]=https%3A%2F%2Fcdn.example%2Ftea.png\
    &success_url=https%3A%2F%2Fshop.example%2Fdone%3Fsession%3D%7BCHECKOUT_SESSION_ID%7D\
    &cancel_url=https%3A%2F%2Fshop.example%2Fcart&payment_methods[]=card&payment_methods[]=gcash\
    &description=Order%2042&metadata[order]=42&customer_reference_id=cart-42";

pub(crate) async fn create_session(app: &TestApp, extra: &str) -> Value {
    let (status, session) = app.post("/checkout_sessions", &format!("{SESSION}{extra}")).await;
    assert_eq!(status, 200, "{session}");
    session
}

/// A browser's visit of a checkout page: its form token and the cookie that goes with it.
pub(crate) struct Visit {
    pub url: String,
    pub cookie: String,
    pub token: String,
}

pub(crate) async fn visit(url: &str) -> Visit {
    let response = browser().get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let cookie = response.headers().get(SET_COOKIE).unwrap().to_str().unwrap().split(';').next().unwrap().to_owned();
    let html = response.text().await.unwrap();
    let marker = "name=\"form_token\" value=\"";
    let start = html.find(marker).unwrap() + marker.len();
    let token = html[start..start + 32].to_owned();
    assert!(cookie.ends_with(&token), "the cookie {cookie} holds the form's token");
    Visit { url: url.to_owned(), cookie, token }
}

impl Visit {
    pub(crate) async fn submit(&self, fields: &str) -> reqwest::Response {
        browser()
            .post(&self.url)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(COOKIE, &self.cookie)
            .body(format!("form_token={}&{fields}", self.token))
            .send()
            .await
            .unwrap()
    }
}

pub(crate) fn card_fields(number: &str) -> String {
    format!(
        "payment_method[type]=card&payment_method[card][number]={number}&payment_method[card][exp_month]=12\
         &payment_method[card][exp_year]=35&payment_method[card][cvc]=123&payment_method[billing][name]=Ana%20Cruz\
         &payment_method[billing][email]=ana%40example.com&payment_method[billing][address][line1]=1%20Rizal%20St\
         &payment_method[billing][address][city]=Manila&payment_method[billing][address][postal_code]=1000\
         &payment_method[billing][address][country]=PH"
    )
}

async fn retrieve(app: &TestApp, id: &str) -> Value {
    let (status, session) = read(app.get(&format!("/checkout_sessions/{id}")).await).await;
    assert_eq!(status, 200, "{session}");
    session
}

fn location(response: &reqwest::Response) -> String {
    response.headers().get(LOCATION).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
}

async fn a_session_is_created_with_its_intent_and_listed(app: TestApp) {
    let session = create_session(&app, "").await;
    let id = session["id"].as_str().unwrap();
    assert!(id.starts_with("cs_"), "{id}");
    assert_eq!((session["resource"].as_str(), session["status"].as_str()), (Some("checkout_session"), Some("active")));
    assert_eq!(session["amount"], 2 * 150_000 + 12_345);
    assert_eq!((&session["currency"], &session["livemode"]), (&json!("PHP"), &json!(false)));
    let items = session["line_items"].as_array().unwrap();
    assert!(items.iter().all(|item| item["id"].as_str().unwrap().starts_with("cs_li_")));
    assert_eq!(
        (&items[0]["resource"], &items[0]["description"], &items[0]["image"]),
        (&json!("checkout_session_line_item"), &Value::Null, &Value::Null)
    );
    assert_eq!(
        (&items[1]["description"], &items[1]["image"]),
        (&json!("Green tea"), &json!("https://cdn.example/tea.png"))
    );
    let secret = session["client_secret"].as_str().unwrap();
    assert!(secret.starts_with(&format!("{id}_secret_")));
    assert_eq!(session["url"], format!("{}/c/{secret}", app.address));
    assert_eq!(
        (&session["billing_details_collection"], &session["submit_type"], &session["customer_reference_id"]),
        (&json!("always"), &json!("pay"), &json!("cart-42"))
    );
    let lifetime = session["expires_at"].as_i64().unwrap() - session["created_at"].as_i64().unwrap();
    assert_eq!(lifetime, 24 * 60 * 60);
    let intent = &session["payment_intent"];
    assert_eq!((&intent["amount"], &intent["status"]), (&session["amount"], &json!("awaiting_payment_method")));
    assert_eq!((&intent["metadata"], &intent["description"]), (&json!({"order": "42"}), &json!("Order 42")));
    assert_eq!(intent["return_url"], session["url"], "redirects come back to the page");
    assert_eq!(intent["payment_methods"], json!(["card", "gcash"]));
    assert_eq!(retrieve(&app, id).await, session);

    // JSON works as well, with the other submit types and collection.
    let body = json!({"line_items": [{"name": "Ticket", "amount": 5000, "quantity": 1}], "success_url": "https://s.example/ok",
        "cancel_url": "https://s.example/no", "payment_methods": ["card"], "submit_type": "donate",
        "billing_details_collection": "auto", "statement_descriptor": "ACME TICKETS",
        "expires_at": session["created_at"].as_i64().unwrap() + 3_600,
        "payment_method_options": {"card": {"capture_type": "manual"}}});
    let (status, second) = read(app.json(Method::POST, "/checkout_sessions", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!((&second["submit_type"], &second["billing_details_collection"]), (&json!("donate"), &json!("auto")));
    assert_eq!(second["payment_intent"]["statement_descriptor"], "ACME TICKETS");
    assert_eq!(second["payment_method_options"]["card"]["capture_type"], "manual");

    let (status, list) = read(app.get("/checkout_sessions?limit=1").await).await;
    assert_eq!(
        (status, ids(&list), &list["has_more"]),
        (200, vec![second["id"].as_str().unwrap().to_owned()], &json!(true))
    );
    let (_, older) = read(app.get(&format!("/checkout_sessions?after={}", second["id"].as_str().unwrap())).await).await;
    assert_eq!(ids(&older), vec![id.to_owned()]);
    let (status, unknown) = read(app.get("/checkout_sessions?after=cs_nope").await).await;
    assert_eq!((status, error_codes(&unknown)), (400, vec![("after".into(), "resource_not_found".into())]));
}

async fn bad_sessions_are_refused_and_change_nothing(app: TestApp) {
    let (status, body) = app.post("/checkout_sessions", "description=x").await;
    assert_eq!(status, 400);
    let mut codes = error_codes(&body);
    codes.sort();
    assert_eq!(
        codes,
        ["cancel_url", "line_items", "payment_methods", "success_url"]
            .map(|p| (p.to_owned(), "parameter_required".to_owned()))
    );
    let urls = "cancel_url=https://s.example/no&payment_methods[]=card";
    let cases: [(&str, Vec<(&str, &str)>); 12] = [
        ("line_items[0][name]=A&line_items[0][amount]=1999&line_items[0][quantity]=1", vec![("line_items", "parameter_below_minimum")]),
        (
            "line_items[0][name]=A&line_items[0][amount]=3000000000&line_items[0][quantity]=2",
            vec![("line_items", "parameter_above_maximum")],
        ),
        (
            "line_items[0][name]=A&line_items[0][amount]=9223372036854775807&line_items[0][quantity]=9",
            vec![("line_items", "parameter_above_maximum")],
        ),
        (
            "line_items[0][name]=%20&line_items[0][amount]=0&line_items[0][quantity]=0&line_items[0][image]=http://x.example/a.png",
            vec![
                ("line_items[0][amount]", "parameter_below_minimum"),
                ("line_items[0][image]", "parameter_invalid"),
                ("line_items[0][name]", "parameter_invalid"),
                ("line_items[0][quantity]", "parameter_below_minimum"),
            ],
        ),
        ("line_items[0][amount]=5000", vec![("line_items[0][name]", "parameter_required"), ("line_items[0][quantity]", "parameter_required")]),
        ("line_items[0][name]=A&line_items[0][amount]=5000&line_items[0][quantity]=1&line_items[0][color]=red", vec![("line_items[0][color]", "parameter_invalid")]),
        ("line_items=x", vec![("line_items", "parameter_type_invalid")]),
        ("line_items[0][name]=A&line_items[0][amount]=2.5&line_items[0][quantity]=1", vec![("line_items[0][amount]", "parameter_type_invalid")]),
        ("line_items[0][name]=A&line_items[0][amount]=5000&line_items[0][quantity]=1&expires_at=1", vec![("expires_at", "parameter_below_minimum")]),
        ("line_items[0][name]=A&line_items[0][amount]=5000&line_items[0][quantity]=1&expires_at=99999999999", vec![("expires_at", "parameter_above_maximum")]),
        (
            "line_items[0][name]=A&line_items[0][amount]=5000&line_items[0][quantity]=1&submit_type=buy&billing_details_collection=never&currency=USD",
            vec![("billing_details_collection", "parameter_invalid"), ("currency", "parameter_invalid"), ("submit_type", "parameter_invalid")],
        ),
        (
            "line_items[0][name]=A&line_items[0][amount]=5000&line_items[0][quantity]=1&statement_descriptor=ABCDEFGHIJKLMNOPQRSTUVW&success_url=ftp://x",
            vec![("statement_descriptor", "parameter_invalid"), ("success_url", "parameter_invalid")],
        ),
    ];
    for (fields, expected) in cases {
        let success = if fields.contains("success_url") { "" } else { "&success_url=https://s.example/ok" };
        let body = format!("{fields}&{urls}{success}");
        let (status, refused) = app.post("/checkout_sessions", &body).await;
        let mut codes = error_codes(&refused);
        codes.sort();
        let expected: Vec<(String, String)> =
            expected.iter().map(|(p, c)| ((*p).to_owned(), (*c).to_owned())).collect();
        assert_eq!((status, codes), (400, expected), "{fields}: {refused}");
    }
    let too_many: String = (0..101)
        .map(|i| format!("&line_items[{i}][name]=A&line_items[{i}][amount]=100&line_items[{i}][quantity]=1"))
        .collect();
    let (status, refused) =
        app.post("/checkout_sessions", &format!("{urls}&success_url=https://s.example/ok{too_many}")).await;
    assert_eq!((status, error_codes(&refused)), (400, vec![("line_items".into(), "parameter_invalid".into())]));
    let (status, refused) = read(
        app.json(
            Method::POST,
            "/checkout_sessions",
            &app.keys.secret_test,
            &json!({"line_items": [],
        "success_url": "https://s.example/ok", "cancel_url": "https://s.example/no", "payment_methods": ["card"]}),
        )
        .await,
    )
    .await;
    assert_eq!((status, error_codes(&refused)), (400, vec![("line_items".into(), "parameter_invalid".into())]));
    let response = app.form(Method::POST, "/checkout_sessions", &app.keys.public_test, SESSION).await;
    assert_eq!(response.status(), 401, "a public key cannot create sessions");

    let (_, list) = read(app.get("/checkout_sessions").await).await;
    assert_eq!(ids(&list), Vec::<String>::new(), "nothing was created");
    let (_, events) = read(app.get("/events").await).await;
    assert_eq!(ids(&events), Vec::<String>::new());
}

async fn expiring_cancels_the_intent_once(app: TestApp) {
    let session = create_session(&app, "").await;
    let id = session["id"].as_str().unwrap();
    let intent_id = session["payment_intent"]["id"].as_str().unwrap();
    // The merchant cannot cancel or change the session's intent behind its back.
    let (status, refused) = app.post(&format!("/payment_intents/{intent_id}/cancel"), "").await;
    assert!(status == 400 && single_error(&refused, "resource_invalid_state").contains(id), "{refused}");
    let response =
        app.form(Method::PUT, &format!("/payment_intents/{intent_id}"), &app.keys.secret_test, "amount=9000").await;
    let (status, refused) = read(response).await;
    assert_eq!(status, 400, "{refused}");
    single_error(&refused, "resource_invalid_state");

    let (status, expired) = app.post(&format!("/checkout_sessions/{id}/expire"), "").await;
    assert_eq!(status, 200, "{expired}");
    assert_eq!((&expired["status"], &expired["payment_intent"]["status"]), (&json!("expired"), &json!("canceled")));
    assert_eq!(retrieve(&app, id).await["status"], "expired");
    let (status, again) = app.post(&format!("/checkout_sessions/{id}/expire"), "").await;
    assert_eq!(status, 400);
    assert!(single_error(&again, "resource_invalid_state").contains("expired"), "{again}");
    assert_eq!(app.event_types().await, ["payment_intent.canceled", "checkout_session.expired"]);
    let (_, events) = read(app.get("/events?limit=1").await).await;
    let event = &events["data"][0];
    assert_eq!((&event["data"]["id"], &event["previous_attributes"]["status"]), (&json!(id), &json!("active")));

    // A paid session cannot expire.
    let paid = create_session(&app, "").await;
    let visit = visit(paid["url"].as_str().unwrap()).await;
    assert_eq!(visit.submit(&card_fields("4242424242424242")).await.status(), 303);
    let (status, refused) = app.post(&format!("/checkout_sessions/{}/expire", paid["id"].as_str().unwrap()), "").await;
    assert_eq!(status, 400);
    single_error(&refused, "resource_invalid_state");
    let (status, missing) = app.post("/checkout_sessions/cs_missing/expire", "").await;
    assert_eq!(status, 404, "{missing}");
    let (status, extra) = app.post(&format!("/checkout_sessions/{id}/expire"), "force=true").await;
    assert_eq!((status, error_codes(&extra)), (400, vec![("force".into(), "parameter_invalid".into())]));
}

async fn the_background_job_expires_sessions_at_expires_at(app: TestApp) {
    let created_at = create_session(&app, "").await["created_at"].as_i64().unwrap();
    let short = create_session(&app, &format!("&expires_at={}", created_at + 1_800)).await;
    let long = create_session(&app, "").await;
    // Twenty seconds before `expires_at` (slack for a loaded machine: the clock also runs in real time).
    app.advance_and_run_due_actions(1_780).await;
    assert_eq!(retrieve(&app, short["id"].as_str().unwrap()).await["status"], "active");
    app.advance_and_run_due_actions(21).await;
    let expired = retrieve(&app, short["id"].as_str().unwrap()).await;
    assert_eq!((&expired["status"], &expired["payment_intent"]["status"]), (&json!("expired"), &json!("canceled")));
    assert_eq!(retrieve(&app, long["id"].as_str().unwrap()).await["status"], "active");
    let (status, page) = open_page(short["url"].as_str().unwrap()).await;
    assert_eq!(status, 410);
    assert!(page.contains("expired") && page.contains("https://shop.example/cart"), "{page}");
    assert_eq!(app.advance_and_run_due_actions(0).await, 0, "an expired session expires once");
    app.advance_and_run_due_actions(24 * 60 * 60).await;
    assert_eq!(retrieve(&app, long["id"].as_str().unwrap()).await["status"], "expired");
    let types = app.event_types().await;
    assert_eq!(types.iter().filter(|t| *t == "checkout_session.expired").count(), 3, "{types:?}");
}

async fn the_page_pays_once_and_sends_the_customer_to_success_url(app: TestApp) {
    let session = create_session(&app, "").await;
    let id = session["id"].as_str().unwrap();
    let url = session["url"].as_str().unwrap();
    let response = browser().get(url).send().await.unwrap();
    let headers = response.headers();
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["x-frame-options"], "DENY");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    let policy = headers["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"), "{policy}");
    assert!(!policy.contains("unsafe-inline") && !policy.contains("script-src"), "no script may run: {policy}");
    let cookie = headers[SET_COOKIE].to_str().unwrap().to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
    let page = response.text().await.unwrap();
    for shown in
        ["Mug", "Tea", "Green tea", "2 × ₱1,500.00", "₱3,000.00", "₱123.45", "₱3,123.45", "Pay ₱3,123.45", "Order 42"]
    {
        assert!(page.contains(shown), "{shown} is on the page");
    }
    for hidden in ["cart-42", "metadata", "<script"] {
        assert!(!page.contains(hidden), "{hidden} is not on the page");
    }
    assert!(
        page.contains("/assets/item.svg") && page.contains("https://cdn.example/tea.png"),
        "images, with a default"
    );

    let visit = visit(url).await;
    let paid = visit.submit(&card_fields("4242 4242 4242 4242")).await;
    assert_eq!(paid.status(), 303);
    assert_eq!(location(&paid), format!("https://shop.example/done?session={id}"));
    let completed = retrieve(&app, id).await;
    assert_eq!(
        (&completed["status"], &completed["payment_intent"]["status"]),
        (&json!("completed"), &json!("succeeded"))
    );
    let payment = &completed["payment_intent"]["latest_payment"];
    assert_eq!((&payment["billing"]["name"], &payment["metadata"]), (&json!("Ana Cruz"), &json!({"order": "42"})));
    assert_eq!(app.event_types().await, ["payment_intent.succeeded", "payment.paid", "checkout_session.completed"]);

    // A reload shows "paid"; a second submission sends the customer on without charging again.
    let (status, page) = open_page(url).await;
    assert!(status == 200 && page.contains("Paid") && page.contains("https://shop.example/done"), "{page}");
    let again = visit.submit(&card_fields("4242424242424242")).await;
    assert_eq!((again.status().as_u16(), location(&again)), (303, format!("https://shop.example/done?session={id}")));
    assert_eq!(app.event_types().await.len(), 3, "nothing more happened");
}

async fn a_declined_card_is_shown_and_another_attempt_pays(app: TestApp) {
    let session = create_session(&app, "").await;
    let visit = visit(session["url"].as_str().unwrap()).await;
    let declined = visit.submit(&card_fields("4000000000001000")).await;
    assert_eq!(declined.status(), 402);
    let page = declined.text().await.unwrap();
    assert!(page.contains("role=\"alert\"") && page.contains("Try again"), "{page}");
    assert!(page.contains("value=\"Ana Cruz\"") && !page.contains("4000000000001000"), "billing kept, card not echoed");

    // Bad inputs are named beside their fields and charge nothing.
    let bad = visit
        .submit("payment_method[type]=card&payment_method[card][number]=4242424242424241&payment_method[card][cvc]=1")
        .await;
    assert_eq!(bad.status(), 422);
    let page = bad.text().await.unwrap();
    for error in
        ["The card number is not valid.", "The CVC must be 3 or 4 digits.", "Enter the e-mail.", "Enter the full name."]
    {
        assert!(page.contains(error), "{error} in {page}");
    }
    assert!(page.contains("aria-invalid=\"true\" aria-describedby=\"cc-number-error\""), "{page}");
    let wrong_method = visit.submit(&card_fields("4242424242424242").replace("type]=card", "type]=maya")).await;
    assert_eq!(wrong_method.status(), 422);
    assert!(wrong_method.text().await.unwrap().contains("does not allow maya"));

    // GCash goes through the test authorization page and back to this page, then to success_url.
    let gcash = visit.submit(&card_fields("").replace("type]=card", "type]=gcash")).await;
    assert_eq!(gcash.status(), 303, "{:?}", gcash.text().await);
    let authorize = location(&gcash);
    assert!(authorize.contains("/test/authorize/"), "{authorize}");
    let back = crate::helpers::decide(&authorize, "authorize").await;
    let back_url = location(&back);
    assert!(
        back_url.starts_with(session["url"].as_str().unwrap()) && back_url.contains("payment_intent_client_secret=")
    );
    let done = browser().get(&back_url).send().await.unwrap();
    assert_eq!(
        (done.status().as_u16(), location(&done)),
        (303, format!("https://shop.example/done?session={}", session["id"].as_str().unwrap()))
    );
    let types = app.event_types().await;
    assert_eq!(types, ["payment.failed", "payment_intent.succeeded", "payment.paid", "checkout_session.completed"]);
}

async fn concurrent_submissions_charge_once(app: TestApp) {
    let session = create_session(&app, "").await;
    let visit = visit(session["url"].as_str().unwrap()).await;
    let fields = card_fields("4242424242424242");
    let submissions = (0..4).map(|_| visit.submit(&fields));
    let answers = futures_util::future::join_all(submissions).await;
    let success = format!("https://shop.example/done?session={}", session["id"].as_str().unwrap());
    for answer in &answers {
        assert_eq!(answer.status(), 303, "every submission ends at the shop or the page");
        assert_eq!(location(answer), success, "the losers of the race are sent on to the shop too");
    }
    let types = app.event_types().await;
    assert_eq!(types.iter().filter(|t| *t == "payment.paid").count(), 1, "{types:?}");
    assert_eq!(types.iter().filter(|t| *t == "checkout_session.completed").count(), 1, "{types:?}");
}

async fn the_page_refuses_posts_without_its_form_token(app: TestApp) {
    let session = create_session(&app, "").await;
    let url = session["url"].as_str().unwrap();
    let visit = visit(url).await;
    let fields = card_fields("4242424242424242");
    let forged = [
        browser().post(url).header(CONTENT_TYPE, "application/x-www-form-urlencoded").body(fields.clone()),
        browser()
            .post(url)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(format!("form_token={}&{fields}", visit.token)),
        browser()
            .post(url)
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(COOKIE, &visit.cookie)
            .body(format!("form_token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&{fields}")),
    ];
    for request in forged {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 403);
        assert!(response.text().await.unwrap().contains("Nothing was charged"));
    }
    assert_eq!(retrieve(&app, session["id"].as_str().unwrap()).await["status"], "active");
    assert!(app.event_types().await.is_empty());
}

async fn the_page_answers_head_as_get_and_other_methods_405(app: TestApp) {
    let session = create_session(&app, "").await;
    let url = session["url"].as_str().unwrap();
    let head = browser().head(url).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert!(head.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(head.bytes().await.unwrap().is_empty(), "HEAD has no body");
    for method in [reqwest::Method::PUT, reqwest::Method::DELETE, reqwest::Method::TRACE] {
        let refused = browser().request(method.clone(), url).send().await.unwrap();
        assert_eq!(refused.status(), 405, "{method}");
        assert_eq!(refused.headers()["allow"], "GET, HEAD, POST", "{method}");
        assert!(refused.text().await.unwrap().contains("Use the form of the page"), "{method}");
    }
    assert_eq!(retrieve(&app, session["id"].as_str().unwrap()).await["status"], "active");
}

async fn pages_of_unknown_expired_and_other_sessions(app: TestApp) {
    let session = create_session(&app, "").await;
    let url = session["url"].as_str().unwrap();
    for wrong in [
        format!("{url}x"),
        url.replace("_secret_", "_secret_x"),
        format!("{}/c/cs_x_secret_y", app.address),
        format!("{}/c/%00", app.address),
    ] {
        let (status, page) = open_page(&wrong).await;
        assert!(status == 404 && page.contains("not valid"), "{wrong}: {status}");
    }
    let visit = visit(url).await;
    app.post(&format!("/checkout_sessions/{}/expire", session["id"].as_str().unwrap()), "").await;
    let (status, _) = open_page(url).await;
    assert_eq!(status, 410);
    let late = visit.submit(&card_fields("4242424242424242")).await;
    assert_eq!(late.status(), 410, "an expired session cannot be paid");
    assert!(!app.event_types().await.iter().any(|t| t == "payment.paid"));
}

async fn sessions_are_invisible_to_other_accounts_and_modes(app: TestApp) {
    let session = create_session(&app, "").await;
    let id = session["id"].as_str().unwrap();
    for key in [&app.other_account_key, &app.keys.secret_live] {
        let (status, _) =
            read(app.request(Method::GET, &format!("/checkout_sessions/{id}"), key).send().await.unwrap()).await;
        assert_eq!(status, 404);
        let (status, _) = read(app.form(Method::POST, &format!("/checkout_sessions/{id}/expire"), key, "").await).await;
        assert_eq!(status, 404);
        let (_, list) = read(app.request(Method::GET, "/checkout_sessions", key).send().await.unwrap()).await;
        assert!(ids(&list).is_empty());
    }
    assert_eq!(retrieve(&app, id).await["status"], "active");
}
