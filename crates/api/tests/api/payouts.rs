//! Payouts over HTTP, driven by the test clock: a few days of payments and refunds paid out line by
//! line, a failed payout whose money comes back and is paid out again, a refund after a payout and a
//! negative balance carried forward, refunds racing a payout, the operator's schedule, bad input, and
//! other accounts and modes.

use crate::helpers::{error_codes, read, TestApp};
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const TOKEN: &str = "operator-token-of-the-payout-tests-0123";
const DAY: i64 = 24 * 60 * 60;

on_both_backends_with!(|settings| settings.operator.token = super::TOKEN.into() =>
    a_few_days_of_payments_and_refunds_are_paid_out_line_by_line,
    a_failed_payout_returns_its_money_and_the_next_pays_it_as_an_adjustment,
    a_refund_after_a_payout_debits_the_next_and_a_negative_balance_waits,
    refunds_racing_a_payout_are_each_paid_out_once,
    the_operator_sets_the_schedule_and_bad_input_changes_nothing,
    payouts_are_invisible_to_other_accounts_and_modes,
    a_month_of_returned_payouts_is_made_day_by_day_while_the_background_job_runs,
    concurrent_advances_make_each_payout_at_its_own_time_from_what_was_available_then,
);

/// A paid payment of `amount` by `number` (a 3-D Secure card authorized on the test page): its id.
async fn paid(app: &TestApp, amount: i64, number: &str) -> String {
    let intent = app.create_intent(amount, "").await;
    let (status, attached) = app.attach_card(intent["id"].as_str().unwrap(), number).await;
    assert_eq!(status, 200, "{attached}");
    if let Some(page) = attached["next_action"]["redirect_url"].as_str() {
        assert_eq!(crate::helpers::decide(page, "authorize").await.status(), 303);
    }
    let (_, intent) = read(app.get(&format!("/payment_intents/{}", intent["id"].as_str().unwrap())).await).await;
    assert_eq!(intent["status"], "succeeded", "{intent}");
    intent["latest_payment"]["id"].as_str().unwrap().to_owned()
}

async fn refund(app: &TestApp, payment_id: &str, amount: i64) -> String {
    let (status, refund) =
        app.post("/refunds", &format!("payment_id={payment_id}&amount={amount}&currency=PHP&reason=others")).await;
    assert_eq!(status, 200, "{refund}");
    refund["id"].as_str().unwrap().to_owned()
}

async fn advance(app: &TestApp, seconds: i64) {
    let (status, clock) = app.post("/test_helpers/clock/advance", &format!("seconds={seconds}")).await;
    assert_eq!(status, 200, "{clock}");
}

async fn balance(app: &TestApp) -> (i64, i64) {
    let (status, balance) = read(app.get("/balance").await).await;
    assert_eq!(status, 200, "{balance}");
    (balance["available"].as_i64().unwrap(), balance["pending"].as_i64().unwrap())
}

/// Every payout of the test account, oldest first, each with its lines.
async fn payouts(app: &TestApp) -> Vec<(Value, Vec<Value>)> {
    let (status, list) = read(app.get("/payouts?limit=100").await).await;
    assert_eq!(status, 200, "{list}");
    let mut payouts = Vec::new();
    for payout in list["data"].as_array().unwrap().iter().rev() {
        let path = format!("/payouts/{}/transactions?limit=100", payout["id"].as_str().unwrap());
        let (status, lines) = read(app.get(&path).await).await;
        assert_eq!(status, 200, "{lines}");
        let lines = lines["data"].as_array().unwrap().clone();
        let net: i64 = lines.iter().map(|line| line["net_amount"].as_i64().unwrap()).sum();
        let amount: i64 = lines.iter().map(|line| line["amount"].as_i64().unwrap()).sum();
        assert_eq!((payout["net_amount"].as_i64(), payout["amount"].as_i64()), (Some(net), Some(amount)), "{payout}");
        payouts.push((payout.clone(), lines));
    }
    payouts
}

/// How many lines pay out each transaction, across `payouts`.
fn times_paid_out(payouts: &[(Value, Vec<Value>)]) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for line in payouts.iter().flat_map(|(_, lines)| lines) {
        *seen.entry(line["transaction_id"].as_str().unwrap().to_owned()).or_insert(0) += 1;
    }
    seen
}

async fn payment(app: &TestApp, id: &str) -> Value {
    read(app.get(&format!("/payments/{id}")).await).await.1
}

async fn operator(app: &TestApp, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request =
        app.client.request(method, format!("{}/operator/accounts{path}", app.address)).bearer_auth(TOKEN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    read(request.send().await.unwrap()).await
}

/// The test account's id.
async fn account_id(app: &TestApp) -> String {
    let accounts = app.services.accounts.clone();
    let key = app.keys.secret_test.clone();
    let caller = tokio::task::spawn_blocking(move || accounts.authenticate(&key)).await.unwrap().unwrap();
    caller.scope.account_id.to_string()
}

async fn a_few_days_of_payments_and_refunds_are_paid_out_line_by_line(app: TestApp) {
    let cards = [paid(&app, 10_000, "4242424242424242").await, paid(&app, 25_000, "5425233430109903").await];
    let challenged = paid(&app, 20_000, "4000000000003220").await;
    let gcash = {
        let intent = app.create_intent(5_000, "").await;
        let (status, waiting) =
            app.post(&format!("/payment_intents/{}/attach", intent["id"].as_str().unwrap()), "payment_method[type]=gcash").await;
        assert_eq!(status, 200, "{waiting}");
        crate::helpers::decide(waiting["next_action"]["redirect_url"].as_str().unwrap(), "authorize").await;
        let (_, intent) = read(app.get(&format!("/payment_intents/{}", intent["id"].as_str().unwrap())).await).await;
        intent["latest_payment"]["id"].as_str().unwrap().to_owned()
    };
    let refunded = refund(&app, &cards[0], 3_000).await;
    let mut payments = cards.to_vec();
    payments.extend([challenged, gcash]);
    let mut nets = 0;
    for id in &payments {
        nets += payment(&app, id).await["net_amount"].as_i64().unwrap();
    }
    assert_eq!(balance(&app).await, (-3_000, nets), "paid payments wait to settle; a refund leaves at once");

    advance(&app, 4 * DAY).await;
    let made = payouts(&app).await;
    assert!(!made.is_empty());
    let seen = times_paid_out(&made);
    let mut expected: BTreeMap<String, usize> = payments.iter().map(|id| (id.clone(), 1)).collect();
    expected.insert(refunded.clone(), 1);
    assert_eq!(seen, expected, "each payment and the refund in exactly one payout");
    for (payout, lines) in &made {
        assert_eq!(payout["status"], "successful", "{payout}");
        assert_eq!(payout["destination"]["account_number"], "000123456789");
        for line in lines {
            let id = line["transaction_id"].as_str().unwrap();
            if id.starts_with("pay_") {
                let payment = payment(&app, id).await;
                assert_eq!((&line["transaction_type"], &line["amount"], &line["net_amount"]), (&json!("payment"), &payment["amount"], &payment["net_amount"]));
            } else {
                assert_eq!((&line["transaction_type"], &line["amount"], &line["net_amount"]), (&json!("refund"), &json!(-3_000), &json!(-3_000)));
            }
        }
    }
    let paid_out: i64 = made.iter().map(|(payout, _)| payout["net_amount"].as_i64().unwrap()).sum();
    assert_eq!(paid_out, nets - 3_000, "to the centavo");
    assert_eq!(balance(&app).await, (0, 0));
    let events = app.event_types().await;
    let count = |name: &str| events.iter().filter(|event| *event == name).count();
    assert_eq!((count("payout.created"), count("payout.updated"), count("payout.deposited")), (made.len(), made.len(), made.len()));
    let (status, one) = read(app.get(&format!("/payouts/{}", made[0].0["id"].as_str().unwrap())).await).await;
    assert_eq!((status, &one), (200, &made[0].0));
}

async fn a_failed_payout_returns_its_money_and_the_next_pays_it_as_an_adjustment(app: TestApp) {
    let account = account_id(&app).await;
    let closed = json!({"bank_account": {"account_name": "Shop", "account_number": "000111111116", "bank_name": "Test Bank"}});
    let (status, schedule) = operator(&app, Method::POST, &format!("/{account}/payout_schedules/test"), Some(closed)).await;
    assert_eq!(status, 200, "{schedule}");
    let payment_id = paid(&app, 10_000, "4242424242424242").await;
    advance(&app, 4 * DAY).await;
    let made = payouts(&app).await;
    assert_eq!(made.len(), 1);
    let (failed, _) = &made[0];
    assert_eq!((&failed["status"], &failed["failure_code"]), (&json!("failed"), &json!("account_closed")), "{failed}");
    let net = failed["net_amount"].as_i64().unwrap();
    assert_eq!(net, payment(&app, &payment_id).await["net_amount"].as_i64().unwrap());
    assert_eq!(balance(&app).await, (net, 0), "its money is back");
    assert!(app.event_types().await.contains(&"payout.failed".to_owned()));

    let good = json!({"bank_account": {"account_name": "Shop", "account_number": "000123456789", "bank_name": "Test Bank"}});
    assert_eq!(operator(&app, Method::POST, &format!("/{account}/payout_schedules/test"), Some(good)).await.0, 200);
    advance(&app, 3 * DAY).await;
    let made = payouts(&app).await;
    assert_eq!(made.len(), 2, "{made:?}");
    let (again, lines) = &made[1];
    assert_eq!((&again["status"], again["net_amount"].as_i64()), (&json!("successful"), Some(net)));
    assert_eq!(lines.len(), 1);
    assert_eq!((&lines[0]["transaction_type"], &lines[0]["transaction_id"]), (&json!("adjustment"), &failed["id"]));
    assert_eq!(times_paid_out(&made)[&payment_id], 1, "the payment itself is in one payout");
    assert_eq!(balance(&app).await, (0, 0));
}

async fn a_refund_after_a_payout_debits_the_next_and_a_negative_balance_waits(app: TestApp) {
    let first = paid(&app, 10_000, "4242424242424242").await;
    advance(&app, 4 * DAY).await;
    assert_eq!(payouts(&app).await.len(), 1);
    let refunded = refund(&app, &first, 10_000).await;
    assert_eq!(balance(&app).await, (-10_000, 0));
    advance(&app, 2 * DAY).await;
    assert_eq!(payouts(&app).await.len(), 1, "no payout while the balance is negative");
    assert_eq!(balance(&app).await, (-10_000, 0), "carried forward, not dropped");
    let second = paid(&app, 30_000, "4242424242424242").await;
    advance(&app, 4 * DAY).await;
    let made = payouts(&app).await;
    assert_eq!(made.len(), 2);
    let (payout, lines) = &made[1];
    let mut ids: Vec<&str> = lines.iter().map(|line| line["transaction_id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    let mut expected = vec![second.as_str(), refunded.as_str()];
    expected.sort_unstable();
    assert_eq!(ids, expected);
    let net = payment(&app, &second).await["net_amount"].as_i64().unwrap() - 10_000;
    assert_eq!(payout["net_amount"].as_i64(), Some(net));
}

async fn refunds_racing_a_payout_are_each_paid_out_once(app: TestApp) {
    let mut payments = Vec::new();
    for _ in 0..6 {
        payments.push(paid(&app, 40_000, "4242424242424242").await);
    }
    advance(&app, 2 * DAY + 60).await;
    // The next payout falls due while refunds are made: each is in one payout, before or after.
    let app = &app;
    let racing = payments.iter().map(|id| refund(app, id, 5_000));
    let (_, refunds) = tokio::join!(advance(app, DAY), futures_util::future::join_all(racing));
    // A refund the racing payout missed waits for a payout with more coming in than going out.
    payments.push(paid(app, 100_000, "4242424242424242").await);
    advance(app, 3 * DAY).await;
    let made = payouts(app).await;
    let seen = times_paid_out(&made);
    for id in payments.iter().chain(&refunds) {
        assert_eq!(seen.get(id), Some(&1), "{id} in exactly one payout: {seen:?}");
    }
    let mut nets = 0;
    for id in &payments {
        nets += payment(app, id).await["net_amount"].as_i64().unwrap();
    }
    let paid_out: i64 = made.iter().map(|(payout, _)| payout["net_amount"].as_i64().unwrap()).sum();
    let (available, pending) = balance(app).await;
    assert_eq!((paid_out, available, pending), (nets - 6 * 5_000, 0, 0), "nothing lost, nothing twice");
    the_stored_ledger_balances(app);
}

/// The invariants as the stored rows state them, in SQL: every payment and refund entry is claimed by
/// one payout and has one line in it; each payout's amounts are its lines' sums; every payout that did
/// not fail took its money out of the balance once; and the entries sum to nothing left.
fn the_stored_ledger_balances(app: &TestApp) {
    let database = &app.database;
    let count = |sql: &str| database.number(&format!("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM {sql}"));
    assert_eq!(count("balance_entries WHERE entry_type IN ('payment', 'refund') AND payout_id IS NULL"), 0, "unpaid");
    let unlined = "balance_entries e WHERE e.entry_type IN ('payment', 'refund') AND 1 <> \
        (SELECT COUNT(*) FROM payout_transactions t WHERE t.account_id = e.account_id AND t.entry_id = e.id \
        AND t.payout_id = e.payout_id)";
    assert_eq!(count(unlined), 0, "each claimed entry is one line of the payout that claimed it");
    let twice = "(SELECT transaction_id FROM payout_transactions GROUP BY transaction_id HAVING COUNT(*) > 1) twice";
    assert_eq!(count(twice), 0, "no transaction in two lines");
    // Each correlated subquery names the account too, as a query of a sharded database must.
    let unbalanced = "payouts p WHERE p.net_amount <> (SELECT SUM(t.net_amount) FROM payout_transactions t \
        WHERE t.account_id = p.account_id AND t.payout_id = p.id) OR p.amount <> (SELECT SUM(t.amount) \
        FROM payout_transactions t WHERE t.account_id = p.account_id AND t.payout_id = p.id)";
    assert_eq!(count(unbalanced), 0, "a payout is the sum of its lines");
    let debits = "payouts p WHERE p.status <> 'failed' AND 1 <> (SELECT COUNT(*) FROM balance_entries e \
        WHERE e.account_id = p.account_id AND e.entry_type = 'payout' AND e.source_id = p.id \
        AND e.net_amount = -p.net_amount)";
    assert_eq!(count(debits), 0, "each payout debits the balance once, by its net amount");
    let left = database.number("SELECT CAST(COALESCE(SUM(net_amount), 0) AS BIGINT) AS n FROM balance_entries");
    assert_eq!(left, 0, "everything paid out");
}

async fn the_operator_sets_the_schedule_and_bad_input_changes_nothing(app: TestApp) {
    let account = account_id(&app).await;
    let path = format!("/{account}/payout_schedules/test");
    let (status, daily) = operator(&app, Method::GET, &path, None).await;
    assert_eq!((status, &daily["interval"]), (200, &json!("daily")), "{daily}");
    let (status, live) = operator(&app, Method::GET, &format!("/{account}/payout_schedules/live"), None).await;
    assert_eq!((status, &live["next_payout_at"]), (200, &Value::Null), "live mode makes no payouts: {live}");
    for (body, parameter) in [
        (json!({"interval": "hourly"}), "interval"),
        (json!({"interval": "weekly", "weekly_anchor": "someday"}), "weekly_anchor"),
        (json!({"interval": "monthly", "monthly_anchor": 31}), "monthly_anchor"),
        (json!({"interval": "daily", "monthly_anchor": 3}), "monthly_anchor"),
        (json!({"weekly_anchor": "monday"}), "weekly_anchor"),
        (json!({"bank_account": {"account_name": "Shop", "account_number": "12x", "bank_name": "Bank"}}), "bank_account[account_number]"),
        (json!({"bank_account": {"account_name": "Shop"}}), "bank_account[account_number]"),
        (json!({"bank_account": {"account_name": "Sh\u{1b}[31mop", "account_number": "000123456789", "bank_name": "Bank"}}), "bank_account[account_name]"),
        (json!({"bank_account": {"account_name": "Shop", "account_number": "000123456789", "bank_name": "Bank\r\nX"}}), "bank_account[bank_name]"),
        // A right-to-left override shows `Shop\u{202e}gnp.exe` as `Shopexe.png`; a line separator
        // breaks a bank's file; a blank name names no one.
        (json!({"bank_account": {"account_name": "Shop\u{202e}gnp.exe", "account_number": "000123456789", "bank_name": "Bank"}}), "bank_account[account_name]"),
        (json!({"bank_account": {"account_name": "Shop\u{2066}x", "account_number": "000123456789", "bank_name": "Bank"}}), "bank_account[account_name]"),
        (json!({"bank_account": {"account_name": "Shop", "account_number": "000123456789", "bank_name": "Bank\u{2028}X"}}), "bank_account[bank_name]"),
        (json!({"bank_account": {"account_name": "Shop", "account_number": "000123456789", "bank_name": "Bank\u{2029}"}}), "bank_account[bank_name]"),
        (json!({"bank_account": {"account_name": " \u{3000}\u{a0} ", "account_number": "000123456789", "bank_name": "Bank"}}), "bank_account[account_name]"),
        (json!({"bank_account": {"account_name": "Shop", "account_number": "000123456789", "bank_name": "\u{2003}"}}), "bank_account[bank_name]"),
        // Names made of characters that show nothing: invisible formatting, fillers, a mark alone.
        (json!({"bank_account": {"account_name": "\u{200b}\u{2060}\u{feff}", "account_number": "000123456789", "bank_name": "Bank"}}), "bank_account[account_name]"),
        (json!({"bank_account": {"account_name": "\u{3164}\u{2800}\u{fe0f}", "account_number": "000123456789", "bank_name": "Bank"}}), "bank_account[account_name]"),
        (json!({"bank_account": {"account_name": "Shop", "account_number": "000123456789", "bank_name": "Ba\u{206a}nk"}}), "bank_account[bank_name]"),
    ] {
        let (status, answer) = operator(&app, Method::POST, &path, Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(error_codes(&answer)[0].0, parameter, "{body}: {answer}");
    }
    assert_eq!(operator(&app, Method::GET, &path, None).await.1, daily, "nothing changed");
    let nobody = "/acct_0VcEcXWmq9m7gHzLzKNhRReEJhSZksCX/payout_schedules/test";
    for missing in [format!("/{account}/payout_schedules/sandbox"), "/acct_nobody/payout_schedules/test".to_owned(), nobody.to_owned()] {
        assert_eq!(operator(&app, Method::GET, &missing, None).await.0, 404, "{missing}");
        let (status, answer) = operator(&app, Method::POST, &missing, Some(json!({"interval": "weekly"}))).await;
        assert_eq!(status, 404, "{missing}: {answer}");
    }
    let (status, weekly) = operator(&app, Method::POST, &path, Some(json!({"interval": "weekly", "weekly_anchor": "friday"}))).await;
    assert_eq!((status, &weekly["weekly_anchor"]), (200, &json!("friday")), "{weekly}");
    // Midnight in Manila on a Friday is Thursday 16:00 UTC.
    let next = weekly["next_payout_at"].as_i64().unwrap();
    assert_eq!((next % DAY, (next / DAY + 4) % 7), (16 * 3_600, 4), "{weekly}");
    let (_, shown) = read(app.get("/balance").await).await;
    assert_eq!(shown["payout_schedule"]["interval"], "weekly", "{shown}");
    // A year ahead, then the test data deleted: the clock is back at real time, and so is the schedule.
    advance(&app, 365 * DAY).await;
    let (status, _) = operator(&app, Method::DELETE, &format!("/{account}/test_data"), None).await;
    assert_eq!(status, 200);
    let (_, reset) = operator(&app, Method::GET, &path, None).await;
    let real_now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let next = reset["next_payout_at"].as_i64().unwrap();
    let real_now = i64::try_from(real_now).unwrap();
    assert!(next > real_now && next <= real_now + 7 * DAY, "the next Friday of real time: {reset}");
}

async fn payouts_are_invisible_to_other_accounts_and_modes(app: TestApp) {
    paid(&app, 10_000, "4242424242424242").await;
    advance(&app, 4 * DAY).await;
    let made = payouts(&app).await;
    let id = made[0].0["id"].as_str().unwrap();
    for path in [format!("/payouts/{id}"), format!("/payouts/{id}/transactions")] {
        let theirs = app.request(Method::GET, &path, &app.other_account_key).send().await.unwrap();
        assert_eq!(theirs.status(), 404, "{path}");
        let live = app.request(Method::GET, &path, &app.keys.secret_live).send().await.unwrap();
        assert_eq!(live.status(), 404, "{path} in live mode");
    }
    let (_, theirs) = read(app.request(Method::GET, "/payouts", &app.other_account_key).send().await.unwrap()).await;
    assert_eq!(theirs["data"], json!([]));
    let (_, live) = read(app.request(Method::GET, "/balance", &app.keys.secret_live).send().await.unwrap()).await;
    assert_eq!((&live["available"], &live["livemode"]), (&json!(0), &json!(true)));
    for (path, parameter) in [
        ("/payouts?status=paid".to_owned(), "status"),
        ("/payouts?created[gte]=yesterday".to_owned(), "created[gte]"),
        ("/payouts?limit=0".to_owned(), "limit"),
        (format!("/payouts/{id}/transactions?limit=1000"), "limit"),
        (format!("/payouts/{id}/transactions?after=po_txn_unknown"), "after"),
    ] {
        let (status, body) = read(app.get(&path).await).await;
        assert_eq!((status, error_codes(&body)[0].0.as_str()), (400, parameter), "{path}: {body}");
    }
    assert_eq!(read(app.get("/payouts/po_unknown").await).await.0, 404);
    assert_eq!(read(app.get("/payouts/po_unknown/transactions").await).await.0, 404);
    let (status, none) = read(app.get(&format!("/payouts?created[lte]={}", 1_000)).await).await;
    assert_eq!((status, &none["data"]), (200, &json!([])));
    let (status, one) = read(app.get("/payouts?status=successful").await).await;
    assert_eq!((status, one["data"].as_array().map(Vec::len)), (200, Some(1)));
    let public = app.request(Method::GET, "/payouts", &app.keys.public_test).send().await.unwrap();
    assert_eq!(public.status(), 401, "a public key lists no payouts");
}

/// A month's advance with a bank account that returns every payout, while the background job runs
/// beside it as another instance's would: each payout is made at midnight in the Philippines of its
/// own day, from what came back by then, and none is skipped or made at the clock's end.
async fn a_month_of_returned_payouts_is_made_day_by_day_while_the_background_job_runs(app: TestApp) {
    let returning = "bank_account[account_name]=Shop&bank_account[account_number]=000111111116\
                     &bank_account[bank_name]=Test%20Bank";
    let (status, schedule) = app.post("/test_helpers/payout_schedule", returning).await;
    assert_eq!(status, 200, "{schedule}");
    let payment = paid(&app, 100_000, "4242424242424242").await;
    let net = payment_net(&app, &payment).await;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let background = async {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let due_work = app.services.due_work.clone();
            tokio::task::spawn_blocking(move || due_work.run(1_000).unwrap()).await.unwrap();
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    let advancing = async {
        advance(&app, 30 * DAY).await;
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    };
    tokio::join!(background, advancing);
    let (_, clock) = read(app.get("/test_helpers/clock").await).await;
    let now = clock["now"].as_i64().unwrap();
    let made = payouts(&app).await;
    let times: Vec<i64> = made.iter().map(|(payout, _)| payout["created_at"].as_i64().unwrap()).collect();
    assert!(times.len() >= 13, "a payout every second day at least: {times:?}");
    for (payout, _) in &made {
        assert_eq!(payout["created_at"].as_i64().unwrap().rem_euclid(DAY), 16 * 60 * 60, "at its own time: {payout}");
        assert_eq!(payout["net_amount"].as_i64(), Some(net), "the same money each time: {payout}");
    }
    assert!(times.windows(2).all(|pair| pair[1] - pair[0] <= 2 * DAY), "none skipped: {times:?}");
    assert!(now - times.last().unwrap() <= 2 * DAY, "until the clock's time: {times:?} by {now}");
}

async fn payment_net(app: &TestApp, id: &str) -> i64 {
    payment(app, id).await["net_amount"].as_i64().unwrap()
}

/// Four advances of a day at once: whichever advance makes a payout, it is dated at the schedule's
/// time (16:00 UTC) and takes only payments whose money was available then (two days after they
/// were paid, for cards), each once.
async fn concurrent_advances_make_each_payout_at_its_own_time_from_what_was_available_then(app: TestApp) {
    let mut payments = Vec::new();
    for amount in [10_000, 20_000, 30_000, 40_000, 50_000] {
        payments.push(paid(&app, amount, "4242424242424242").await);
    }
    let advances = (0..4).map(|_| app.post("/test_helpers/clock/advance", "seconds=86400"));
    for (status, clock) in futures_util::future::join_all(advances).await {
        assert_eq!(status, 200, "{clock}");
    }
    let made = payouts(&app).await;
    assert!(!made.is_empty(), "four days of daily payouts");
    let expected: BTreeMap<String, usize> = payments.iter().map(|id| (id.clone(), 1)).collect();
    assert_eq!(times_paid_out(&made), expected, "each payment in exactly one payout");
    for (payout, lines) in &made {
        let made_at = payout["created_at"].as_i64().unwrap();
        assert_eq!(made_at.rem_euclid(DAY), 16 * 60 * 60, "dated at the schedule's time: {payout}");
        for line in lines {
            let paid_at = payment(&app, line["transaction_id"].as_str().unwrap()).await["created_at"].as_i64().unwrap();
            assert!(paid_at + 2 * DAY <= made_at, "a payout at {made_at} took money available only at {}", paid_at + 2 * DAY);
        }
    }
}
