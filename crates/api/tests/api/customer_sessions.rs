//! Customer sessions over HTTP: both path spellings, components, expiry, what the client secret lets
//! a browser do with the customer's saved methods (and nothing else), and isolation.

use crate::helpers::{error_codes, ids, read, single_error, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

on_both_backends!(
    a_session_is_created_on_both_spellings_and_retrieved,
    bad_sessions_are_refused,
    the_client_secret_lists_and_removes_saved_methods_only_as_enabled,
    a_session_expires_after_24_hours,
    sessions_are_invisible_to_other_accounts_and_modes,
    a_card_is_saved_while_paying_only_through_a_session_that_allows_it,
    a_forged_save_is_refused_and_changes_nothing,
    a_saved_card_takes_a_renewed_expiry_only_as_allowed,
);

pub(crate) const ALL_ENABLED: &str = "components[][component]=payment_element&components[][feature]=payment_method_redisplay\
    &components[][value]=enabled&components[][component]=payment_element&components[][feature]=payment_method_remove\
    &components[][value]=enabled";

/// A session that lets the customer change a saved card's expiry, and nothing else.
pub(crate) const EDIT_ENABLED: &str =
    "components[][component]=payment_element&components[][feature]=payment_method_edit&components[][value]=enabled";

/// A session that lets the customer save a card while paying, and nothing else.
pub(crate) const SAVE_ENABLED: &str =
    "components[][component]=payment_element&components[][feature]=payment_method_save&components[][value]=enabled";

pub(crate) async fn saved_card(app: &TestApp, customer_id: &str) -> String {
    let (status, intent) =
        app.post("/setup_intents", &format!("customer_id={customer_id}&payment_methods[]=card")).await;
    assert_eq!(status, 200, "{intent}");
    let body = "payment_method[type]=card&payment_method[card][number]=4242424242424242\
                &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";
    let (status, saved) = app.post(&format!("/setup_intents/{}/attach", intent["id"].as_str().unwrap()), body).await;
    assert_eq!(status, 200, "{saved}");
    saved["payment_method_id"].as_str().unwrap().to_owned()
}

async fn create_session(app: &TestApp, customer_id: &str, components: &str) -> Value {
    let (status, session) = app.post("/customer_sessions", &format!("customer_id={customer_id}&{components}")).await;
    assert_eq!(status, 200, "{session}");
    session
}

async fn a_session_is_created_on_both_spellings_and_retrieved(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let session = create_session(&app, customer_id, ALL_ENABLED).await;
    let id = session["id"].as_str().unwrap();
    assert!(id.starts_with("cus_s_"), "{id}");
    assert!(session["client_secret"].as_str().unwrap().starts_with(&format!("{id}_secret_")));
    assert_eq!(
        (session["resource"].as_str(), session["customer_id"].as_str()),
        (Some("customer_session"), Some(customer_id))
    );
    assert_eq!(session["customer"]["id"], customer_id);
    assert_eq!((&session["expired"], &session["livemode"]), (&json!(false), &json!(false)));
    let lifetime = session["expired_at"].as_i64().unwrap() - session["created_at"].as_i64().unwrap();
    assert_eq!(lifetime, 24 * 60 * 60);
    assert_eq!(
        session["components"],
        json!([
            {"component": "payment_element", "feature": "payment_method_redisplay", "value": "enabled"},
            {"component": "payment_element", "feature": "payment_method_remove", "value": "enabled"}
        ])
    );
    assert!(session.get("payment_methods").is_none(), "only a browser gets the saved methods");
    assert!(session.get("granted_features").is_none(), "only a browser is told what the element may show");
    let secret = session["client_secret"].as_str().unwrap();
    let browser = format!("/customer_sessions/{id}?client_secret={secret}");
    let (status, seen) = read(app.request(Method::GET, &browser, &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(status, 200, "{seen}");
    assert_eq!(seen["granted_features"], json!(["payment_method_remove", "payment_method_redisplay"]));
    // The last component naming a feature decides.
    let undone = format!("{ALL_ENABLED}&components[][component]=payment_element&components[][feature]=payment_method_remove&components[][value]=disabled");
    let undone = create_session(&app, customer_id, &undone).await;
    let browser = format!("/customer_sessions/{}?client_secret={}", undone["id"].as_str().unwrap(), undone["client_secret"].as_str().unwrap());
    let (_, seen) = read(app.request(Method::GET, &browser, &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(seen["granted_features"], json!(["payment_method_redisplay"]));
    let body = json!({"customer_id": customer_id, "components": [
        {"component": "payment_element", "feature": "payment_method_save", "value": "disabled"}]});
    let (status, spelled) = read(app.json(Method::POST, "/customer_sesions", &app.keys.secret_test, &body).await).await;
    assert_eq!(status, 200, "the seed's spelling: {spelled}");
    for path in [format!("/customer_sessions/{id}"), format!("/customer_sesions/{id}")] {
        let (status, fetched) = read(app.get(&path).await).await;
        assert_eq!((status, &fetched), (200, &session), "{path}");
    }
}

async fn bad_sessions_are_refused(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let (status, body) = app.post("/customer_sessions", "").await;
    assert_eq!((status, error_codes(&body)), (400, vec![("customer_id".to_owned(), "parameter_required".to_owned())]));
    for (body, parameter) in [
        ("customer_id=cus_nobody".to_owned(), "customer_id"),
        (format!("customer_id={customer_id}&components[][component]=buy_button&components[][feature]=payment_method_save&components[][value]=enabled"), "components[0][component]"),
        (format!("customer_id={customer_id}&components[][component]=payment_element&components[][feature]=payment_method_steal&components[][value]=enabled"), "components[0][feature]"),
        (format!("customer_id={customer_id}&components[][component]=payment_element&components[][feature]=payment_method_save&components[][value]=on"), "components[0][value]"),
        (format!("customer_id={customer_id}&components[][component]=payment_element&components[][feature]=payment_method_save"), "components[0][value]"),
        (format!("customer_id={customer_id}&components[][component]=payment_element&components[][feature]=payment_method_save&components[][value]=enabled&components[][extra]=1"), "components[0][extra]"),
        (format!("customer_id={customer_id}&components=all"), "components"),
    ] {
        let (status, answer) = app.post("/customer_sessions", &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(error_codes(&answer)[0].0, parameter, "{body}: {answer}");
    }
    let (status, _) = read(app.get("/customer_sessions/cus_s_unknown").await).await;
    assert_eq!(status, 404);
}

async fn the_client_secret_lists_and_removes_saved_methods_only_as_enabled(app: TestApp) {
    let app = &app;
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let (first, second) = (saved_card(app, customer_id).await, saved_card(app, customer_id).await);
    let session = create_session(app, customer_id, ALL_ENABLED).await;
    let (id, secret) = (session["id"].as_str().unwrap(), session["client_secret"].as_str().unwrap());
    let public = |method: Method, path: String| async move {
        read(app.request(method, &path, &app.keys.public_test).send().await.unwrap()).await
    };
    let (status, body) = public(Method::GET, format!("/customer_sessions/{id}")).await;
    assert_eq!(
        (status, error_codes(&body)),
        (400, vec![("client_secret".to_owned(), "parameter_required".to_owned())])
    );
    let (status, seen) = public(Method::GET, format!("/customer_sessions/{id}?client_secret={secret}")).await;
    assert_eq!(status, 200, "{seen}");
    assert_eq!(ids(&json!({"data": seen["payment_methods"]})), vec![second.clone(), first.clone()], "redisplayed");
    assert_eq!(seen["customer_id"], customer_id);
    assert!(seen.get("customer").is_none(), "the browser does not get the merchant's customer record: {seen}");
    assert!(!seen.to_string().contains("ana@example.com"), "{seen}");
    let (_, full) = read(app.get(&format!("/customer_sessions/{id}")).await).await;
    assert_eq!(full["customer"]["id"], customer_id, "a secret key still gets the customer");
    let path = format!("/customers/{customer_id}/payment_methods");
    let (status, listed) = public(Method::GET, format!("{path}?client_secret={secret}")).await;
    assert_eq!((status, ids(&listed)), (200, vec![second.clone(), first.clone()]), "{listed}");
    let (status, body) = public(Method::GET, path.clone()).await;
    assert_eq!(status, 400, "a public key needs the session's secret: {body}");
    let (status, _) = public(Method::DELETE, format!("{path}/{first}?client_secret={secret}")).await;
    assert_eq!(status, 200, "payment_method_remove is enabled");
    let (status, body) = public(Method::GET, "/customers".to_owned()).await;
    assert_eq!(status, 401, "nothing else: {body}");

    let other = app.create_customer("Ben").await;
    let other_path = format!("/customers/{}/payment_methods", other["id"].as_str().unwrap());
    let (status, body) = public(Method::GET, format!("{other_path}?client_secret={secret}")).await;
    assert_eq!((status, error_codes(&body)[0].0.as_str()), (400, "client_secret"), "another customer: {body}");

    let read_only = create_session(app, customer_id, "").await;
    let read_only_secret = read_only["client_secret"].as_str().unwrap();
    let (status, seen) = public(
        Method::GET,
        format!("/customer_sessions/{}?client_secret={read_only_secret}", read_only["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!((status, seen.get("payment_methods")), (200, None), "redisplay is not enabled");
    let (status, body) = public(Method::DELETE, format!("{path}/{second}?client_secret={read_only_secret}")).await;
    assert_eq!(status, 400, "{body}");
    assert!(single_error(&body, "parameter_invalid").contains("payment_method_remove"));
    let (_, listed) = read(app.get(&path).await).await;
    assert_eq!(ids(&listed), vec![second], "the refused delete changed nothing");
}

async fn a_session_expires_after_24_hours(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    saved_card(&app, customer_id).await;
    let session = create_session(&app, customer_id, ALL_ENABLED).await;
    let (id, secret) = (session["id"].as_str().unwrap(), session["client_secret"].as_str().unwrap());
    app.clock.advance(24 * 60 * 60);
    let (status, expired) = read(app.get(&format!("/customer_sessions/{id}")).await).await;
    assert_eq!((status, &expired["expired"]), (200, &json!(true)));
    let browser = format!("/customer_sessions/{id}?client_secret={secret}");
    let (status, refused) = read(app.request(Method::GET, &browser, &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(status, 400, "an expired session opens nothing to a browser: {refused}");
    assert!(single_error(&refused, "parameter_invalid").contains("expired"), "{refused}");
    let path = format!("/customers/{customer_id}/payment_methods?client_secret={secret}");
    let (status, body) = read(app.request(Method::GET, &path, &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    assert!(single_error(&body, "parameter_invalid").contains("expired"));
}

async fn sessions_are_invisible_to_other_accounts_and_modes(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let session = create_session(&app, customer_id, ALL_ENABLED).await;
    let id = session["id"].as_str().unwrap();
    for key in [&app.other_account_key, &app.keys.secret_live] {
        let (status, body) =
            read(app.request(Method::GET, &format!("/customer_sessions/{id}"), key).send().await.unwrap()).await;
        assert_eq!(status, 404, "{body}");
        let (status, body) =
            read(app.form(Method::POST, "/customer_sessions", key, &format!("customer_id={customer_id}")).await).await;
        assert_eq!((status, error_codes(&body)[0].0.as_str()), (400, "customer_id"), "{body}");
    }
}

/// The card `number` attached to `intent_id` with the public key and the intent's client secret, as
/// the payment element sends it, with `extra` parameters.
async fn attach_in_browser(app: &TestApp, intent: &Value, number: &str, extra: &str) -> (u16, Value) {
    let body = format!(
        "client_secret={}&payment_method[type]=card&payment_method[card][number]={number}\
         &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123\
         &return_url=http%3A%2F%2F127.0.0.1%2Fdone{extra}",
        intent["client_secret"].as_str().unwrap()
    );
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    read(app.form(Method::POST, &path, &app.keys.public_test, &body).await).await
}

async fn a_card_is_saved_while_paying_only_through_a_session_that_allows_it(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let session = create_session(&app, customer_id, SAVE_ENABLED).await;
    let save = format!("&save_payment_method=true&customer_session_client_secret={}", session["client_secret"].as_str().unwrap());
    let methods_path = format!("/customers/{customer_id}/payment_methods");

    let intent = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let (status, paid) = attach_in_browser(&app, &intent, "4242424242424242", &save).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    let (_, intent_now) = read(app.get(&format!("/payment_intents/{}", intent["id"].as_str().unwrap())).await).await;
    let saved_id = intent_now["payment_method_id"].as_str().unwrap().to_owned();
    let (_, methods) = read(app.get(&methods_path).await).await;
    assert_eq!(ids(&methods), std::slice::from_ref(&saved_id), "the card that paid is saved under the id it paid with: {methods}");
    assert_eq!((methods["data"][0]["details"]["last4"].as_str(), methods["data"][0]["usage"].as_str()), (Some("4242"), Some("on_session")));
    assert!(!methods.to_string().contains("4242424242424242"));

    // Saved for on_session use: the customer pays with it again; the merchant alone may not.
    let again = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let path = format!("/payment_intents/{}/attach", again["id"].as_str().unwrap());
    let (status, body) = app.post(&path, &format!("payment_method_id={saved_id}")).await;
    assert_eq!(status, 400, "{body}");
    let body = format!("client_secret={}&payment_method_id={saved_id}", again["client_secret"].as_str().unwrap());
    let (status, repaid) = read(app.form(Method::POST, &path, &app.keys.public_test, &body).await).await;
    assert_eq!((status, repaid["status"].as_str()), (200, Some("succeeded")), "{repaid}");

    // A 3-D Secure card is saved once the customer authenticates, and not when they fail.
    for (decision, saved) in [("fail", false), ("authorize", true)] {
        let challenged = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
        let (status, waiting) = attach_in_browser(&app, &challenged, "4000000000003220", &save).await;
        assert_eq!((status, waiting["status"].as_str()), (200, Some("awaiting_next_action")), "{waiting}");
        let (_, before) = read(app.get(&methods_path).await).await;
        assert_eq!(ids(&before).len(), 1, "nothing is saved before the customer authenticates");
        let page = waiting["next_action"]["redirect_url"].as_str().unwrap();
        assert_eq!(crate::helpers::decide(page, decision).await.status(), 303);
        let (_, after) = read(app.get(&methods_path).await).await;
        let (_, ended) = read(app.get(&format!("/payment_intents/{}", challenged["id"].as_str().unwrap())).await).await;
        assert_eq!(ids(&after).len(), if saved { 2 } else { 1 }, "{decision}: {after}");
        if saved {
            assert_eq!((ids(&after)[0].as_str(), ended["status"].as_str()), (ended["payment_method_id"].as_str().unwrap(), Some("succeeded")));
        }
    }
    // A held payment saves the card at once; a decline saves nothing.
    let held = app.create_intent(10_000, &format!("&customer_id={customer_id}&payment_method_options[card][capture_type]=manual")).await;
    let (status, body) = attach_in_browser(&app, &held, "5425233430109903", &save).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("awaiting_capture")), "{body}");
    let declined = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let (status, body) = attach_in_browser(&app, &declined, "4005550000000019", &save).await;
    assert_eq!(status, 400, "{body}");
    let (_, methods) = read(app.get(&methods_path).await).await;
    assert_eq!(ids(&methods).len(), 3, "the held card, not the declined one: {methods}");
    assert_eq!(methods["data"][0]["details"]["last4"], "9903");
    // The session's client secret is in no request log entry.
    let (_, secret) = session["client_secret"].as_str().unwrap().split_once("_secret_").unwrap();
    let (_, logged) = read(app.get("/request_logs?limit=100").await).await;
    assert!(logged.to_string().contains("customer_session_client_secret"), "the attaches are logged");
    assert!(!logged.to_string().contains(secret), "{logged}");
}

async fn a_forged_save_is_refused_and_changes_nothing(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let intent = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let secret_of = |session: &Value| session["client_secret"].as_str().unwrap().to_owned();
    let saving = secret_of(&create_session(&app, customer_id, SAVE_ENABLED).await);
    let not_saving = secret_of(&create_session(&app, customer_id, ALL_ENABLED).await);
    let other = app.create_customer("Ben").await;
    let other_customers = secret_of(&create_session(&app, other["id"].as_str().unwrap(), SAVE_ENABLED).await);
    let theirs = |path: &str, body: String| {
        app.client.post(format!("{}{path}", app.address)).basic_auth(&app.other_account_key, Some("")).body(body)
            .header("content-type", "application/x-www-form-urlencoded").send()
    };
    let their_customer: Value = theirs("/customers", "name=Ben&email=ben%40example.com&currency=PHP".into()).await.unwrap().json().await.unwrap();
    let their_session: Value = theirs("/customer_sessions", format!("customer_id={}&{SAVE_ENABLED}", their_customer["id"].as_str().unwrap()))
        .await.unwrap().json().await.unwrap();
    let saved = saved_card(&app, customer_id).await;
    let no_customer = app.create_intent(10_000, "").await;
    let with = |secret: &str| format!("&save_payment_method=true&customer_session_client_secret={secret}");

    let forged = [
        ("&save_payment_method=true".to_owned(), "parameter_required", "no session"),
        (format!("&customer_session_client_secret={saving}"), "parameter_invalid", "a session without the save"),
        (format!("&save_payment_method=false&customer_session_client_secret={saving}"), "parameter_invalid", "a save declined"),
        (with(&not_saving), "parameter_invalid", "a session without payment_method_save"),
        (with(&other_customers), "parameter_invalid", "another customer's session"),
        (with(their_session["client_secret"].as_str().unwrap()), "parameter_invalid", "another account's session"),
        (with("cus_s_madeup_secret_x"), "parameter_invalid", "a made-up session"),
    ];
    for (extra, code, why) in &forged {
        let (status, body) = attach_in_browser(&app, &intent, "4242424242424242", extra).await;
        assert_eq!(status, 400, "{why}: {body}");
        assert_eq!(error_codes(&body), [("customer_session_client_secret".to_owned(), (*code).to_owned())], "{why}: {body}");
    }
    let (status, body) = attach_in_browser(&app, &no_customer, "4242424242424242", &with(&saving)).await;
    assert_eq!(status, 400, "an intent without a customer: {body}");
    assert!(single_error(&body, "parameter_invalid").contains("no customer"), "{body}");
    let path = format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap());
    let client_secret = intent["client_secret"].as_str().unwrap();
    for (body, why) in [
        (format!("client_secret={client_secret}&payment_method_id={saved}{}", with(&saving)), "a card saved already"),
        (format!("client_secret={client_secret}&payment_method[type]=gcash{}", with(&saving)), "an e-wallet"),
    ] {
        let (status, answer) = read(app.form(Method::POST, &path, &app.keys.public_test, &body).await).await;
        assert_eq!(status, 400, "{why}: {answer}");
        assert!(single_error(&answer, "parameter_invalid").contains("Only a card entered now"), "{why}: {answer}");
    }
    app.clock.advance(24 * 60 * 60);
    let (status, body) = attach_in_browser(&app, &intent, "4242424242424242", &with(&saving)).await;
    assert_eq!(status, 400, "{body}");
    assert!(single_error(&body, "parameter_invalid").contains("expired"), "{body}");

    let (_, unchanged) = read(app.get(&format!("/payment_intents/{}", intent["id"].as_str().unwrap())).await).await;
    assert_eq!((unchanged["status"].as_str(), &unchanged["latest_payment"]), (Some("awaiting_payment_method"), &Value::Null), "{unchanged}");
    let (_, methods) = read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
    assert_eq!(ids(&methods), [saved], "nothing was saved");
    let events = app.event_types().await;
    assert!(!events.iter().any(|event| event.starts_with("payment")), "no money moved: {events:?}");
}

async fn a_saved_card_takes_a_renewed_expiry_only_as_allowed(app: TestApp) {
    let app = &app;
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let saved = saved_card(app, customer_id).await;
    let path = format!("/customers/{customer_id}/payment_methods/{saved}");
    let expiry_of = || async {
        let (_, listed) = read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
        let card = &listed["data"][0]["details"];
        (card["exp_month"].as_i64().unwrap(), card["exp_year"].as_i64().unwrap())
    };
    let path = path.as_str();
    let public = |body: String| async move { read(app.form(Method::POST, path, &app.keys.public_test, &body).await).await };

    let (status, changed) = app.post(path, "exp_month=3&exp_year=2039").await;
    assert_eq!((status, &changed["details"]["exp_month"], &changed["details"]["exp_year"]), (200, &json!(3), &json!(2039)), "{changed}");
    assert_eq!((changed["id"].as_str(), changed["details"]["last4"].as_str()), (Some(saved.as_str()), Some("4242")));
    assert_eq!(expiry_of().await, (3, 2039));

    let editing = create_session(app, customer_id, EDIT_ENABLED).await;
    let editing = editing["client_secret"].as_str().unwrap();
    let (status, changed) = public(format!("client_secret={editing}&exp_month=4&exp_year=40")).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(expiry_of().await, (4, 2040), "a two-digit year is 20YY");

    let not_editing = create_session(app, customer_id, ALL_ENABLED).await;
    let not_editing = not_editing["client_secret"].as_str().unwrap();
    let refusals = [
        (format!("client_secret={not_editing}&exp_month=5&exp_year=2041"), "client_secret", "parameter_invalid"),
        ("exp_month=5&exp_year=2041".to_owned(), "client_secret", "parameter_required"),
        (format!("client_secret={editing}&exp_month=5&exp_year=2020"), "exp_year", "parameter_invalid"),
        (format!("client_secret={editing}&exp_month=13&exp_year=2041"), "exp_month", "parameter_invalid"),
        (format!("client_secret={editing}&exp_month=5"), "exp_year", "parameter_required"),
    ];
    for (body, parameter, code) in refusals {
        let (status, answer) = public(body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(error_codes(&answer)[0], (parameter.to_owned(), code.to_owned()), "{body}: {answer}");
    }
    let (_, answer) = public(format!("client_secret={not_editing}&exp_month=5&exp_year=2041")).await;
    assert!(single_error(&answer, "parameter_invalid").contains("payment_method_edit"), "{answer}");

    // Another customer's path, another account, a made-up method: not found.
    let other = app.create_customer("Ben").await;
    let elsewhere = format!("/customers/{}/payment_methods/{saved}", other["id"].as_str().unwrap());
    assert_eq!(app.post(&elsewhere, "exp_month=5&exp_year=2041").await.0, 404);
    let theirs = app.form(Method::POST, path, &app.other_account_key, "exp_month=5&exp_year=2041").await;
    assert_eq!(theirs.status(), 404);
    assert_eq!(app.post(&format!("/customers/{customer_id}/payment_methods/pm_madeup"), "exp_month=5&exp_year=2041").await.0, 404);
    assert_eq!(expiry_of().await, (4, 2040), "no refused change changed anything");
}
