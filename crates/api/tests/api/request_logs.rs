//! The request log: every request made with an API key is logged as it was answered, off the
//! request's path, with card numbers, CVCs, keys and client secrets taken out; it is listed newest
//! first with filters, read one by one, confined to its account and mode, and pruned.

use crate::helpers::{contains_number, error_codes, ids, read, TestApp};
use reqwest::Method;
use serde_json::Value;

on_both_backends!(every_keyed_request_is_logged_as_answered_and_redacted);
on_both_backends!(the_log_is_filtered_and_confined_to_its_account_and_mode);
on_both_backends!(the_log_is_pruned_by_age);
on_both_backends!(card_data_written_in_any_way_is_kept_nowhere);
on_both_backends!(ids_the_service_minted_are_kept_whole);
on_both_backends!(long_texts_are_cleaned_before_they_are_cut);
on_both_backends_with!(|settings| settings.request_log.max_bytes_per_account = 1 << 20 => the_log_is_pruned_to_its_byte_cap);
on_both_backends_with!(|settings| settings.request_log.enabled = false => a_disabled_log_records_nothing);

/// The account's log with the test secret key, once it holds at least `count` entries (the log is
/// written in the background, so an entry shows up shortly after its request was answered).
pub async fn logged(app: &TestApp, query: &str, count: usize) -> Vec<Value> {
    logged_for(app, &app.keys.secret_test, query, count).await
}

/// As [`logged`], for the account and mode of `key`.
pub async fn logged_for(app: &TestApp, key: &str, query: &str, count: usize) -> Vec<Value> {
    let mut entries = Vec::new();
    for _ in 0..100 {
        let path = format!("/request_logs?limit=100{query}");
        let (status, page) = read(app.request(Method::GET, &path, key).send().await.unwrap()).await;
        assert_eq!(status, 200, "{page}");
        entries = page["data"].as_array().cloned().unwrap_or_default();
        if entries.len() >= count {
            return entries;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the log holds {} entries, not {count}: {entries:?}", entries.len());
}

/// The ids of the log's entries that match `query`.
async fn logged_ids(app: &TestApp, query: &str) -> Vec<String> {
    logged(app, query, 0).await.iter().map(|e| e["id"].as_str().unwrap().to_owned()).collect()
}

async fn every_keyed_request_is_logged_as_answered_and_redacted(app: TestApp) {
    let key = &app.keys.secret_test;
    let create = "amount=10000&currency=PHP&payment_methods[]=card&metadata[order]=A-1";
    let first = app.request(Method::POST, "/payment_intents", key).header("Idempotency-Key", "order-A-1");
    let first = first.header("Content-Type", "application/x-www-form-urlencoded").body(create).send().await.unwrap();
    let (status, intent) = read(first).await;
    assert_eq!(status, 200, "{intent}");
    let retry = app.request(Method::POST, "/payment_intents", key).header("Idempotency-Key", "order-A-1");
    let retry = retry.header("Content-Type", "application/x-www-form-urlencoded").body(create).send().await.unwrap();
    assert_eq!(retry.headers()["Idempotent-Replayed"], "true");
    let id = intent["id"].as_str().unwrap();
    let secret = intent["client_secret"].as_str().unwrap();
    let card = serde_json::json!({"payment_method": {"type": "card", "card": {"number": "4242424242424242",
        "exp_month": 12, "exp_year": 2035, "cvc": "987"}}});
    let (status, _) = read(app.json(Method::POST, &format!("/payment_intents/{id}/attach"), key, &card).await).await;
    assert_eq!(status, 200);
    let with_public_key = format!("/payment_intents/{id}?client_secret={secret}");
    let (status, _) =
        read(app.request(Method::GET, &with_public_key, &app.keys.public_test).send().await.unwrap()).await;
    assert_eq!(status, 200);
    let (status, _) = read(app.get("/customers/cus_missing").await).await;
    assert_eq!(status, 404);
    let unknown_key = app.request(Method::GET, "/customers", "sk_test_NoSuchKey000000000000000000000000000");
    assert_eq!(unknown_key.send().await.unwrap().status(), 401);

    let entries = logged(&app, "", 5).await;
    let summary: Vec<(&str, &str, u64, bool)> = entries
        .iter()
        .map(|e| {
            let replayed = e["idempotent_replayed"].as_bool().unwrap();
            (e["method"].as_str().unwrap(), e["path"].as_str().unwrap(), e["status"].as_u64().unwrap(), replayed)
        })
        .collect();
    let attach = format!("/payment_intents/{id}/attach");
    let retrieve = format!("/payment_intents/{id}");
    assert_eq!(
        summary,
        [
            ("GET", "/customers/cus_missing", 404, false),
            ("GET", retrieve.as_str(), 200, false),
            ("POST", attach.as_str(), 200, false),
            ("POST", "/payment_intents", 200, true),
            ("POST", "/payment_intents", 200, false),
        ],
        "newest first; a request with an unknown key belongs to no account, and reading the log is not logged"
    );
    let [missing, public, attached, replayed, created] = &entries[..] else { unreachable!() };
    assert_eq!(created["idempotency_key"], "order-A-1");
    assert_eq!(created["object_id"], id, "the object a creation answered");
    assert_eq!(created["request_body"]["metadata"]["order"], "A-1", "a form body as its parameters");
    assert_eq!(created["request_body"]["amount"], "10000");
    assert_eq!(created["response_body"]["id"], id);
    assert_eq!(created["response_body"]["client_secret"], format!("{id}_secret_[redacted]"));
    assert_eq!(replayed["response_body"], created["response_body"]);
    assert_eq!((created["key_kind"].as_str(), created["source"].as_str()), (Some("secret"), Some("api")));
    assert_eq!(attached["object_id"], id, "the object in the path");
    assert_eq!(attached["request_body"]["payment_method"]["card"]["number"], "[redacted]");
    assert_eq!(attached["request_body"]["payment_method"]["card"]["cvc"], "[redacted]");
    assert_eq!(attached["request_body"]["payment_method"]["card"]["exp_year"], 2035, "a JSON body as sent");
    assert_eq!(attached["response_body"]["status"], "succeeded");
    assert_eq!(public["key_kind"], "public");
    assert!(public["query"].as_str().unwrap().ends_with("_secret_[redacted]"), "{}", public["query"]);
    assert_eq!(missing["response_body"]["errors"][0]["code"], "resource_not_found");
    assert_eq!(missing["object_id"], "cus_missing", "a failed lookup is found by the id it asked for");
    assert!(created["duration_ms"].as_i64().unwrap() >= 0 && created["created_at"].as_i64().unwrap() > 0);
    let everything = serde_json::to_string(&entries).unwrap();
    for never in ["4242424242424242", "\"987\"", secret, key.as_str(), app.keys.public_test.as_str()] {
        assert!(!everything.contains(never), "{never} is in the log");
    }

    let (status, one) = read(app.get(&format!("/request_logs/{}", attached["id"].as_str().unwrap())).await).await;
    assert_eq!((status, &one), (200, attached));
    assert_eq!(one["resource"], "request_log");
}

async fn the_log_is_filtered_and_confined_to_its_account_and_mode(app: TestApp) {
    let intent = app.create_intent(10_000, "").await;
    let id = intent["id"].as_str().unwrap().to_owned();
    let (status, _) = app.post(&format!("/payment_intents/{id}/cancel"), "").await;
    assert_eq!(status, 200);
    let (status, _) = app.post(&format!("/payment_intents/{id}/cancel"), "").await;
    assert_eq!(status, 400);
    let (status, _) = read(app.get("/customers").await).await;
    assert_eq!(status, 200);
    let live =
        app.form(Method::POST, "/customers", &app.keys.secret_live, "name=Live&email=l@example.com&currency=PHP");
    assert_eq!(live.await.status(), 200);
    let other = app.form(Method::GET, "/customers", &app.other_account_key, "").await;
    assert_eq!(other.status(), 200);

    let entries = logged(&app, "", 4).await;
    assert_eq!(entries.len(), 4, "the live-mode and other account's requests are not in this log: {entries:?}");
    let all: Vec<String> = entries.iter().map(|e| e["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(logged_ids(&app, "&status=4xx").await, [all[1].clone()]);
    assert_eq!(logged_ids(&app, "&status=400").await, [all[1].clone()]);
    assert_eq!(logged_ids(&app, "&status=2xx").await, [all[0].clone(), all[2].clone(), all[3].clone()]);
    assert_eq!(logged_ids(&app, "&method=GET").await, [all[0].clone()]);
    assert_eq!(logged_ids(&app, "&path=/payment_intents").await, all[1..]);
    assert!(logged_ids(&app, "&path=/payment%25").await.is_empty(), "a path filter is a prefix, % is itself");
    assert_eq!(logged_ids(&app, "&source=api").await, all);
    assert!(logged_ids(&app, "&source=dashboard").await.is_empty());
    let (status, page) = read(app.get(&format!("/request_logs?object_id={id}&limit=1")).await).await;
    assert_eq!((status, ids(&page), page["has_more"].as_bool()), (200, vec![all[1].clone()], Some(true)));
    let (status, page) = read(app.get(&format!("/request_logs?object_id={id}&after={}", all[1])).await).await;
    assert_eq!((status, ids(&page)), (200, vec![all[2].clone(), all[3].clone()]), "a cursor pages within the filter");

    for (query, parameter) in [
        ("status=6xx", "status"),
        ("status=4x", "status"),
        ("method=get", "method"),
        ("source=cli", "source"),
        ("limit=0", "limit"),
        ("colour=red", "colour"),
    ] {
        let (status, body) = read(app.get(&format!("/request_logs?{query}")).await).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(error_codes(&body)[0].0, parameter, "{query}: {body}");
    }
    let (status, body) = read(app.get("/request_logs?after=req_nope").await).await;
    assert_eq!((status, error_codes(&body)), (400, vec![("after".into(), "resource_not_found".into())]));

    // Another account's or mode's entries are not found, and only a secret key reads the log.
    let theirs = read(app.form(Method::GET, "/request_logs", &app.other_account_key, "").await).await.1;
    let their_id = ids(&theirs).first().cloned().expect("the other account's own request is in its log");
    let (status, _) = read(app.get(&format!("/request_logs/{their_id}")).await).await;
    assert_eq!(status, 404);
    let live_log = read(app.form(Method::GET, "/request_logs", &app.keys.secret_live, "").await).await.1;
    assert_eq!(ids(&live_log).len(), 1, "{live_log}");
    let (status, _) = read(app.get(&format!("/request_logs/{}", ids(&live_log)[0])).await).await;
    assert_eq!(status, 404, "a live entry is not found with a test key");
    let public = app.request(Method::GET, "/request_logs", &app.keys.public_test).send().await.unwrap();
    assert_eq!(public.status(), 401);
}

async fn the_log_is_pruned_by_age(app: TestApp) {
    let (status, _) = read(app.get("/customers").await).await;
    assert_eq!(status, 200);
    logged(&app, "", 1).await;
    app.clock.advance(6 * 86_400);
    let (status, _) = read(app.get("/webhooks?limit=1").await).await;
    assert_eq!(status, 200);
    logged(&app, "", 2).await;
    let services = app.services.clone();
    let pruned = tokio::task::spawn_blocking(move || services.request_logs.prune().unwrap()).await.unwrap();
    assert_eq!(pruned, 0, "seven days are kept");
    app.clock.advance(2 * 86_400);
    let services = app.services.clone();
    let pruned = tokio::task::spawn_blocking(move || services.request_logs.prune().unwrap()).await.unwrap();
    assert_eq!(pruned, 1, "the entry older than seven days");
    let entries = logged(&app, "", 1).await;
    assert_eq!(entries.iter().map(|e| e["path"].as_str().unwrap()).collect::<Vec<_>>(), ["/webhooks"]);
}

async fn a_disabled_log_records_nothing(app: TestApp) {
    let (status, _) = read(app.get("/customers").await).await;
    assert_eq!(status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(logged(&app, "", 0).await.is_empty());
}

/// Card numbers and CVCs written with escapes, in a refused form, in a query, or with dots between
/// their digits are in no entry of the log and on no page of the console.
async fn card_data_written_in_any_way_is_kept_nowhere(app: TestApp) {
    let key = &app.keys.secret_test;
    let intent = app.create_intent(10_000, "").await;
    let id = intent["id"].as_str().unwrap();
    let escaped = r#"{"payment_method": {"type": "card", "card": {"\u006eumber": "424242424242\u0034242", "exp_month": 12, "exp_year": 2030, "\u0063vc": "987"}}}"#;
    let attach = app.request(Method::POST, &format!("/payment_intents/{id}/attach"), key);
    let (status, paid) =
        read(attach.header("Content-Type", "application/json").body(escaped).send().await.unwrap()).await;
    assert_eq!((status, paid["status"].as_str()), (200, Some("succeeded")), "{paid}");
    let other = app.create_intent(10_000, "").await;
    let other_id = other["id"].as_str().unwrap();
    let form_like_json = "{x=1&payment_method[type]=card&payment_method[card][number]=4242424242424242\
        &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2030&payment_method[card][cvc]=987";
    let (status, _) =
        read(app.form(Method::POST, &format!("/payment_intents/{other_id}/attach"), key, form_like_json).await).await;
    assert_eq!(status, 400);
    let (status, _) = read(app.get("/customers?cvc=987&number=4242424242424242").await).await;
    assert_eq!(status, 400);
    let dotted = "name=Dots&email=d%40example.com&currency=PHP&metadata[note]=4242.4242.4242.4242&metadata[cvc]=987";
    let (status, _) = read(app.form(Method::POST, "/customers", key, dotted).await).await;
    assert_eq!(status, 200);
    let (status, _) = read(app.get("/customers/4242%2E4242%2E4242%2E4242").await).await;
    assert_eq!(status, 404);

    // A whole form percent-encoded into one name: the error names it, without what it holds.
    let encoded = "payment_method%5Bcard%5D%5Bnumber%5D%3D4242424242424242%26payment_method%5Bcard%5D%5Bcvc%5D%3D987";
    let (status, refused) =
        read(app.form(Method::POST, &format!("/payment_intents/{other_id}/attach"), key, encoded).await).await;
    assert_eq!(status, 400);
    assert!(!contains_number(&refused.to_string(), "987") && !refused.to_string().contains("4242424242424242"), "{refused}");
    let near_misses =
        "payment_method[type]=card&payment_method[card][number]=4242424242424242&payment_method[card][exp_month]=12\
        &payment_method[card][exp_year]=2030&payment_method[card][cvv2]=987&metadata[card_cvc]=987";
    let (status, _) =
        read(app.form(Method::POST, &format!("/payment_intents/{other_id}/attach"), key, near_misses).await).await;
    assert_eq!(status, 400);

    // Names encoded twice, or spelled in camel case; numbers between any separators, or in
    // Arabic-Indic digits.
    let twice = "payment_method%255Bcard%255D%255Bcvc%255D=987&securityCode=987&cardSecurityCode=987";
    let (status, _) = read(app.form(Method::POST, &format!("/payment_intents/{other_id}/attach"), key, twice).await).await;
    assert_eq!(status, 400);
    let arabic = "\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}\u{664}\u{662}";
    let separated = serde_json::json!({"name": "Seps", "email": "s@example.com", "currency": "PHP",
        "metadata": {"pipes": "4242|4242|4242|4242", "stars": "4242*4242*4242*4242", "dots": "4242\u{b7}4242\u{b7}4242\u{b7}4242",
                     "parens": "4242)(4242)(4242)(4242", "arabic": arabic}});
    let (status, _) = read(app.json(Method::POST, "/customers", key, &separated).await).await;
    assert_eq!(status, 200);

    let entries = logged(&app, "", 10).await;
    let everything = serde_json::to_string(&entries).unwrap();
    for never in ["4242424242424242", "4242.4242.4242.4242", "4242%2E4242", "4242|4242", "4242*4242", "4242\u{b7}4242", "4242)(4242", arabic] {
        assert!(!everything.contains(never), "{never} is in the log: {everything}");
    }
    assert!(!contains_number(&everything, "987"), "the CVC is in the log: {everything}");
    let attached = entries.iter().find(|e| e["path"] == format!("/payment_intents/{id}/attach")).unwrap();
    assert_eq!(attached["request_body"]["payment_method"]["card"]["number"], "[redacted]");
    assert_eq!(attached["request_body"]["payment_method"]["card"]["exp_year"], 2030, "the rest as sent");
    let queried = entries.iter().find(|e| e["path"] == "/customers" && e["method"] == "GET").unwrap();
    assert_eq!(queried["query"], "cvc=[redacted]&number=[redacted]");

    let mut console = crate::console::Console::new(&app);
    console.sign_in(key).await;
    for entry in &entries {
        let (status, page) = console.get(&format!("/dashboard/request_logs/{}", entry["id"].as_str().unwrap())).await;
        assert_eq!(status, 200);
        for never in ["4242424242424242", "4242.4242.4242.4242"] {
            assert!(!page.contains(never), "{never} is on the console's page of {}", entry["path"]);
        }
        assert!(!contains_number(&page, "987"), "the CVC is on the console's page of {}", entry["path"]);
    }
}

/// A card number at the end of a long id, a long parameter name or a long idempotency key is taken
/// out before the text is cut for an error or the log (cut first, most of its digits would stay and
/// pass no check); a verification code under an acronym or a name written run together is redacted.
async fn long_texts_are_cleaned_before_they_are_cut(app: TestApp) {
    let key = &app.keys.secret_test;
    let card = "4000056655665556";
    let long_id = format!("{}{card}", "x".repeat(114));
    let (status, missing) = read(app.get(&format!("/customers/{long_id}")).await).await;
    assert_eq!(status, 404, "{missing}");
    let long_name = format!("{}{card}{}=1&name=a&email=a%40example.com&currency=PHP", "z".repeat(26), "z".repeat(200));
    let (status, refused) = read(app.form(Method::POST, "/customers", key, &long_name).await).await;
    assert_eq!(status, 400, "{refused}");
    let long_key = format!("{}-{card}", "a".repeat(241));
    let response = app.request(Method::GET, "/customers", key).header("Idempotency-Key", long_key).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let (status, _) = read(app.get("/customers?CVVCode=800&cardcvc=801").await).await;
    assert_eq!(status, 400);
    let acronyms = serde_json::json!({"name": "a", "email": "a@example.com", "currency": "PHP",
        "metadata": {"CVVCode": "802", "securitycode": "803"}});
    let (status, _) = read(app.json(Method::POST, "/customers", key, &acronyms).await).await;
    assert_eq!(status, 200);

    for answer in [&missing, &refused] {
        assert!(!answer.to_string().contains("4000056655"), "{answer}");
    }
    // The body refused for its parameter's name is refused as it is read, before its key is, so it
    // is not logged: the other four are.
    let everything = serde_json::to_string(&logged(&app, "", 4).await).unwrap();
    for never in ["4000056655", "0566556655"] {
        assert!(!everything.contains(never), "{never} is in the log: {everything}");
    }
    for code in ["800", "801", "802", "803"] {
        assert!(!contains_number(&everything, code), "the code {code} is in the log: {everything}");
    }
}

/// An id shaped as the service mints them keeps its digits, even where they pass the Luhn check:
/// in the log's path and query, and in the error that names it.
async fn ids_the_service_minted_are_kept_whole(app: TestApp) {
    let minted = "cus_mk17957955194242424242424242xyzw";
    let (status, body) = read(app.get(&format!("/customers?after={minted}")).await).await;
    assert_eq!(status, 400);
    assert!(body.to_string().contains(minted), "{body}");
    let (status, _) = read(app.get(&format!("/customers/{minted}")).await).await;
    assert_eq!(status, 404);
    let entries = logged(&app, "", 2).await;
    assert_eq!(entries[0]["path"], format!("/customers/{minted}"));
    assert_eq!(entries[0]["object_id"], minted);
    assert_eq!(entries[1]["query"], format!("after={minted}"));
    assert!(entries[1]["response_body"].to_string().contains(minted));
    let filtered = logged(&app, &format!("&path=/customers/{minted}"), 1).await;
    assert_eq!(filtered.len(), 1, "a path filter finds it");
}

/// Past its byte cap an account's oldest entries go, however few rows it has: as the log is written
/// (within a sixteenth of the cap and a batch), and to the byte at the prune.
async fn the_log_is_pruned_to_its_byte_cap(app: TestApp) {
    const CAP: i64 = 1 << 20;
    // Each request and its answer hold 40 KB of metadata: 80 of them pass three MiB.
    let note = "x".repeat(500);
    let stored_bytes = || app.database.number("SELECT CAST(COALESCE(SUM(size_bytes), 0) AS BIGINT) AS n FROM request_logs");
    let mut most = 0;
    for n in 0..80 {
        let metadata: String = (0..40).map(|m| format!("&metadata[k{m}]={note}")).collect();
        let body = format!("name=C{n}&email=c{n}%40example.com&currency=PHP{metadata}");
        let (status, created) = read(app.form(Method::POST, "/customers", &app.keys.secret_test, &body).await).await;
        assert_eq!(status, 200, "{created}");
        most = most.max(stored_bytes());
    }
    // The last request's entry is written.
    for _ in 0..100 {
        let newest = logged(&app, "", 1).await;
        if newest[0]["request_body"]["name"] == "C79" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let before = logged(&app, "", 1).await;
    assert_eq!(before[0]["request_body"]["name"], "C79", "the newest entry is written");
    let entry_bytes = 2 * 40 * 520;
    assert!(most <= CAP + CAP / 16 + 8 * entry_bytes, "{most} bytes kept at once, for a cap of {CAP}");
    assert!(before.len() < 80, "entries went as the log was written: {} kept", before.len());
    let services = app.services.clone();
    tokio::task::spawn_blocking(move || services.request_logs.prune().unwrap()).await.unwrap();
    let kept = logged(&app, "", 0).await;
    assert_eq!(kept[0]["id"], before[0]["id"], "the newest are kept");
    assert!(stored_bytes() <= CAP, "{} bytes after the prune", stored_bytes());
    let kept_bytes: usize =
        kept.iter().map(|e| e["request_body"].to_string().len() + e["response_body"].to_string().len()).sum();
    assert!(kept_bytes <= 1 << 20, "{kept_bytes}");
}

/// Every parameter a decoder marks as a secret's is redacted by its name alone, wherever it is sent,
/// and the decoders mark the card's data and every client secret.
#[test]
fn every_parameter_a_decoder_marks_secret_is_never_kept() {
    payments_api::redact::declare_secret_parameters(payments_api::routes::secret_parameter_names());
    let marked = payments_api::routes::secret_parameter_names();
    for name in ["number", "cvc", "client_secret", "customer_session_client_secret"] {
        assert!(marked.contains(name), "{name} is not marked: {marked:?}");
    }
    for name in &marked {
        for body in [format!("{name}=s3cr3t-value"), format!("anything[{name}]=s3cr3t-value")] {
            let kept = payments_api::redact::request_body_as_kept(body.as_bytes(), Some(payments_api::decode::BodyFormat::Form));
            assert!(!kept.contains("s3cr3t-value"), "{body} kept as {kept}");
        }
    }
}

/// A hosted page whose link is a capability is served from the domain's list of them, and the
/// request log and the service's logs cut the capability out of its path; no route of the service
/// names a capability, a client secret or a token in its path otherwise, so a new page cannot be
/// logged whole.
#[test]
fn every_route_with_a_capability_in_its_path_is_redacted() {
    use payments_domain::hosted_page::HostedPage;
    for page in HostedPage::ALL {
        let path = page.url("", "cs_1_secret_AbC123");
        let kept = payments_api::redact::path_as_kept(&format!("{path}/more"));
        assert!(!kept.contains("AbC123") && kept.ends_with("/more"), "{page:?}: {kept}");
    }
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![source];
    let mut named = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
            continue;
        }
        if path.extension().is_some_and(|extension| extension == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for segment in ["{client_secret}", "{secret}", "{token}", "{capability}"] {
                if text.contains(segment) {
                    named.push(format!("{} names {segment}", path.display()));
                }
            }
        }
    }
    assert!(named.is_empty(), "routes with a capability in their path must come from HostedPage: {named:?}");
}
