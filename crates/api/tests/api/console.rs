//! The developer console over HTTP: signing in with a secret key (and only with one), the session's
//! cookie, its form token on every form, idle expiry, signing out; the request log's pages, escaped
//! and confined to the session's account and mode. The browser tests are in `console_browser.rs`.

use crate::helpers::{browser, read, TestApp};
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use reqwest::{Method, Response};

on_both_backends!(only_a_secret_key_signs_in_and_every_wrong_key_is_told_the_same);
on_one_backend!(pages_need_a_session_and_forms_their_sessions_token, a_session_ends_idle_or_signed_out);
on_one_backend!(the_request_log_pages_show_the_accounts_requests_escaped);
on_both_backends_with!(|settings| settings.console.enabled = false => a_disabled_console_is_not_there);
on_both_backends_with!(|settings| settings.server.public_base_url = "https://pay.example".into() => behind_https_the_cookie_is_secure);
on_one_backend!(every_cookie_is_secure_over_https_whatever_the_base_url);

/// A browser of the console: the session cookie it holds, if any.
pub struct Console<'a> {
    app: &'a TestApp,
    pub cookie: Option<String>,
}

/// The value of `name`'s `form_token` input on `page`.
pub fn form_token(page: &str) -> String {
    let start = page.find("name=\"form_token\" value=\"").expect("a form token") + 25;
    page[start..start + page[start..].find('"').unwrap()].to_owned()
}

impl<'a> Console<'a> {
    pub fn new(app: &'a TestApp) -> Self {
        Self { app, cookie: None }
    }

    /// Signs in with `key`: the sign-in page's answer.
    pub async fn sign_in(&mut self, key: &str) -> Response {
        let page = browser().get(format!("{}/dashboard/sign_in", self.app.address)).send().await.unwrap();
        let page_cookie = page.headers()[SET_COOKIE].to_str().unwrap().split(';').next().unwrap().to_owned();
        let token = form_token(&page.text().await.unwrap());
        let mut request = browser()
            .post(format!("{}/dashboard/sign_in", self.app.address))
            .form(&[("form_token", token.as_str()), ("key", key)]);
        let cookies = [Some(page_cookie), self.cookie.clone()].into_iter().flatten().collect::<Vec<_>>().join("; ");
        request = request.header(COOKIE, cookies);
        let response = request.send().await.unwrap();
        if let Some(set) = response.headers().get_all(SET_COOKIE).iter().find_map(|value| {
            value.to_str().ok().filter(|value| value.starts_with("console_session=")).map(str::to_owned)
        }) {
            self.cookie = Some(set.split(';').next().unwrap().to_owned());
        }
        response
    }

    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let request = browser().request(method, format!("{}{path}", self.app.address));
        match &self.cookie {
            Some(cookie) => request.header(COOKIE, cookie),
            None => request,
        }
    }

    /// A page: its status and text.
    pub async fn get(&self, path: &str) -> (u16, String) {
        let response = self.request(Method::GET, path).send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    /// A form posted with `fields`: the answer.
    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> Response {
        self.request(Method::POST, path).form(fields).send().await.unwrap()
    }

    /// A form posted with `fields`: its status and where it sends the browser.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> (u16, String) {
        let response = self.post_form(path, fields).await;
        let location = response.headers().get(LOCATION).map(|value| value.to_str().unwrap().to_owned());
        let status = response.status().as_u16();
        (status, location.unwrap_or_default())
    }

    /// The form token of the session's pages.
    pub async fn form_token(&self) -> String {
        form_token(&self.get("/dashboard").await.1)
    }
}

async fn only_a_secret_key_signs_in_and_every_wrong_key_is_told_the_same(app: TestApp) {
    let (start, last) = app.keys.secret_test.split_at(app.keys.secret_test.len() - 1);
    let unknown = format!("{start}{}", if last == "0" { "1" } else { "0" });
    let mut refusals = Vec::new();
    for wrong in [app.keys.public_test.as_str(), unknown.as_str(), "", "sk_test_", "<script>", "pk_live_x"] {
        let mut console = Console::new(&app);
        let response = console.sign_in(wrong).await;
        assert_eq!(response.status(), 401, "{wrong}");
        assert!(console.cookie.is_none(), "{wrong} opened a session");
        let page = response.text().await.unwrap();
        assert!(!page.contains("<script>"), "{page}");
        refusals.push(page[page.find("class=\"alert\"").unwrap()..].split("</p>").next().unwrap().to_owned());
    }
    refusals.dedup();
    assert_eq!(refusals.len(), 1, "one message for every wrong key: {refusals:?}");

    let mut console = Console::new(&app);
    let response = console.sign_in(&app.keys.secret_test).await;
    assert_eq!((response.status().as_u16(), response.headers()[LOCATION].to_str().unwrap()), (303, "/dashboard"));
    let set = response.headers().get_all(SET_COOKIE).iter().map(|v| v.to_str().unwrap().to_owned()).collect::<Vec<_>>();
    let session = set.iter().find(|cookie| cookie.starts_with("console_session=")).unwrap();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/dashboard"] {
        assert!(session.contains(attribute), "{attribute} missing: {session}");
    }
    assert!(!session.contains("Secure"), "plain http here: {session}");
    let (status, page) = console.get("/dashboard").await;
    assert_eq!(status, 200);
    assert!(page.contains("TEST MODE") && !page.contains("LIVE MODE"), "{page}");

    let mut live = Console::new(&app);
    assert_eq!(live.sign_in(&app.keys.secret_live).await.status(), 303);
    let (status, page) = live.get("/dashboard/request_logs").await;
    assert_eq!(status, 200);
    assert!(page.contains("LIVE MODE") && !page.contains("TEST MODE"), "{page}");
}

async fn pages_need_a_session_and_forms_their_sessions_token(app: TestApp) {
    for path in ["/dashboard", "/dashboard/request_logs", "/dashboard/request_logs/req_1"] {
        let anonymous = Console::new(&app).get(path).await;
        assert_eq!(anonymous.0, 303, "{path}");
        let forged = Console { app: &app, cookie: Some("console_session=made-up".into()) };
        assert_eq!(forged.get(path).await.0, 303, "{path}");
    }
    let (status, _) = Console::new(&app).post("/dashboard/sign_out", &[]).await;
    assert_eq!(status, 303, "no session: to the sign-in page");

    let mut mine = Console::new(&app);
    mine.sign_in(&app.keys.secret_test).await;
    let mut theirs = Console::new(&app);
    theirs.sign_in(&app.other_account_key).await;
    let their_token = theirs.form_token().await;
    for fields in [vec![], vec![("form_token", "")], vec![("form_token", their_token.as_str())]] {
        let (status, _) = mine.post("/dashboard/sign_out", &fields).await;
        assert_eq!(status, 403, "{fields:?}");
        assert_eq!(mine.get("/dashboard").await.0, 200, "the session goes on");
    }
    // A form the API could not read either is refused in the API's words, not as an expired form.
    let token = mine.form_token().await;
    let unreadable = mine
        .request(Method::POST, "/dashboard/balance/schedule")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(format!("form_token={token}&bank_account%5Bbank_name%5D=Ba%00nk"))
        .send()
        .await
        .unwrap();
    assert_eq!(unreadable.status(), 400);
    let page = unreadable.text().await.unwrap();
    assert!(page.contains("That did not work") && !page.contains("expired"), "{page}");
    let (_, balance) = read(app.get("/balance").await).await;
    assert_eq!(balance["payout_schedule"]["destination"]["bank_name"], "Test Bank of the Philippines", "nothing changed");
    // Signing in again makes a new session and ends the browser's old one.
    let old = mine.cookie.clone();
    mine.sign_in(&app.keys.secret_test).await;
    assert_ne!(mine.cookie, old);
    assert_eq!(Console { app: &app, cookie: old }.get("/dashboard").await.0, 303);
    assert_eq!(mine.get("/dashboard").await.0, 200);
    // A sign-in form without its own token opens nothing.
    let response = browser()
        .post(format!("{}/dashboard/sign_in", app.address))
        .form(&[("key", app.keys.secret_test.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    assert!(response.headers().get_all(SET_COOKIE).iter().all(|c| !c.to_str().unwrap().starts_with("console_session")));
}

async fn a_session_ends_idle_or_signed_out(app: TestApp) {
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    app.clock.advance(59 * 60);
    assert_eq!(console.get("/dashboard").await.0, 200);
    app.clock.advance(59 * 60);
    assert_eq!(console.get("/dashboard").await.0, 200, "an hour after the last request, not the first");
    app.clock.advance(61 * 60);
    assert_eq!(console.get("/dashboard").await.0, 303, "left idle for an hour");

    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    let (status, location) = console.post("/dashboard/sign_out", &[("form_token", &token)]).await;
    assert_eq!((status, location.as_str()), (303, "/dashboard/sign_in"));
    assert_eq!(console.get("/dashboard").await.0, 303, "signed out");
}

async fn the_request_log_pages_show_the_accounts_requests_escaped(app: TestApp) {
    let hostile = "<script>alert(1)</script>";
    let body =
        format!("name={}&email=a%40example.com&currency=PHP&metadata[note]={}", percent(hostile), percent(hostile));
    let created = app.form(Method::POST, "/customers", &app.keys.secret_test, &body).await;
    assert_eq!(created.status(), 200);
    let (_, theirs) = crate::helpers::read(app.form(Method::GET, "/customers", &app.other_account_key, "").await).await;
    assert_eq!(theirs["data"].as_array().map(Vec::len), Some(0));
    let entries = crate::request_logs::logged(&app, "", 1).await;
    let mine = entries[0]["id"].as_str().unwrap().to_owned();
    // The log is written beside the request: wait for the other account's entry.
    let their_log = crate::request_logs::logged_for(&app, &app.other_account_key, "", 1).await;
    let theirs = their_log[0]["id"].as_str().unwrap().to_owned();

    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let (status, list) = console.get("/dashboard/request_logs").await;
    assert_eq!(status, 200);
    assert!(list.contains("POST /customers") && list.contains(&mine), "{list}");
    assert!(!list.contains(&theirs), "another account's request");
    let (status, detail) = console.get(&format!("/dashboard/request_logs/{mine}")).await;
    assert_eq!(status, 200);
    assert!(!detail.contains(hostile), "{detail}");
    assert!(detail.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{detail}");
    assert_eq!(console.get(&format!("/dashboard/request_logs/{theirs}")).await.0, 404);
    let (status, filtered) = console.get("/dashboard/request_logs?status=4xx").await;
    assert_eq!(status, 200);
    assert!(filtered.contains("No requests match"), "{filtered}");
    let (status, refused) = console.get("/dashboard/request_logs?status=9xx").await;
    assert_eq!(status, 400);
    assert!(refused.contains("The parameter status must be"), "{refused}");
}

async fn a_disabled_console_is_not_there(app: TestApp) {
    for path in ["/dashboard", "/dashboard/sign_in", "/assets/console.css"] {
        assert_eq!(Console::new(&app).get(path).await.0, 404, "{path}");
    }
}

async fn behind_https_the_cookie_is_secure(app: TestApp) {
    let mut console = Console::new(&app);
    let response = console.sign_in(&app.keys.secret_test).await;
    let session = response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .find_map(|v| v.to_str().ok().filter(|v| v.starts_with("console_session=")).map(str::to_owned));
    assert!(session.unwrap().contains("Secure"));
    // The sign-in form's cookie follows the same rule, with or without the proxy's header.
    let form = browser().get(format!("{}/dashboard/sign_in", app.address)).send().await.unwrap();
    let form_cookie = form.headers()[SET_COOKIE].to_str().unwrap().to_owned();
    assert!(form_cookie.contains("Secure"), "{form_cookie}");
}

/// Every cookie the service sets is `Secure` when the request came over https, as the proxy in
/// front says, even where the public base URL is plain http.
async fn every_cookie_is_secure_over_https_whatever_the_base_url(app: TestApp) {
    let over_https =
        |path: &str| browser().get(format!("{}{path}", app.address)).header("X-Forwarded-Proto", "https").send();
    let form = over_https("/dashboard/sign_in").await.unwrap();
    let form_cookie = form.headers()[SET_COOKIE].to_str().unwrap().to_owned();
    assert!(form_cookie.contains("Secure"), "{form_cookie}");
    let plain = browser().get(format!("{}/dashboard/sign_in", app.address)).send().await.unwrap();
    assert!(!plain.headers()[SET_COOKIE].to_str().unwrap().contains("Secure"), "plain http");
    let token = form_token(&form.text().await.unwrap());
    let signed_in = browser()
        .post(format!("{}/dashboard/sign_in", app.address))
        .header("X-Forwarded-Proto", "https")
        .header(COOKIE, form_cookie.split(';').next().unwrap())
        .form(&[("form_token", token.as_str()), ("key", app.keys.secret_test.as_str())])
        .send()
        .await
        .unwrap();
    let session = signed_in
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .find_map(|v| v.to_str().ok().filter(|v| v.starts_with("console_session=")).map(str::to_owned));
    let session = session.expect("signed in");
    assert!(session.contains("Secure"));
    // Signing out clears the cookie by the same rule (the proxy's header in any case).
    let session_pair = session.split(';').next().unwrap().to_owned();
    let overview =
        browser().get(format!("{}/dashboard", app.address)).header(COOKIE, &session_pair).send().await.unwrap();
    let page_cookie =
        overview.headers().get(SET_COOKIE).map(|v| v.to_str().unwrap().split(';').next().unwrap().to_owned());
    let token = form_token(&overview.text().await.unwrap());
    let cookies = [Some(session_pair), page_cookie].into_iter().flatten().collect::<Vec<_>>().join("; ");
    let signed_out = browser()
        .post(format!("{}/dashboard/sign_out", app.address))
        .header("X-Forwarded-Proto", "HTTPS")
        .header(COOKIE, cookies)
        .form(&[("form_token", token.as_str())])
        .send()
        .await
        .unwrap();
    let cleared = signed_out
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .find_map(|v| v.to_str().ok().filter(|v| v.starts_with("console_session=")).map(str::to_owned));
    assert!(cleared.expect("cleared").contains("Secure"));
}

fn percent(text: &str) -> String {
    crate::browser::percent(text)
}

on_both_backends!(payments_are_found_and_acted_on_from_the_console);

/// The ids of the payment intents a console page links to, in their order, each once.
fn intents_on(page: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let prefix = "/dashboard/payment_intents/";
    for (at, _) in page.match_indices(prefix) {
        let id: String =
            page[at + prefix.len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if id.starts_with("pi_") && !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

async fn payments_are_found_and_acted_on_from_the_console(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap();
    let paid = app.create_intent(10_000, &format!("&metadata[order]=A-1&customer_id={customer_id}")).await;
    let paid_id = paid["id"].as_str().unwrap().to_owned();
    assert_eq!(app.attach_card(&paid_id, "4242424242424242").await.0, 200);
    let held =
        app.create_intent(25_000, "&metadata[order]=A-2&payment_method_options[card][capture_type]=manual").await;
    let held_id = held["id"].as_str().unwrap().to_owned();
    assert_eq!(app.attach_card(&held_id, "4242424242424242").await.0, 200);
    let open = app.create_intent(5_000, "&description=%3Cb%3Ebold%3C%2Fb%3E").await;
    let open_id = open["id"].as_str().unwrap().to_owned();
    let theirs = read_json(
        app.form(
            Method::POST,
            "/payment_intents",
            &app.other_account_key,
            "amount=10000&currency=PHP&payment_methods[]=card&metadata[order]=A-1",
        )
        .await,
    )
    .await;
    let their_id = theirs["id"].as_str().unwrap().to_owned();

    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let (status, all) = console.get("/dashboard/payment_intents").await;
    assert_eq!(status, 200);
    assert_eq!(intents_on(&all), [open_id.clone(), held_id.clone(), paid_id.clone()], "newest first, theirs not");
    assert!(all.contains("&#60;b&#62;bold") && !all.contains("<b>bold"), "escaped");
    for (query, expected) in [
        ("q=A-1", vec![paid_id.clone()]),
        ("q=ana%40example.com", vec![paid_id.clone()]),
        ("q=nobody%40example.com", vec![]),
        ("status=awaiting_capture", vec![held_id.clone()]),
        (&format!("customer={customer_id}") as &str, vec![paid_id.clone()]),
        ("amount_from=100&amount_to=250.00", vec![held_id.clone(), paid_id.clone()]),
        ("created_from=2000-01-01&created_to=2000-01-02", vec![]),
        ("limit=1&status=", vec![open_id.clone()]),
    ] {
        let (status, page) = console.get(&format!("/dashboard/payment_intents?{query}")).await;
        assert_eq!(status, 200, "{query}: {page}");
        assert_eq!(intents_on(&page), expected, "{query}");
    }
    let (status, older) = console.get(&format!("/dashboard/payment_intents?limit=1&after={open_id}")).await;
    assert_eq!((status, intents_on(&older)), (200, vec![held_id.clone()]));
    assert!(older.contains("rel=\"prev\"") && older.contains("rel=\"next\""), "{older}");
    for bad in ["status=lost", "amount_from=abc", "created_from=2026-02-30", "customer=nobody", "limit=1000"] {
        assert_eq!(console.get(&format!("/dashboard/payment_intents?{bad}")).await.0, 400, "{bad}");
    }
    let found = browser().get(format!("{}/dashboard/payment_intents?q={paid_id}", app.address));
    let found = found.header(COOKIE, console.cookie.clone().unwrap()).send().await.unwrap();
    assert_eq!(found.headers()[LOCATION], format!("/dashboard/payment_intents/{paid_id}"), "an id goes to its page");
    assert_eq!(console.get(&format!("/dashboard/payment_intents/{their_id}")).await.0, 404, "another account's");

    let (status, page) = console.get(&format!("/dashboard/payment_intents/{paid_id}")).await;
    assert_eq!(status, 200);
    for shown in ["₱100.00", "succeeded", "payment_intent.succeeded", "payment.paid", "order: A-1", customer_id] {
        assert!(page.contains(shown), "{shown} missing");
    }
    let token = form_token(&page);
    let payment_id = paid["latest_payment"].as_str().map(str::to_owned).unwrap_or_else(|| {
        let start = page.find("name=\"payment_id\" value=\"").unwrap() + 25;
        page[start..start + page[start..].find('"').unwrap()].to_owned()
    });
    let refund = |amount: &'static str, token: String, payment: String| {
        let path = format!("/dashboard/payment_intents/{paid_id}/refund");
        let console = &console;
        async move {
            console
                .post(
                    &path,
                    &[
                        ("form_token", &token),
                        ("payment_id", &payment),
                        ("currency", "PHP"),
                        ("amount", amount),
                        ("reason", "others"),
                    ],
                )
                .await
        }
    };
    assert_eq!(refund("2500", String::new(), payment_id.clone()).await.0, 403, "no form token");
    assert_eq!(refund("99999", token.clone(), payment_id.clone()).await.0, 400, "more than was paid");
    let held_payment = read_json(app.get(&format!("/payment_intents/{held_id}")).await).await;
    let held_payment = held_payment["latest_payment"]["id"].as_str().unwrap_or_default().to_owned();
    assert_eq!(refund("100", token.clone(), held_payment).await.0, 400, "another intent's payment");
    let (status, location) = refund("2500", token.clone(), payment_id.clone()).await;
    assert_eq!(
        (status, location.as_str()),
        (303, format!("/dashboard/payment_intents/{paid_id}?done=refunded").as_str())
    );
    let (_, page) = console.get(&location).await;
    assert!(
        page.contains("Refund created") && page.contains("Refunded ₱25.00") && page.contains("refund.created"),
        "{page}"
    );
    let payment = read_json(app.get(&format!("/payments/{payment_id}")).await).await;
    assert_eq!(payment["amount_refunded"], 2500, "exactly one refund, through the API's service");

    let capture = format!("/dashboard/payment_intents/{held_id}/capture");
    assert_eq!(console.post(&capture, &[("form_token", &token), ("amount", "1")]).await.0, 400);
    let (status, _) = console.post(&capture, &[("form_token", &token), ("amount", "20000")]).await;
    assert_eq!(status, 303);
    let captured = read_json(app.get(&format!("/payment_intents/{held_id}")).await).await;
    assert_eq!((captured["status"].as_str(), captured["amount_received"].as_i64()), (Some("succeeded"), Some(20_000)));
    let cancel = format!("/dashboard/payment_intents/{open_id}/cancel");
    assert_eq!(console.post(&cancel, &[("form_token", &token)]).await.0, 303);
    assert_eq!(console.post(&cancel, &[("form_token", &token)]).await.0, 400, "canceled once");
    let their_cancel = format!("/dashboard/payment_intents/{their_id}/cancel");
    assert_eq!(console.post(&their_cancel, &[("form_token", &token)]).await.0, 404);
    let theirs =
        read_json(app.form(Method::GET, &format!("/payment_intents/{their_id}"), &app.other_account_key, "").await)
            .await;
    assert_eq!(theirs["status"], "awaiting_payment_method", "untouched");

    // The console's actions are in the request log, as the console's, with what they answered.
    let entries = crate::request_logs::logged(&app, "&source=dashboard", 7).await;
    let refunded =
        entries.iter().find(|e| e["status"] == 303 && e["path"].as_str().unwrap().ends_with("/refund")).unwrap();
    assert_eq!(refunded["response_body"]["resource"], "refund");
    assert_eq!(refunded["request_body"]["form_token"], "[redacted]");
    assert_eq!(refunded["object_id"], paid_id.as_str());
    let over = entries.iter().find(|e| e["status"] == 400 && e["request_body"]["amount"] == "99999").unwrap();
    assert_eq!(over["response_body"]["errors"][0]["code"], "parameter_above_maximum");
    assert!(entries.iter().all(|e| e["status"] != 403), "a form without its token is not the session's");
}

async fn read_json(response: Response) -> serde_json::Value {
    crate::helpers::read(response).await.1
}

on_both_backends!(webhooks_and_events_are_managed_from_the_console);

/// The id after `prefix` in `text` (a link's path), if any.
fn id_after(text: &str, prefix: &str) -> Option<String> {
    let at = text.find(prefix)? + prefix.len();
    Some(text[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect())
}

async fn webhooks_and_events_are_managed_from_the_console(app: TestApp) {
    use crate::receiver::{Receiver, Reply};
    let receiver = Receiver::start(vec![Reply::Status(500)]);
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    let (status, _) = console
        .post("/dashboard/webhooks", &[("form_token", &token), ("url", "not a url"), ("events[]", "payment.paid")])
        .await;
    assert_eq!(status, 400);
    let (status, _) = console.post("/dashboard/webhooks", &[("form_token", &token), ("url", &receiver.url)]).await;
    assert_eq!(status, 400, "no events");
    let fields = [
        ("form_token", token.as_str()),
        ("url", receiver.url.as_str()),
        ("description", "<i>shop</i>"),
        ("events[]", "payment_intent.succeeded"),
        ("events[]", "refund.created"),
    ];
    let (status, location) = console.post("/dashboard/webhooks", &fields).await;
    assert_eq!(status, 303);
    let webhook_id = id_after(&location, "/dashboard/webhooks/").unwrap();
    let (status, page) = console.get(&location).await;
    assert_eq!(status, 200);
    let api_view = read_json(app.get(&format!("/webhooks/{webhook_id}")).await).await;
    let secret = api_view["secret_key"].as_str().unwrap();
    assert!(page.contains(secret) && page.contains("Reveal") && page.contains("&#60;i&#62;shop&#60;/i&#62;"), "{page}");
    assert!(page.contains("No event of the types it listens to yet"));

    let intent = app.create_intent(10_000, "").await;
    let intent_id = intent["id"].as_str().unwrap();
    assert_eq!(app.attach_card(intent_id, "4242424242424242").await.0, 200);
    receiver.wait_for(1, std::time::Duration::from_secs(5)).await;
    let events =
        read_json(app.get(&format!("/events?object_id={intent_id}&type=payment_intent.succeeded")).await).await;
    let event_id = events["data"][0]["id"].as_str().unwrap().to_owned();
    // The first attempt was answered 500; it shows with the receiver's answer.
    let mut event_page = String::new();
    for _ in 0..50 {
        event_page = console.get(&format!("/dashboard/events/{event_id}")).await.1;
        if event_page.contains("answered 500") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(event_page.contains("answered 500") && event_page.contains(&webhook_id), "{event_page}");
    let (status, listed) = console.get("/dashboard/events?type=payment_intent.succeeded").await;
    assert_eq!(status, 200);
    assert!(listed.contains(&event_id) && !listed.contains("<code>payment.paid</code>"), "filtered by type");
    assert_eq!(console.get("/dashboard/events?type=nothing").await.0, 400);

    let before = receiver.received().len();
    let resend = format!("/dashboard/events/{event_id}/resend");
    assert_eq!(console.post(&resend, &[("form_token", &token), ("webhook_id", "wh_none")]).await.0, 404);
    let (status, location) = console.post(&resend, &[("form_token", &token), ("webhook_id", &webhook_id)]).await;
    assert_eq!((status, location), (303, format!("/dashboard/events/{event_id}?done=resent")));
    let received = receiver.wait_for(before + 1, std::time::Duration::from_secs(5)).await;
    assert!(received.last().unwrap().body.contains(&event_id), "the same event, sent again");

    // Disable, enable, edit, send a test event, delete.
    let hook = format!("/dashboard/webhooks/{webhook_id}");
    assert_eq!(console.post(&format!("{hook}/disable"), &[("form_token", &token)]).await.0, 303);
    assert_eq!(read_json(app.get(&format!("/webhooks/{webhook_id}")).await).await["status"], "disabled");
    assert_eq!(console.post(&format!("{hook}/enable"), &[("form_token", &token)]).await.0, 303);
    assert_eq!(read_json(app.get(&format!("/webhooks/{webhook_id}")).await).await["status"], "enabled");
    let edit = [
        ("form_token", token.as_str()),
        ("url", receiver.url.as_str()),
        ("description", "Shop"),
        ("events[]", "payment.paid"),
    ];
    assert_eq!(console.post(&hook, &edit).await.0, 303);
    let edited = read_json(app.get(&format!("/webhooks/{webhook_id}")).await).await;
    assert_eq!((edited["description"].as_str(), edited["events"].as_array().map(Vec::len)), (Some("Shop"), Some(1)));
    let page = console.get(&hook).await.1;
    let latest = id_after(&page, "name=\"event_id\" value=\"").expect("the latest payment.paid to send");
    let before = receiver.received().len();
    assert_eq!(console.post(&format!("{hook}/resend"), &[("form_token", &token), ("event_id", &latest)]).await.0, 303);
    receiver.wait_for(before + 1, std::time::Duration::from_secs(5)).await;
    let secret = edited["secret_key"].as_str().unwrap().to_owned();
    let (status, location) = console.post(&format!("{hook}/rotate_secret"), &[("form_token", &token)]).await;
    assert_eq!((status, location.as_str()), (303, format!("{hook}?done=rotate_secret").as_str()));
    let rotated = read_json(app.get(&format!("/webhooks/{webhook_id}")).await).await;
    assert!(rotated["secret_key"].as_str().is_some_and(|new| new != secret && new.starts_with("whsk_")), "{rotated}");
    assert!(console.get(&location).await.1.contains("A new secret"));
    let mut theirs = Console::new(&app);
    theirs.sign_in(&app.other_account_key).await;
    assert_eq!(theirs.get(&hook).await.0, 404, "another account's webhook");
    assert_eq!(theirs.get(&format!("/dashboard/events/{event_id}")).await.0, 404, "another account's event");
    let their_token = theirs.form_token().await;
    assert_eq!(theirs.post(&format!("{hook}/delete"), &[("form_token", &their_token)]).await.0, 404);
    assert_eq!(theirs.post(&format!("{hook}/rotate_secret"), &[("form_token", &their_token)]).await.0, 404);
    assert_eq!(console.post(&format!("{hook}/rotate_secret"), &[]).await.0, 403, "without the form token");
    assert_eq!(console.post(&format!("{hook}/delete"), &[("form_token", &token)]).await.0, 303);
    assert_eq!(console.get(&hook).await.0, 404, "deleted");
}

on_both_backends!(customers_sessions_statements_payments_and_refunds_have_pages);

async fn customers_sessions_statements_payments_and_refunds_have_pages(app: TestApp) {
    // A statement with hostile text, finalized and then moved on from the console.
    let statement = crate::billing_statements::open_statement(&app).await;
    let statement_id = statement["id"].as_str().unwrap().to_owned();
    let customer_id = statement["customer_id"].as_str().unwrap().to_owned();
    let (status, draft) = app
        .post("/billing_statements", &format!("customer_id={customer_id}&description=%3Cscript%3Ex%3C%2Fscript%3E"))
        .await;
    assert_eq!(status, 200, "{draft}");
    let draft_id = draft["id"].as_str().unwrap().to_owned();
    let session = crate::checkout_sessions::create_session(&app, "").await;
    let session_id = session["id"].as_str().unwrap().to_owned();
    let intent = app.create_intent(10_000, "").await;
    let intent_id = intent["id"].as_str().unwrap();
    app.attach_card(intent_id, "4242424242424242").await;
    let paid = read_json(app.get(&format!("/payment_intents/{intent_id}")).await).await;
    let payment_id = paid["latest_payment"]["id"].as_str().unwrap().to_owned();
    let (status, refund) =
        app.post("/refunds", &format!("amount=1000&currency=PHP&payment_id={payment_id}&reason=others")).await;
    assert_eq!(status, 200, "{refund}");
    let refund_id = refund["id"].as_str().unwrap().to_owned();

    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let token = console.form_token().await;
    for (path, shown) in [
        ("/dashboard/customers".to_owned(), vec!["Juan dela Cruz", customer_id.as_str()]),
        (
            format!("/dashboard/customers/{customer_id}"),
            vec!["Billing statements", statement_id.as_str(), "Customer sessions"],
        ),
        ("/dashboard/customers?email=juan%40example.com".to_owned(), vec![customer_id.as_str()]),
        ("/dashboard/checkout_sessions?status=active".to_owned(), vec![session_id.as_str()]),
        (format!("/dashboard/checkout_sessions/{session_id}"), vec!["Mug", "Tea", "₱3,123.45", "/c/cs_"]),
        ("/dashboard/billing_statements?status=open".to_owned(), vec![statement_id.as_str()]),
        (
            format!("/dashboard/billing_statements/{statement_id}"),
            vec!["Consulting", "Travel", "/b/bstm_", "Send by e-mail"],
        ),
        ("/dashboard/payments".to_owned(), vec![payment_id.as_str()]),
        (format!("/dashboard/payments/{payment_id}"), vec![refund_id.as_str(), "₱100.00"]),
        ("/dashboard/refunds".to_owned(), vec![refund_id.as_str()]),
        (format!("/dashboard/refunds/{refund_id}"), vec![payment_id.as_str(), "others"]),
    ] {
        let (status, page) = console.get(&path).await;
        assert_eq!(status, 200, "{path}");
        for words in shown {
            assert!(page.contains(words), "{words} missing from {path}");
        }
    }
    let (status, draft_page) = console.get(&format!("/dashboard/billing_statements/{draft_id}")).await;
    assert_eq!(status, 200);
    assert!(!draft_page.contains("<script>x"), "escaped");
    // A draft without a due date cannot be finalized (the API refuses it): no button offers it.
    assert!(!draft_page.contains("Finalize"), "{draft_page}");
    assert_eq!(console.get("/dashboard/checkout_sessions?status=lost").await.0, 400);
    assert_eq!(console.get("/dashboard/payments?status=lost").await.0, 400);
    assert_eq!(console.get("/dashboard/customers?colour=red").await.0, 400);

    // Moves from the console, through the API's services.
    let statement_path = format!("/dashboard/billing_statements/{statement_id}");
    assert_eq!(
        console.post(&format!("{statement_path}/finalize"), &[("form_token", &token)]).await.0,
        400,
        "open already"
    );
    assert_eq!(console.post(&format!("{statement_path}/void"), &[("form_token", &token)]).await.0, 303);
    assert_eq!(read_json(app.get(&format!("/billing_statements/{statement_id}")).await).await["status"], "void");
    assert_eq!(console.post(&format!("{statement_path}/send"), &[("form_token", &token)]).await.0, 400, "void now");
    let session_path = format!("/dashboard/checkout_sessions/{session_id}/expire");
    assert_eq!(console.post(&session_path, &[]).await.0, 403, "no form token");
    assert_eq!(read_json(app.get(&format!("/checkout_sessions/{session_id}")).await).await["status"], "active");
    assert_eq!(console.post(&session_path, &[("form_token", &token)]).await.0, 303);
    assert_eq!(read_json(app.get(&format!("/checkout_sessions/{session_id}")).await).await["status"], "expired");

    // Another account sees none of it.
    let mut theirs = Console::new(&app);
    theirs.sign_in(&app.other_account_key).await;
    for path in [
        format!("/dashboard/customers/{customer_id}"),
        format!("/dashboard/checkout_sessions/{session_id}"),
        format!("/dashboard/billing_statements/{statement_id}"),
        format!("/dashboard/payments/{payment_id}"),
        format!("/dashboard/refunds/{refund_id}"),
    ] {
        assert_eq!(theirs.get(&path).await.0, 404, "{path}");
    }
    for list in ["/dashboard/customers", "/dashboard/payments", "/dashboard/refunds", "/dashboard/billing_statements"] {
        let (status, page) = theirs.get(list).await;
        assert!(status == 200 && page.contains("None."), "{list}: {page}");
    }
    let their_token = theirs.form_token().await;
    assert_eq!(
        theirs
            .post(&format!("/dashboard/billing_statements/{draft_id}/finalize"), &[("form_token", &their_token)])
            .await
            .0,
        404
    );
}

mod signing_in_is_rate_limited_like_any_request_without_a_key {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        let tight = |settings: &mut payments_api::settings::Settings| {
            settings.rate_limit.per_address_per_second = 1;
            settings.rate_limit.per_address_burst = 3;
        };
        let app = crate::helpers::spawn_app_with(payments_adapters::db::Backend::Sqlite, tight).await;
        super::signing_in_is_rate_limited_like_any_request_without_a_key(app).await;
    }
}

async fn signing_in_is_rate_limited_like_any_request_without_a_key(app: TestApp) {
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let response = browser()
            .post(format!("{}/dashboard/sign_in", app.address))
            .form(&[("form_token", "guess"), ("key", "sk_test_guess")])
            .send()
            .await
            .unwrap();
        statuses.push(response.status().as_u16());
    }
    assert!(statuses.contains(&429), "wrong keys are limited per address: {statuses:?}");
    let right_key = browser()
        .post(format!("{}/dashboard/sign_in", app.address))
        .form(&[("form_token", "guess"), ("key", app.keys.secret_test.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(right_key.status(), 429, "the address waits, whatever the key");
}
