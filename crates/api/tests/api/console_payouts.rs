//! The balance and payouts in the console, in a real browser (JavaScript off): the balance with its
//! next payout and latest payouts, a payout's page with its transactions linked to their payments
//! and refunds, and its transactions as CSV, for the signed-in session only; the schedule and bank
//! account changed from the Balance page. Screenshots (desktop and phone) go under
//! `target/screenshots/`.

use crate::browser::browser;
use crate::helpers::{read, TestApp};
use reqwest::header::{CONTENT_TYPE, COOKIE, LOCATION};

on_one_backend!(a_developer_reconciles_a_payout_in_the_console, a_payout_of_more_lines_than_its_page_shows_downloads_whole);

/// A payment of `amount` paid by card, its intent made with `extra` parameters: its id.
async fn paid(app: &TestApp, amount: i64, extra: &str) -> String {
    let intent = app.create_intent(amount, extra).await;
    let (status, attached) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    assert_eq!(status, 200, "{attached}");
    attached["latest_payment"]["id"].as_str().unwrap().to_owned()
}

/// The test mode's schedule, as the API shows it.
async fn schedule(app: &TestApp) -> serde_json::Value {
    let (status, balance) = read(app.get("/balance").await).await;
    assert_eq!(status, 200, "{balance}");
    balance["payout_schedule"].clone()
}

async fn press(browser: &crate::browser::Browser, button: &str) {
    let xpath = format!("//button[text()='{button}']");
    browser.client.find(fantoccini::Locator::XPath(&xpath)).await.unwrap().click().await.unwrap();
}

/// The Balance page's schedule forms: a weekly schedule and a bank account saved; a bad interval,
/// an anchor of another interval and a bad account number refused with the API's words, changing
/// nothing.
async fn schedule_changes_as_the_api_takes_them(app: &TestApp, browser: &crate::browser::Browser) {
    browser.fill("interval-1", "weekly").await;
    browser.fill("weekly_anchor-2", "friday").await;
    press(browser, "Save schedule").await;
    let text = browser.see("Schedule saved.").await;
    assert!(text.contains("weekly"), "{text}");
    let saved = schedule(app).await;
    assert_eq!((saved["interval"].as_str(), saved["weekly_anchor"].as_str()), (Some("weekly"), Some("friday")));
    browser.fill("bank_account[account_number]-2", "000111111116").await;
    press(browser, "Save bank account").await;
    browser.see("Schedule saved.").await;
    assert_eq!(schedule(app).await["destination"]["account_number"], "000111111116");
    let saved = schedule(app).await;
    for (field, value, says) in [
        ("interval-1", "hourly", "daily, weekly, monthly or manual"),
        ("monthly_anchor-3", "5", "monthly_anchor"),
        ("bank_account[account_number]-2", "12ab", "6 to 20 digits"),
    ] {
        browser.client.goto(&format!("{}/dashboard/balance", app.address)).await.unwrap();
        browser.fill(field, value).await;
        press(browser, if field.starts_with("bank") { "Save bank account" } else { "Save schedule" }).await;
        let text = browser.see("That did not work").await;
        assert!(text.contains(says), "{field}={value}: {text}");
        assert_eq!(schedule(app).await, saved, "{field}={value} changed nothing");
    }
    browser.client.goto(&format!("{}/dashboard/balance", app.address)).await.unwrap();
    browser.screenshot("console-balance-schedule").await;
}

async fn a_developer_reconciles_a_payout_in_the_console(app: TestApp) {
    let customer = app.create_customer("Ana").await;
    let ordered = format!(
        "&description=Order%20A-1&metadata[order]=A-1&customer_id={}",
        customer["id"].as_str().unwrap()
    );
    let first = paid(&app, 150_000, &ordered).await;
    let second = paid(&app, 40_000, "").await;
    let (status, refund) =
        app.post("/refunds", &format!("payment_id={first}&amount=50000&currency=PHP&reason=others")).await;
    assert_eq!(status, 200, "{refund}");
    let refund_id = refund["id"].as_str().unwrap().to_owned();
    assert_eq!(app.post("/test_helpers/clock/advance", "seconds=345600").await.0, 200);
    let (_, payouts) = read(app.get("/payouts").await).await;
    let payout = &payouts["data"][0];
    let payout_id = payout["id"].as_str().unwrap().to_owned();

    let browser = browser().await;
    browser.client.goto(&format!("{}/dashboard", app.address)).await.unwrap();
    browser.arrive("/dashboard/sign_in").await;
    browser.fill("key", &app.keys.secret_test).await;
    browser.click("button[type=submit]").await;
    browser.see("Latest events").await;

    browser.click("nav a[href='/dashboard/balance']").await;
    let text = browser.see("Next payout").await;
    assert!(text.contains("Available") && text.contains("Pending") && text.contains("daily"), "{text}");
    assert!(text.contains("Test Bank of the Philippines") && text.contains(&payout_id), "{text}");
    assert!(
        text.contains("000111111116 is returned (account_closed)")
            && text.contains("monday to sunday")
            && text.contains("from 1 to 28"),
        "the forms say what the domain takes: {text}"
    );
    browser.screenshot("console-balance").await;
    browser.client.set_window_size(390, 1400).await.unwrap();
    browser.screenshot("console-balance-phone").await;
    browser.client.set_window_size(1280, 1000).await.unwrap();
    schedule_changes_as_the_api_takes_them(&app, &browser).await;

    browser.click("nav a[href='/dashboard/payouts']").await;
    browser.see(&payout_id).await;
    browser.click(&format!("a[href='/dashboard/payouts/{payout_id}']")).await;
    let text = browser.see("Transactions").await;
    assert!(text.contains("successful") && text.contains("refund") && text.contains("payment"), "{text}");
    assert!(text.contains("-₱500.00"), "a refund's line is negative: {text}");
    for (id, section) in [(&first, "payments"), (&second, "payments"), (&refund_id, "refunds")] {
        browser.client.find(fantoccini::Locator::Css(&format!("a[href='/dashboard/{section}/{id}']"))).await.unwrap();
    }
    browser.screenshot("console-payout").await;
    browser.client.set_window_size(390, 1600).await.unwrap();
    browser.screenshot("console-payout-phone").await;

    // The CSV, with the session's cookie: one row per transaction, summing to the payout.
    let csv_path = format!("{}/dashboard/payouts/{payout_id}/transactions.csv", app.address);
    browser.client.find(fantoccini::Locator::Css(&format!("a[href='/dashboard/payouts/{payout_id}/transactions.csv']"))).await.unwrap();
    let session = browser.client.get_named_cookie("console_session").await.unwrap();
    let cookie = format!("console_session={}", session.value());
    let answer = crate::helpers::browser().get(&csv_path).header(COOKIE, &cookie).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()[CONTENT_TYPE], "text/csv; charset=utf-8");
    let csv = answer.text().await.unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "id",
            "transaction_type",
            "transaction_id",
            "amount",
            "net_amount",
            "created_at",
            "payment_id",
            "payment_description",
            "payment_metadata",
            "customer_email"
        ]
    );
    let rows: Vec<Vec<String>> =
        reader.records().map(|row| row.unwrap().iter().map(str::to_owned).collect()).collect();
    assert_eq!(rows.len(), 3, "{csv}");
    let net: i64 = rows.iter().map(|row| row[4].parse::<i64>().unwrap()).sum();
    assert_eq!(Some(net), payout["net_amount"].as_i64(), "{csv}");
    // A merchant finds the order of each line: the payment's description, metadata and customer,
    // and a refund's are its payment's.
    let ordered = [first.as_str(), "Order A-1", r#"{"order":"A-1"}"#, "ana@example.com"];
    assert!(rows.iter().any(|row| row[1] == "payment" && row[6..] == ordered), "{csv}");
    let refunded = |row: &Vec<String>| row[1] == "refund" && row[2] == refund_id && row[3] == "-50000";
    assert!(rows.iter().any(|row| refunded(row) && row[6..] == ordered), "{csv}");
    // Without the session, the sign-in page, and nothing of the payout.
    let anonymous = crate::helpers::browser().get(&csv_path).send().await.unwrap();
    assert_eq!(anonymous.status(), 303);
    assert!(anonymous.headers()[LOCATION].to_str().unwrap().contains("sign_in"));
    assert!(!anonymous.text().await.unwrap().contains(&refund_id));
}

/// A payout of 10,050 lines (its ledger seeded in SQL: requests would take minutes): its page shows
/// the last 100 and says so; its CSV, streamed a thousand lines a read, has every line, summing to
/// the payout.
async fn a_payout_of_more_lines_than_its_page_shows_downloads_whole(app: TestApp) {
    let lines = 10_050;
    let accounts = app.services.accounts.clone();
    let key = app.keys.secret_test.clone();
    let caller = tokio::task::spawn_blocking(move || accounts.authenticate(&key)).await.unwrap().unwrap();
    let account = caller.scope.account_id.to_string();
    let (_, clock) = read(app.get("/test_helpers/clock").await).await;
    let now = clock["now"].as_i64().unwrap();
    app.database.execute(&format!(
        "WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM numbers WHERE n < {lines}) \
         INSERT INTO balance_entries (id, account_id, livemode, entry_type, source_id, amount, fee, net_amount, \
         available_at, created_at) SELECT 'bal_' || n, '{account}', FALSE, 'payment', 'pay_' || n, 1000, 10, 990, \
         {now}, {now} FROM numbers"
    ));
    assert_eq!(app.post("/test_helpers/clock/advance", "seconds=86400").await.0, 200);
    let (_, payouts) = read(app.get("/payouts").await).await;
    let payout = &payouts["data"][0];
    assert_eq!(payout["net_amount"], 990 * lines, "{payout}");
    let id = payout["id"].as_str().unwrap();
    let mut console = crate::console::Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let (status, page) = console.get(&format!("/dashboard/payouts/{id}")).await;
    assert_eq!(status, 200);
    assert!(page.contains("the last 100 shown · download all as CSV"), "the page says it shows a part");
    let (status, csv) = console.get(&format!("/dashboard/payouts/{id}/transactions.csv")).await;
    assert_eq!(status, 200);
    let rows: Vec<csv::StringRecord> = csv::Reader::from_reader(csv.as_bytes()).records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), usize::try_from(lines).unwrap());
    let ids: std::collections::BTreeSet<&str> = rows.iter().map(|row| &row[0]).collect();
    assert_eq!(ids.len(), rows.len(), "each line once, across the reads");
    let net: i64 = rows.iter().map(|row| row[4].parse::<i64>().unwrap()).sum();
    assert_eq!(Some(net), payout["net_amount"].as_i64());
}
