//! Payrex.js as served at `/js/v1/payrex.js`: to any origin, with a validator, calling the service
//! that served it; and in headless Chromium on a merchant's page of another origin, reading an
//! intent with a public key and refusing a secret key before it is sent anywhere, and paying a
//! live intent with a card that goes from the element only to the processor (localstripe), whose
//! 3-D Secure the processor's script finishes on the service's authentication page.

use crate::browser::browser_with_javascript;
use crate::helpers::{browser, TestApp};
use reqwest::header::{ACCESS_CONTROL_ALLOW_ORIGIN, CONTENT_TYPE, ETAG, IF_NONE_MATCH, X_CONTENT_TYPE_OPTIONS};
use serde_json::{json, Value};
use std::io::{Read, Write};

on_one_backend!(the_library_is_served_to_any_origin_with_a_validator);
on_one_backend_unstarted!(
    a_live_card_goes_from_the_element_to_the_processor_and_only_its_token_to_the_service,
    a_live_3d_secure_card_is_authenticated_with_the_processors_script_and_comes_back,
);
on_both_backends!(a_merchant_page_on_another_origin_reads_intents_with_payrex_js);
on_one_backend!(
    a_card_pays_in_the_payment_element_after_a_decline_that_stays_on_the_page,
    a_3d_secure_card_and_gcash_go_through_the_authorization_page_and_back,
    a_setup_intent_saves_a_card_through_the_element_without_leaving_the_page,
    a_customer_session_shows_removes_and_pays_with_saved_cards_only_as_it_allows,
    billing_fields_and_the_save_box_follow_the_options_and_the_session,
    a_customer_pays_and_saves_a_card_with_the_keyboard_alone_on_a_phone,
    a_bad_secret_or_an_expired_session_fails_to_load_with_a_message,
    a_lost_attach_moves_no_money_or_finds_the_payment_it_made,
    an_attach_settles_on_unmount_and_a_canceled_intent_is_an_error,
    the_frame_ignores_an_attach_asked_by_another_origin,
    a_customer_changes_a_saved_cards_expiry_in_the_element_only_when_allowed,
);

async fn the_library_is_served_to_any_origin_with_a_validator(app: TestApp) {
    let url = format!("{}/js/v1/payrex.js", app.address);
    let response = browser().get(&url).header("Origin", "https://shop.example").send().await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers[CONTENT_TYPE], "text/javascript; charset=utf-8");
    assert_eq!(headers[ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    assert_eq!(headers[X_CONTENT_TYPE_OPTIONS], "nosniff");
    let tag = headers[ETAG].to_str().unwrap().to_owned();
    let script = response.text().await.unwrap();
    assert!(script.contains(&format!("var SERVICE_URL = \"{}\";", app.address)), "the service's own address");
    assert!(!script.contains("__PAYMENTS_PUBLIC_BASE_URL__"));
    let again = browser().get(&url).header(IF_NONE_MATCH, &tag).send().await.unwrap();
    assert_eq!((again.status().as_u16(), again.headers()[ETAG].to_str().unwrap()), (304, tag.as_str()));
    assert!(again.text().await.unwrap().is_empty());
    let other = browser().get(&url).header(IF_NONE_MATCH, "\"stale\"").send().await.unwrap();
    assert_eq!(other.status(), 200);
    assert_eq!(browser().post(&url).send().await.unwrap().status(), 405);
}

/// Serves `html` to every request on a port of its own: a merchant's page on another origin than
/// the service. Answers its address.
fn merchant_page(html: String) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0; 4096];
            let _ = stream.read(&mut request);
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{html}",
                html.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    address
}

/// What the page's script finds: the intent (or the error code) for each secret, and what a secret
/// key did.
const READ_INTENTS: &str = r"
    const [key, secretKey, secrets, done] = arguments;
    const found = {};
    try { Payrex(secretKey); found.secret_key = 'accepted'; } catch (error) { found.secret_key = error.code; }
    const payrex = Payrex([key]);
    Promise.all(secrets.map((secret) => (secret.startsWith('si_') ? payrex.getSetupIntent(secret) : payrex.getPaymentIntent(secret))
        .then((intent) => ({ id: intent.id, status: intent.status }), (error) => ({ error: error.code }))))
        .then((answers) => { found.answers = answers; done(found); });
";

async fn a_merchant_page_on_another_origin_reads_intents_with_payrex_js(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let secret = intent["client_secret"].as_str().unwrap().to_owned();
    let customer = app.create_customer("Ana").await;
    let (status, setup) =
        app.post("/setup_intents", &format!("customer_id={}&payment_methods[]=card", customer["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{setup}");
    let setup_secret = setup["client_secret"].as_str().unwrap().to_owned();
    let other_account = app.client.post(format!("{}/payment_intents", app.address)).basic_auth(&app.other_account_key, Some(""))
        .form(&[("amount", "10000"), ("currency", "PHP"), ("payment_methods[]", "card")]).send().await.unwrap();
    let theirs: Value = other_account.json().await.unwrap();
    let (id, _) = secret.split_once("_secret_").unwrap();
    let secrets = json!([
        secret,
        setup_secret,
        format!("{id}_secret_wrong"),
        theirs["client_secret"],
        "not-a-secret",
    ]);

    let page = merchant_page(format!(
        "<!doctype html><html><head><title>Shop</title><script src=\"{}/js/v1/payrex.js\"></script></head><body>Shop</body></html>",
        app.address
    ));
    let browser = browser_with_javascript().await;
    browser.client.goto(&page).await.unwrap();
    let arguments = vec![json!(app.keys.public_test), json!(app.keys.secret_test), secrets];
    let found = browser.client.execute_async(READ_INTENTS, arguments).await.unwrap();
    assert_eq!(found["secret_key"], "secret_key_in_browser", "{found}");
    let answers = &found["answers"];
    assert_eq!(answers[0], json!({"id": intent["id"], "status": "awaiting_payment_method"}), "{found}");
    assert_eq!(answers[1], json!({"id": setup["id"], "status": "awaiting_payment_method"}), "{found}");
    for (refused, why) in [(2, "a wrong secret"), (3, "another account's intent"), (4, "no secret at all")] {
        assert!(answers[refused]["error"].is_string() && answers[refused].get("id").is_none(), "{why}: {found}");
    }
    // The secret key was refused in the page: no request carried it.
    let (_, logged) = crate::helpers::read(app.get("/request_logs?limit=100").await).await;
    assert!(!logged.to_string().contains(&app.keys.secret_test), "the secret key reached nothing");
}

const MOUNT: &str = r"
    const [key, secret, layout, session, done] = arguments;
    window.payrex = Payrex(key);
    window.elements = payrex.elements({ clientSecret: secret, customerSessionClientSecret: session });
    const element = elements.create('payment', { layout });
    element.on('ready', () => done('ready'));
    element.on('loaderror', (event) => done('loaderror ' + event.error.code));
    element.mount('#payment-element');
";

const ATTACH: &str = r"
    const done = arguments[arguments.length - 1];
    const return_url = window.location.origin + '/done?order=42#receipt';
    payrex.attachPaymentMethod({ elements, options: { return_url } }).then(done, (thrown) => done({ thrown: String(thrown) }));
";

/// Types a card into the element's frame.
async fn type_card(browser: &crate::browser::Browser, number: &str) {
    browser.client.clone().enter_frame(0).await.unwrap();
    for (id, text) in [("card-number", number), ("card-expiry", "12 / 35"), ("card-cvc", "123")] {
        browser.fill(id, text).await;
    }
    browser.client.clone().enter_parent_frame().await.unwrap();
}

async fn a_card_pays_in_the_payment_element_after_a_decline_that_stays_on_the_page(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let secret = intent["client_secret"].as_str().unwrap().to_owned();
    let page = merchant_page(format!(
        "<!doctype html><html><head><meta name=\"viewport\" content=\"width=device-width\"><title>Shop</title>\
         <script src=\"{}/js/v1/payrex.js\"></script></head><body><h1>Shop</h1><div id=\"payment-element\"></div></body></html>",
        app.address
    ));
    let browser = browser_with_javascript().await;
    browser.client.goto(&page).await.unwrap();
    let mounted =
        browser.client.execute_async(MOUNT, vec![json!(app.keys.public_test), json!(secret), json!("accordion"), json!(null)]).await.unwrap();
    assert_eq!(mounted, "ready");
    browser.screenshot("payrex-element-desktop").await;
    // A message in the frame's words from another window and origin (the page itself) is ignored.
    let forged = r"
        const done = arguments[0];
        window.postMessage({ source: 'payrex-element', type: 'resize', height: 7 }, '*');
        setTimeout(() => done(document.querySelector('#payment-element iframe').style.height), 300);
    ";
    let height = browser.client.execute_async(forged, vec![]).await.unwrap();
    assert!(height.as_str().is_some_and(|height| height != "7px" && height.ends_with("px")), "{height}");
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.screenshot("payrex-element-phone").await;
    browser.client.set_window_size(1280, 1000).await.unwrap();

    type_card(&browser, "4000000000000077").await;
    let declined = browser.client.execute_async(ATTACH, vec![]).await.unwrap();
    assert!(declined["error"]["code"].is_string() && declined["error"]["message"].is_string(), "{declined}");
    assert!(browser.url().await.starts_with(&page), "a decline stays on the page");
    browser.client.clone().enter_frame(0).await.unwrap();
    let alert = browser.client.find(fantoccini::Locator::Css("#element-alert[role=alert]")).await.unwrap();
    assert_eq!(alert.text().await.unwrap(), declined["error"]["message"].as_str().unwrap());
    browser.client.clone().enter_parent_frame().await.unwrap();
    browser.screenshot("payrex-element-declined").await;
    let (_, after_decline) = crate::helpers::read(app.get(&format!("/payment_intents/{}", intent["id"].as_str().unwrap())).await).await;
    assert_eq!(after_decline["status"], "awaiting_payment_method");

    type_card(&browser, "4242424242424242").await;
    browser.client.execute("payrex.attachPaymentMethod({ elements, options: { return_url: window.location.origin + '/done?order=42#receipt' } }); return true;", vec![]).await.unwrap();
    let arrived = browser.arrive("payment_intent_client_secret=").await;
    // A client secret is letters, digits and underscores: it needs no escaping in the query.
    assert_eq!(arrived, format!("{page}/done?order=42&payment_intent_client_secret={secret}#receipt"));
    let (_, paid) = crate::helpers::read(app.get(&format!("/payment_intents/{}", intent["id"].as_str().unwrap())).await).await;
    assert_eq!(paid["status"], "succeeded", "{paid}");
    // The element's attaches are in the request log, with the card numbers kept nowhere.
    let (_, logged) = crate::helpers::read(app.get("/request_logs?limit=100").await).await;
    let attaches = logged["data"].as_array().unwrap().iter().filter(|entry| {
        entry["path"].as_str().is_some_and(|path| path.ends_with("/attach"))
    });
    assert_eq!(attaches.count(), 2, "the decline and the payment: {logged}");
    for number in ["4242424242424242", "4000000000000077"] {
        assert!(!logged.to_string().contains(number) && !arrived.contains(number), "{number} was kept");
    }
}

/// A merchant's page with the element's place and the library, on an origin of its own.
fn shop_page(app: &TestApp) -> String {
    merchant_page(format!(
        "<!doctype html><html><head><meta name=\"viewport\" content=\"width=device-width\"><title>Shop</title>\
         <script src=\"{}/js/v1/payrex.js\"></script></head><body><h1>Shop</h1><div id=\"payment-element\"></div></body></html>",
        app.address
    ))
}

/// A browser on a fresh shop page with the element of `secret` mounted in `layout`.
async fn mounted(app: &TestApp, secret: &str, layout: &str) -> (crate::browser::Browser, String) {
    let (browser, page, ready) = mounted_with_session(app, secret, layout, None).await;
    assert_eq!(ready, "ready");
    (browser, page)
}

/// As [`mounted`], with a customer session's client secret, answering what mounting fired.
async fn mounted_with_session(
    app: &TestApp,
    secret: &str,
    layout: &str,
    session: Option<&str>,
) -> (crate::browser::Browser, String, Value) {
    let page = shop_page(app);
    let browser = browser_with_javascript().await;
    browser.client.goto(&page).await.unwrap();
    let arguments = vec![json!(app.keys.public_test), json!(secret), json!(layout), json!(session)];
    let fired = browser.client.execute_async(MOUNT, arguments).await.unwrap();
    (browser, page, fired)
}

/// The labels of the element's choices, as the customer reads them.
async fn choices(browser: &crate::browser::Browser) -> Vec<String> {
    browser.client.clone().enter_frame(0).await.unwrap();
    let mut labels = Vec::new();
    for label in browser.client.find_all(fantoccini::Locator::Css("label.method")).await.unwrap() {
        labels.push(label.text().await.unwrap().trim().to_owned());
    }
    browser.client.clone().enter_parent_frame().await.unwrap();
    labels
}

async fn intent_status(app: &TestApp, id: &str) -> Value {
    crate::helpers::read(app.get(&format!("/payment_intents/{id}")).await).await.1["status"].clone()
}

async fn a_3d_secure_card_and_gcash_go_through_the_authorization_page_and_back(app: TestApp) {
    for (layout, method) in [("accordion", "card"), ("tabs", "gcash")] {
        let intent = app.create_intent(10_000, "").await;
        let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
        let (browser, page) = mounted(&app, secret, layout).await;
        if method == "card" {
            type_card(&browser, "4000000000003220").await;
        } else {
            browser.client.clone().enter_frame(0).await.unwrap();
            browser.click("input[name=method][value=gcash]").await;
            browser.client.clone().enter_parent_frame().await.unwrap();
            browser.screenshot("payrex-element-tabs-gcash").await;
        }
        browser.client.execute(START_ATTACH, vec![]).await.unwrap();
        browser.arrive("/test/authorize/").await;
        browser.click("button.authorize").await;
        let arrived = browser.arrive("payment_intent_client_secret=").await;
        assert!(arrived.starts_with(&format!("{page}/done?order=42&payment_intent_client_secret={secret}")), "{arrived}");
        assert_eq!(intent_status(&app, id).await, "succeeded", "{method} in {layout}");
    }
}

/// Starts an attach and lets the browser go where it sends it.
const START_ATTACH: &str =
    "payrex.attachPaymentMethod({ elements, options: { return_url: window.location.origin + '/done?order=42#receipt' } }); return true;";

async fn a_setup_intent_saves_a_card_through_the_element_without_leaving_the_page(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let (status, setup) = app.post("/setup_intents", &format!("customer_id={customer_id}&payment_methods[]=card")).await;
    assert_eq!(status, 200, "{setup}");
    let (browser, page) = mounted(&app, setup["client_secret"].as_str().unwrap(), "accordion").await;
    type_card(&browser, "4242424242424242").await;
    let if_required = r"
        const done = arguments[0];
        payrex.attachPaymentMethod({ elements, options: { return_url: window.location.origin + '/done' }, redirect: 'if_required' })
            .then(done, (thrown) => done({ thrown: String(thrown) }));
    ";
    let saved = browser.client.execute_async(if_required, vec![]).await.unwrap();
    assert_eq!(saved["setupIntent"]["status"], "succeeded", "{saved}");
    assert!(browser.url().await.starts_with(&page), "no redirect was required");
    let (_, methods) = crate::helpers::read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
    assert_eq!(methods["data"][0]["details"]["last4"], "4242", "{methods}");
}

async fn a_customer_session_shows_removes_and_pays_with_saved_cards_only_as_it_allows(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let kept = crate::customer_sessions::saved_card(&app, customer_id).await;
    let removed = crate::customer_sessions::saved_card(&app, customer_id).await;
    let session = |components: &'static str| {
        let body = format!("customer_id={customer_id}&{components}");
        let app = &app;
        async move {
            let (status, session) = app.post("/customer_sessions", &body).await;
            assert_eq!(status, 200, "{session}");
            session["client_secret"].as_str().unwrap().to_owned()
        }
    };
    let intent = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let secret = intent["client_secret"].as_str().unwrap();

    // Nothing granted: no saved card shows.
    let nothing = session("components[][component]=payment_element&components[][feature]=payment_method_redisplay&components[][value]=disabled").await;
    let (browser, _, fired) = mounted_with_session(&app, secret, "accordion", Some(&nothing)).await;
    assert_eq!(fired, "ready");
    assert_eq!(choices(&browser).await, ["Card", "GCash", "Maya", "BillEase", "QR Ph"]);
    drop(browser);

    // Another account's session and a made-up one fail to load, with the API's reason in the element.
    let theirs = |path: &str, body: String| {
        app.client.post(format!("{}{path}", app.address)).basic_auth(&app.other_account_key, Some("")).body(body)
            .header("content-type", "application/x-www-form-urlencoded").send()
    };
    let their_customer: Value = theirs("/customers", "name=Ben&email=ben%40example.com&currency=PHP".into()).await.unwrap().json().await.unwrap();
    let their_session: Value = theirs(
        "/customer_sessions",
        format!("customer_id={}&{}", their_customer["id"].as_str().unwrap(), crate::customer_sessions::ALL_ENABLED),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    for forged in [their_session["client_secret"].as_str().unwrap(), "cus_s_madeup_secret_x"] {
        let (browser, _, fired) = mounted_with_session(&app, secret, "accordion", Some(forged)).await;
        assert_eq!(fired, "loaderror resource_not_found", "{forged}");
        browser.client.clone().enter_frame(0).await.unwrap();
        let alert = browser.client.find(fantoccini::Locator::Css("#element-alert[role=alert]")).await.unwrap();
        assert!(!alert.text().await.unwrap().is_empty());
    }

    let everything = session(crate::customer_sessions::ALL_ENABLED).await;
    let (browser, page, fired) = mounted_with_session(&app, secret, "accordion", Some(&everything)).await;
    assert_eq!(fired, "ready");
    let shown = choices(&browser).await;
    assert_eq!(shown.len(), 7, "{shown:?}");
    assert!(shown[..2].iter().all(|label| label == "Visa •••• 4242 · 12/35"), "{shown:?}");
    browser.screenshot("payrex-element-saved-cards").await;
    browser.client.clone().enter_frame(0).await.unwrap();
    browser.click(&format!(".saved:has(input[value='saved:{removed}']) .remove")).await;
    for _ in 0..50 {
        if browser.client.find(fantoccini::Locator::Css(&format!("input[value='saved:{removed}']"))).await.is_err() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    browser.click(&format!("input[value='saved:{kept}']")).await;
    browser.client.clone().enter_parent_frame().await.unwrap();
    let (_, methods) = crate::helpers::read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
    assert_eq!(crate::helpers::ids(&methods), std::slice::from_ref(&kept), "removed through the element");

    browser.client.execute(START_ATTACH, vec![]).await.unwrap();
    let arrived = browser.arrive("payment_intent_client_secret=").await;
    assert!(arrived.starts_with(&format!("{page}/done?order=42")), "{arrived}");
    let (_, paid) = crate::helpers::read(app.get(&format!("/payment_intents/{}", intent["id"].as_str().unwrap())).await).await;
    assert_eq!((paid["status"].as_str(), paid["payment_method_id"].as_str()), (Some("succeeded"), Some(kept.as_str())), "{paid}");
}

/// Mounts the element with the creation `options` the merchant chose; answers what mounting fired.
const MOUNT_WITH_OPTIONS: &str = r"
    const [key, secret, session, options, done] = arguments;
    window.payrex = Payrex(key);
    window.elements = payrex.elements({ clientSecret: secret, customerSessionClientSecret: session });
    const element = elements.create('payment', options);
    element.on('ready', () => done('ready'));
    element.on('loaderror', (event) => done('loaderror ' + event.error.code));
    element.mount('#payment-element');
";

/// A shop page whose Pay button comes after the element, as a keyboard reaches it.
fn shop_page_with_pay_button(app: &TestApp) -> String {
    merchant_page(format!(
        "<!doctype html><html><head><meta name=\"viewport\" content=\"width=device-width\"><title>Shop</title>\
         <script src=\"{}/js/v1/payrex.js\"></script></head><body><h1>Shop</h1><div id=\"payment-element\"></div>\
         <button id=\"pay\" onclick=\"payrex.attachPaymentMethod({{ elements, options: {{ return_url: window.location.origin + '/done' }} }})\">Pay</button>\
         </body></html>",
        app.address
    ))
}

/// A customer of the app with a session of `components`: the customer's id and the session's secret.
async fn customer_with_session(app: &TestApp, components: &str) -> (String, String) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap().to_owned();
    let (status, session) = app.post("/customer_sessions", &format!("customer_id={customer_id}&{components}")).await;
    assert_eq!(status, 200, "{session}");
    (customer_id, session["client_secret"].as_str().unwrap().to_owned())
}

/// The ids of the frame's inputs, and the value of each.
async fn frame_inputs(browser: &crate::browser::Browser) -> Vec<(String, String)> {
    browser.client.clone().enter_frame(0).await.unwrap();
    let script = "return [...document.querySelectorAll('input:not([type=radio])')].filter((input) => input.offsetParent)\
                  .map((input) => [input.id, input.type === 'checkbox' ? String(input.checked) : input.value]);";
    let found = browser.client.execute(script, vec![]).await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    serde_json::from_value(found).unwrap()
}

async fn billing_fields_and_the_save_box_follow_the_options_and_the_session(app: TestApp) {
    let (customer_id, not_saving) = customer_with_session(&app, crate::customer_sessions::ALL_ENABLED).await;
    let intent = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let secret = intent["client_secret"].as_str().unwrap();
    let browser = browser_with_javascript().await;
    let mount = |session: &str, options: Value| {
        vec![json!(app.keys.public_test), json!(secret), json!(session), options]
    };

    // No billing fields and no save box: `never`, and a session without payment_method_save.
    browser.client.goto(&shop_page(&app)).await.unwrap();
    let options = json!({"fields": {"billingDetails": "never"}});
    assert_eq!(browser.client.execute_async(MOUNT_WITH_OPTIONS, mount(&not_saving, options)).await.unwrap(), "ready");
    let shown: Vec<String> = frame_inputs(&browser).await.into_iter().map(|(id, _)| id).collect();
    assert_eq!(shown, ["card-number", "card-expiry", "card-cvc"]);

    // Every group but the phone, prefilled from defaultValues (camelCase, as Stripe spells it), and
    // the unticked box of a session that enables the save.
    let (_, saving) = customer_with_session(&app, crate::customer_sessions::SAVE_ENABLED).await;
    browser.client.goto(&shop_page(&app)).await.unwrap();
    let options = json!({
        "fields": {"billingDetails": {"phone": "never"}},
        "defaultValues": {"billingDetails": {"name": "Ana Cruz", "email": "ana@example.com",
            "address": {"postalCode": "1000", "country": "PH", "city": null}}},
    });
    // The session is another customer's: the element shows it (the service refuses the save, tested
    // over HTTP); here only what is shown counts.
    assert_eq!(browser.client.execute_async(MOUNT_WITH_OPTIONS, mount(&saving, options)).await.unwrap(), "ready");
    browser.screenshot("payrex-element-billing-desktop").await;
    let shown = frame_inputs(&browser).await;
    let expected = [
        ("card-number", ""), ("card-expiry", ""), ("card-cvc", ""), ("save-card", "false"),
        ("billing-name", "Ana Cruz"), ("billing-email", "ana@example.com"), ("billing-address-line1", ""),
        ("billing-address-line2", ""), ("billing-address-city", ""), ("billing-address-state", ""),
        ("billing-address-postal_code", "1000"), ("billing-address-country", "PH"),
    ];
    let expected: Vec<(String, String)> = expected.iter().map(|(id, value)| ((*id).to_owned(), (*value).to_owned())).collect();
    assert_eq!(shown, expected);
    browser.client.clone().enter_frame(0).await.unwrap();
    let labels = browser.client.execute(
        "return ['card-number', 'card-expiry', 'card-cvc', 'save-card', 'billing-name', 'billing-address-postal_code']\
         .map((id) => [document.getElementById(id).labels[0].textContent.trim(), document.getElementById(id).autocomplete]);",
        vec![],
    ).await.unwrap();
    assert_eq!(labels, json!([["Card number", "cc-number"], ["Expiry", "cc-exp"], ["CVC", "cc-csc"],
        ["Save this card for future payments", ""], ["Full name", "name"], ["Postal code", "postal-code"]]));
    // Choosing an e-wallet keeps the billing details, without the card's fields.
    browser.click("input[name=method][value=gcash]").await;
    browser.client.clone().enter_parent_frame().await.unwrap();
    let shown: Vec<String> = frame_inputs(&browser).await.into_iter().map(|(id, _)| id).collect();
    assert_eq!(shown.first().map(String::as_str), Some("billing-name"), "{shown:?}");
}

async fn a_customer_pays_and_saves_a_card_with_the_keyboard_alone_on_a_phone(app: TestApp) {
    let (customer_id, saving) = customer_with_session(&app, crate::customer_sessions::SAVE_ENABLED).await;
    let intent = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
    let page = shop_page_with_pay_button(&app);
    let browser = browser_with_javascript().await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.client.goto(&page).await.unwrap();
    let options = json!({"layout": "accordion", "fields": {"billingDetails": {"phone": "never"}},
        "defaultValues": {"billingDetails": {"name": "Ana Cruz", "email": "ana@example.com", "address": {"country": "PH"}}}});
    let arguments = vec![json!(app.keys.public_test), json!(secret), json!(saving), options];
    assert_eq!(browser.client.execute_async(MOUNT_WITH_OPTIONS, arguments).await.unwrap(), "ready");
    let frame_width = browser.client.execute("return document.querySelector('iframe').getBoundingClientRect().width", vec![]).await.unwrap();
    assert!(frame_width.as_f64().is_some_and(|width| width <= 390.0), "the element fits the phone: {frame_width}");

    // Into the frame to the chosen method, then each field in turn: the card, the save box (Space
    // ticks it), past the name and e-mail given by the page to the address, and out to Pay.
    const TAB: &str = "\u{e004}";
    browser.press(TAB).await;
    browser.press(&format!("{TAB}4242 4242 4242 4242{TAB}12 / 35{TAB}123{TAB} ")).await;
    browser.press(&format!("{TAB}{TAB}{TAB}1 Rizal St{TAB}{TAB}Manila{TAB}{TAB}1000")).await;
    browser.screenshot("payrex-element-phone-keyboard").await;
    let filled = frame_inputs(&browser).await;
    assert!(filled.contains(&("save-card".to_owned(), "true".to_owned())), "{filled:?}");
    assert!(filled.contains(&("billing-address-postal_code".to_owned(), "1000".to_owned())), "{filled:?}");
    browser.press(&format!("{TAB}{TAB}\u{e007}")).await;
    let arrived = browser.arrive("payment_intent_client_secret=").await;
    assert_eq!(arrived, format!("{page}/done?payment_intent_client_secret={secret}"));

    let (_, paid) = crate::helpers::read(app.get(&format!("/payment_intents/{id}")).await).await;
    assert_eq!(paid["status"], "succeeded", "{paid}");
    let payment_id = paid["latest_payment"]["id"].as_str().unwrap();
    let (_, payment) = crate::helpers::read(app.get(&format!("/payments/{payment_id}")).await).await;
    let billing = &payment["billing"];
    assert_eq!(
        (billing["name"].as_str(), billing["email"].as_str(), billing["address"]["line1"].as_str(), billing["address"]["city"].as_str()),
        (Some("Ana Cruz"), Some("ana@example.com"), Some("1 Rizal St"), Some("Manila")),
        "{payment}"
    );
    assert_eq!((billing["address"]["postal_code"].as_str(), billing["address"]["country"].as_str()), (Some("1000"), Some("PH")));
    assert!(billing["phone"].is_null(), "phone was never collected: {payment}");
    let (_, methods) = crate::helpers::read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
    assert_eq!(crate::helpers::ids(&methods), [paid["payment_method_id"].as_str().unwrap().to_owned()], "{methods}");
}

/// The text of the element's alert, read in its frame.
async fn element_alert(browser: &crate::browser::Browser) -> String {
    browser.client.clone().enter_frame(0).await.unwrap();
    let alert = browser.client.find(fantoccini::Locator::Css("#element-alert[role=alert]")).await.unwrap();
    let text = alert.text().await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    text
}

async fn a_bad_secret_or_an_expired_session_fails_to_load_with_a_message(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
    let theirs = app.client.post(format!("{}/payment_intents", app.address)).basic_auth(&app.other_account_key, Some(""))
        .form(&[("amount", "10000"), ("currency", "PHP"), ("payment_methods[]", "card")]).send().await.unwrap();
    let theirs: Value = theirs.json().await.unwrap();
    for (bad, why) in [
        (format!("{id}_secret_wrong"), "a wrong secret"),
        (theirs["client_secret"].as_str().unwrap().to_owned(), "another account's intent"),
        ("pi_nonsense_secret_x".to_owned(), "an intent that does not exist"),
    ] {
        let (browser, _, fired) = mounted_with_session(&app, &bad, "accordion", None).await;
        assert!(fired.as_str().is_some_and(|fired| fired.starts_with("loaderror ")), "{why}: {fired}");
        assert!(!element_alert(&browser).await.is_empty(), "{why}: the element says why");
    }
    // What is not a client secret at all is refused at once, as a mistake in the page.
    let (browser, _) = mounted(&app, secret, "accordion").await;
    let script = "try { Payrex(arguments[0]).elements({ clientSecret: 'nonsense' }); return 'accepted'; } \
                  catch (error) { return error.code; }";
    let thrown = browser.client.execute(script, vec![json!(app.keys.public_test)]).await.unwrap();
    assert_eq!(thrown, "parameter_invalid");

    let (customer_id, session) = customer_with_session(&app, crate::customer_sessions::ALL_ENABLED).await;
    let theirs_too = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    app.clock.advance(24 * 60 * 60);
    let (browser, _, fired) =
        mounted_with_session(&app, theirs_too["client_secret"].as_str().unwrap(), "accordion", Some(&session)).await;
    assert_eq!(fired, "loaderror parameter_invalid", "an expired session, in the API's words");
    assert_eq!(element_alert(&browser).await, "The customer session has expired.");
    browser.screenshot("payrex-element-expired-session").await;
    assert_eq!(intent_status(&app, id).await, "awaiting_payment_method");
}

/// Breaks the frame's attaches: the next request never leaves (`before`), or its answer never comes
/// back though the service acted on it (`after`), or no request ever leaves again (`always`).
const LOSE_ATTACHES: &str = r"
    const [when, done] = arguments;
    const real = window.fetch;
    window.fetch = function (path, init) {
        if (!init || init.method !== 'POST') { return real(path, init); }
        if (when !== 'always') { window.fetch = real; }
        if (when !== 'after') { return Promise.reject(new TypeError('Failed to fetch')); }
        return real(path, init).then(() => { throw new TypeError('Failed to fetch'); });
    };
    done(true);
";

/// The attaches of the intent `id` the request log holds: how many ran, and how many were a
/// stored answer replayed.
async fn attaches_logged(app: &TestApp, id: &str) -> (usize, usize) {
    let (_, logged) = crate::helpers::read(app.get("/request_logs?limit=100").await).await;
    let attaches: Vec<&Value> = logged["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["path"].as_str().is_some_and(|path| path == format!("/payment_intents/{id}/attach")))
        .collect();
    let replayed = attaches.iter().filter(|entry| entry["idempotent_replayed"] == json!(true)).count();
    (attaches.len() - replayed, replayed)
}

/// An attach whose request or answer is lost is asked again with the same idempotency key: the
/// service runs it once, whichever was lost, and the element never guesses from the intent what
/// happened. A service it cannot reach at all is an error, with nothing moved.
async fn a_lost_attach_moves_no_money_or_finds_the_payment_it_made(app: TestApp) {
    // No request ever leaves: an error, and nothing moved.
    let intent = app.create_intent(10_000, "").await;
    let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
    let (browser, page) = mounted(&app, secret, "accordion").await;
    type_card(&browser, "4242424242424242").await;
    browser.client.clone().enter_frame(0).await.unwrap();
    browser.client.execute_async(LOSE_ATTACHES, vec![json!("always")]).await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    let lost = browser.client.execute_async(ATTACH, vec![]).await.unwrap();
    assert_eq!(lost["error"]["code"], "network_error", "{lost}");
    assert!(browser.url().await.starts_with(&page), "the customer stays to try again");
    assert_eq!(element_alert(&browser).await, lost["error"]["message"].as_str().unwrap());
    let (_, unchanged) = crate::helpers::read(app.get(&format!("/payment_intents/{id}")).await).await;
    assert_eq!((unchanged["status"].as_str(), &unchanged["latest_payment"]), (Some("awaiting_payment_method"), &Value::Null));
    drop(browser);

    // The first request never left, or the service paid and its answer was lost: asked again, the
    // service runs it, or answers what it did; the customer goes on, paid once.
    for lose in ["before", "after"] {
        let intent = app.create_intent(10_000, "").await;
        let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
        let (browser, page) = mounted(&app, secret, "accordion").await;
        type_card(&browser, "4242424242424242").await;
        browser.client.clone().enter_frame(0).await.unwrap();
        browser.client.execute_async(LOSE_ATTACHES, vec![json!(lose)]).await.unwrap();
        browser.client.clone().enter_parent_frame().await.unwrap();
        browser.client.execute(START_ATTACH, vec![]).await.unwrap();
        let arrived = browser.arrive("payment_intent_client_secret=").await;
        assert_eq!(arrived, format!("{page}/done?order=42&payment_intent_client_secret={secret}#receipt"));
        assert_eq!(intent_status(&app, id).await, "succeeded");
        let mut logged = (0, 0);
        for _ in 0..50 {
            logged = attaches_logged(&app, id).await;
            if logged.0 + logged.1 >= if lose == "after" { 2 } else { 1 } {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let expected = if lose == "after" { (1, 1) } else { (1, 0) };
        assert_eq!(logged, expected, "{lose}: one attach ran (and its answer replayed to the retry)");
    }
}

/// An attach in flight settles when its element is unmounted, and a new one on the remounted element
/// is answered; an intent the merchant canceled is refused in the API's words, not taken for paid.
async fn an_attach_settles_on_unmount_and_a_canceled_intent_is_an_error(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
    let (browser, page) = mounted(&app, secret, "accordion").await;
    type_card(&browser, "4242424242424242").await;
    // The frame never answers this attach: it is unmounted first.
    browser.client.clone().enter_frame(0).await.unwrap();
    browser.client.execute_async(HOLD_ATTACHES, vec![]).await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    let settled = browser.client.execute_async(ATTACH_THEN_UNMOUNT, vec![]).await.unwrap();
    assert_eq!(settled["error"]["code"], "element_unmounted", "{settled}");
    assert!(browser.url().await.starts_with(&page));
    let remounted = browser.client.execute_async(REMOUNT, vec![]).await.unwrap();
    assert_eq!(remounted, "ready");
    type_card(&browser, "4000000000000077").await;
    let declined = browser.client.execute_async(ATTACH, vec![]).await.unwrap();
    assert_eq!(declined["error"]["code"], "generic_decline", "the remounted element answers: {declined}");

    let (status, canceled) = app.post(&format!("/payment_intents/{id}/cancel"), "").await;
    assert_eq!((status, canceled["status"].as_str()), (200, Some("canceled")), "{canceled}");
    type_card(&browser, "4242424242424242").await;
    let refused = browser.client.execute_async(ATTACH, vec![]).await.unwrap();
    assert_eq!(refused["error"]["code"], "resource_invalid_state", "{refused}");
    assert!(refused.get("paymentIntent").is_none(), "{refused}");
    assert_eq!(intent_status(&app, id).await, "canceled");
}

/// Makes the frame's attach requests wait for ever.
const HOLD_ATTACHES: &str = r"
    const done = arguments[0];
    const real = window.fetch;
    window.fetch = function (path, init) {
        if (!init || init.method !== 'POST') { return real(path, init); }
        return new Promise(() => {});
    };
    done(true);
";

/// Starts an attach, unmounts the element, and answers how the attach settled.
const ATTACH_THEN_UNMOUNT: &str = r"
    const done = arguments[0];
    const element = elements.getElement('payment');
    payrex.attachPaymentMethod({ elements, options: { return_url: location.origin + '/done' } }).then(done);
    setTimeout(() => element.unmount(), 300);
";

/// Mounts the element again, in the same place.
const REMOUNT: &str = r"
    const done = arguments[0];
    const element = elements.getElement('payment');
    element.on('ready', () => done('ready'));
    element.mount('#payment-element');
";

/// Frames the element of `secret` as if for the page of `origin` (`self`: this page's own), then
/// asks it to attach from this page.
const FRAME_AND_ASK: &str = r"
    const [service, key, secret, origin, done] = arguments;
    const settings = new URLSearchParams({ key, client_secret: secret, origin: origin === 'self' ? location.origin : origin });
    const frame = document.createElement('iframe');
    frame.src = service + '/js/v1/elements/payment#' + settings;
    frame.onload = () => setTimeout(() => {
        frame.contentWindow.postMessage({ type: 'attach', id: 1 }, service);
        setTimeout(() => done(true), 1000);
    }, 500);
    document.body.appendChild(frame);
";

async fn the_frame_ignores_an_attach_asked_by_another_origin(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
    let attaches = || async {
        let (_, logged) = crate::helpers::read(app.get("/request_logs?limit=100").await).await;
        let attach = format!("/payment_intents/{id}/attach");
        logged["data"].as_array().unwrap().iter().filter(|entry| entry["path"] == attach.as_str()).count()
    };
    let page = shop_page(&app);
    let browser = browser_with_javascript().await;
    for (origin, expected) in [("http://127.0.0.1:1", 0), ("self", 1)] {
        browser.client.goto(&page).await.unwrap();
        let arguments = vec![json!(app.address), json!(app.keys.public_test), json!(secret), json!(origin)];
        browser.client.execute_async(FRAME_AND_ASK, arguments).await.unwrap();
        // The frame set up for another page ignores this one; set up for this page, it obeys (the
        // attach of nothing typed is refused, but it was made).
        assert_eq!(attaches().await, expected, "a frame set up for {origin}");
    }
    assert_eq!(intent_status(&app, id).await, "awaiting_payment_method");
}

async fn a_customer_changes_a_saved_cards_expiry_in_the_element_only_when_allowed(app: TestApp) {
    let redisplay = "components[][component]=payment_element&components[][feature]=payment_method_redisplay&components[][value]=enabled";
    let (customer_id, without_edit) = customer_with_session(&app, redisplay).await;
    let saved = crate::customer_sessions::saved_card(&app, &customer_id).await;
    let intent = app.create_intent(10_000, &format!("&customer_id={customer_id}")).await;
    let secret = intent["client_secret"].as_str().unwrap();
    let (browser, _, fired) = mounted_with_session(&app, secret, "accordion", Some(&without_edit)).await;
    assert_eq!(fired, "ready");
    browser.client.clone().enter_frame(0).await.unwrap();
    assert!(browser.client.find(fantoccini::Locator::Css(".edit")).await.is_err(), "no Edit without payment_method_edit");
    drop(browser);

    let (status, session) =
        app.post("/customer_sessions", &format!("customer_id={customer_id}&{redisplay}&{}", crate::customer_sessions::EDIT_ENABLED)).await;
    assert_eq!(status, 200, "{session}");
    let (browser, _, fired) = mounted_with_session(&app, secret, "accordion", session["client_secret"].as_str()).await;
    assert_eq!(fired, "ready");
    browser.client.clone().enter_frame(0).await.unwrap();
    browser.click(".edit button").await;
    let field = format!("expiry-{saved}");
    for (typed, label, alert) in [("01 / 20", "Visa •••• 4242 · 12/35", true), ("05 / 37", "Visa •••• 4242 · 05/37", false)] {
        browser.fill(&field, typed).await;
        browser.click(".edit-panel button").await;
        let mut shown = String::new();
        for _ in 0..50 {
            let text = browser.client.find(fantoccini::Locator::Css("#element-alert")).await.unwrap().text().await.unwrap();
            shown = browser.client.find(fantoccini::Locator::Css("label.method")).await.unwrap().text().await.unwrap();
            if alert != text.is_empty() && shown.trim() == label {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(shown.trim(), label, "after {typed}");
    }
    browser.client.clone().enter_parent_frame().await.unwrap();
    browser.screenshot("payrex-element-saved-card-edited").await;
    let (_, methods) = crate::helpers::read(app.get(&format!("/customers/{customer_id}/payment_methods")).await).await;
    assert_eq!((&methods["data"][0]["details"]["exp_month"], &methods["data"][0]["details"]["exp_year"]), (&json!(5), &json!(2037)));
}

/// Installed in the element's frame: every request it makes, kept with its body. The frame makes
/// its requests with `fetch` alone.
const RECORD_REQUESTS: &str = r"
    window.sent = [];
    const fetched = window.fetch;
    window.fetch = function (url, init) {
        window.sent.push({ url: String(url), body: init && init.body ? String(init.body) : '' });
        return fetched.apply(this, arguments);
    };
    return true;
";

async fn a_live_card_goes_from_the_element_to_the_processor_and_only_its_token_to_the_service(
    backend: payments_adapters::db::Backend,
) {
    use crate::stripe_connector::{app_over, live};
    let stripe = crate::helpers::LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let (status, intent) = live(&app, reqwest::Method::POST, "/payment_intents", "amount=10000&currency=PHP&payment_methods[]=card").await;
    assert_eq!(status, 200, "{intent}");
    let secret = intent["client_secret"].as_str().unwrap().to_owned();
    let page = shop_page(&app);
    let browser = browser_with_javascript().await;
    browser.client.goto(&page).await.unwrap();
    let arguments = vec![json!(app.keys.public_live), json!(secret), json!("accordion"), json!(null)];
    assert_eq!(browser.client.execute_async(MOUNT, arguments).await.unwrap(), "ready");
    browser.client.clone().enter_frame(0).await.unwrap();
    browser.client.execute(RECORD_REQUESTS, vec![]).await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    type_card(&browser, "4242424242424242").await;
    browser.screenshot("payrex-element-live").await;
    let pay = r"
        const done = arguments[arguments.length - 1];
        payrex.attachPaymentMethod({ elements, redirect: 'if_required' })
            .then((answer) => done(JSON.stringify(answer)), (thrown) => done(String(thrown)));
    ";
    let answered = browser.client.execute_async(pay, vec![]).await.unwrap();
    let (_, paid) = live(&app, reqwest::Method::GET, &format!("/payment_intents/{}", intent["id"].as_str().unwrap()), "").await;
    assert_eq!(paid["status"], "succeeded", "{answered} {paid}");
    assert_eq!(paid["livemode"], true);

    browser.client.clone().enter_frame(0).await.unwrap();
    let sent = browser.client.execute("return window.sent;", vec![]).await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    let sent = sent.as_array().unwrap();
    let card = "4242424242424242";
    let to_processor: Vec<&Value> = sent.iter().filter(|request| request["url"] == format!("{}/v1/tokens", stripe.url)).collect();
    assert_eq!(to_processor.len(), 1, "{sent:?}");
    assert!(to_processor[0]["body"].as_str().unwrap().contains(card), "the card went to the processor");
    let to_service: Vec<&Value> = sent.iter().filter(|request| request["url"].as_str().unwrap().starts_with('/')).collect();
    assert_eq!(to_service.len() + to_processor.len(), sent.len(), "nowhere else: {sent:?}");
    assert!(to_service.iter().all(|request| !request["body"].as_str().unwrap().contains(card)), "{to_service:?}");
    assert!(to_service.iter().any(|request| request["body"].as_str().unwrap().contains("payment_method%5Bcard%5D%5Btoken%5D=tok_")));

    // Nothing of the card on the server: not in the request log, not in the database's file.
    let (_, logged) = live(&app, reqwest::Method::GET, "/request_logs?limit=100", "").await;
    assert!(!logged.to_string().contains(card), "{logged}");
    let file = app.database.url().trim_start_matches("sqlite://").to_owned();
    for path in [file.clone(), format!("{file}-wal")] {
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(!bytes.windows(card.len()).any(|window| window == card.as_bytes()), "{path} holds the card");
    }
    let at_processor = stripe.payment_intents().await;
    assert_eq!((at_processor.len(), at_processor[0]["status"].as_str()), (1, Some("succeeded")));

    // The console of the live key shows the account's processor and that it answered.
    browser.client.goto(&format!("{}/dashboard/sign_in", app.address)).await.unwrap();
    browser.fill("key", &app.keys.secret_live).await;
    browser.click("button[type=submit]").await;
    let overview = browser.see("Live processor").await;
    assert!(overview.contains("Answered its last call") && overview.contains(&stripe.url), "{overview}");
    browser.screenshot("console-live-overview").await;
    browser.client.set_window_size(390, 844).await.unwrap();
    let fits = browser.client.execute("return document.documentElement.scrollWidth <= window.innerWidth;", vec![]);
    assert_eq!(fits.await.unwrap(), json!(true), "the overview fits a phone's width");
    browser.screenshot("console-live-overview-phone").await;
    browser.client.set_window_size(1280, 1000).await.unwrap();

    // Without a processor, a live card goes nowhere: the frame says so and sends nothing.
    let account = crate::helpers::read(
        app.client.get(format!("{}/operator/accounts", app.address)).bearer_auth(crate::stripe_connector::TOKEN).send().await.unwrap(),
    )
    .await
    .1["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let removed = app.client.delete(format!("{}/operator/accounts/{account}/connector", app.address));
    assert_eq!(removed.bearer_auth(crate::stripe_connector::TOKEN).send().await.unwrap().status(), 200);
    let (_, second) = live(&app, reqwest::Method::POST, "/payment_intents", "amount=5000&currency=PHP&payment_methods[]=card").await;
    browser.client.goto(&page).await.unwrap();
    let arguments = vec![json!(app.keys.public_live), json!(second["client_secret"]), json!("accordion"), json!(null)];
    assert_eq!(browser.client.execute_async(MOUNT, arguments).await.unwrap(), "ready");
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.client.clone().enter_frame(0).await.unwrap();
    browser.client.execute(RECORD_REQUESTS, vec![]).await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    type_card(&browser, "4242424242424242").await;
    let refused = browser.client.execute_async(pay, vec![]).await.unwrap();
    assert!(refused.as_str().unwrap().contains("service_unavailable"), "{refused}");
    assert_eq!(element_alert(&browser).await, "This shop cannot take cards right now.");
    browser.screenshot("payrex-element-live-no-processor-phone").await;
    browser.client.clone().enter_frame(0).await.unwrap();
    let sent = browser.client.execute("return window.sent;", vec![]).await.unwrap();
    browser.client.clone().enter_parent_frame().await.unwrap();
    assert_eq!(sent, json!([]), "nothing sent anywhere");
}

async fn a_live_3d_secure_card_is_authenticated_with_the_processors_script_and_comes_back(
    backend: payments_adapters::db::Backend,
) {
    use crate::stripe_connector::{app_over, live};
    let stripe = crate::helpers::LocalStripe::start().await;
    let app = app_over(backend, &stripe.url).await;
    let page = shop_page(&app);
    let browser = browser_with_javascript().await;
    // localstripe's Stripe.js shows its own dialog: "Complete authentication" or "Fail authentication".
    for (choice, status, error) in [(1, "succeeded", Value::Null), (2, "awaiting_payment_method", json!("authentication_failed"))] {
        let body = "amount=10000&currency=PHP&payment_methods[]=card";
        let (_, intent) = live(&app, reqwest::Method::POST, "/payment_intents", body).await;
        let (id, secret) = (intent["id"].as_str().unwrap(), intent["client_secret"].as_str().unwrap());
        browser.client.goto(&page).await.unwrap();
        let arguments = vec![json!(app.keys.public_live), json!(secret), json!("accordion"), json!(null)];
        assert_eq!(browser.client.execute_async(MOUNT, arguments).await.unwrap(), "ready");
        type_card(&browser, "4000000000003220").await;
        let attach = "payrex.attachPaymentMethod({ elements, options: { return_url: 'https://shop.example/done?order=42' } }); return true;";
        browser.client.execute(attach, vec![]).await.unwrap();
        browser.arrive("/processor/authenticate/").await;
        browser.see("Complete authentication").await;
        if choice == 1 {
            browser.screenshot("processor-authentication").await;
            browser.client.set_window_size(390, 844).await.unwrap();
            browser.screenshot("processor-authentication-phone").await;
            browser.client.set_window_size(1280, 1000).await.unwrap();
        }
        browser.click(&format!("body > div:last-child > button:nth-of-type({choice})")).await;
        let arrived = browser.arrive("payment_intent_client_secret=").await;
        assert!(arrived.starts_with(&format!("https://shop.example/done?order=42&payment_intent_client_secret={secret}")), "{arrived}");
        let (_, after) = live(&app, reqwest::Method::GET, &format!("/payment_intents/{id}"), "").await;
        assert_eq!((&after["status"], &after["last_payment_error"]["code"]), (&json!(status), &error), "{after}");
    }
    let charged = stripe.payment_intents().await.iter().filter(|made| made["status"] == "succeeded").count();
    assert_eq!(charged, 1);
}
