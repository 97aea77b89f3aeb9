//! Webhook delivery benchmark, run by `bench/webhooks` against a running service
//! (`PAYMENTS_URL`, `PAYMENTS_KEY`).
//!
//! 1. Throughput: a backlog of events is built while the receiver is down (first attempts fail and
//!    wait for their retry); the webhook is disabled, the receiver started, the webhook enabled
//!    (which makes the backlog due at once), and the time until the receiver has it all is measured.
//! 2. Latency: charges at a fixed rate (each makes two events); for each event, the time from the
//!    API's answer to the charge (which follows the commit) to the receiver's arrival.
//! 3. Fairness (with `PAYMENTS_OTHER_KEY`, a second account's key): the first account's webhook
//!    points at a receiver that accepts connections and never answers, with a deep backlog of
//!    deliveries to it; meanwhile the second account charges at a fixed rate, and its events'
//!    commit-to-arrival latency is measured as in 2.

// A benchmark tool: a panic is its failure report.
#![allow(clippy::unwrap_used)]

use actix_web::{web, App, HttpResponse, HttpServer};
use futures_util::stream::{self, StreamExt};
use serde_json::Value;
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

type Arrivals = Arc<Mutex<Vec<(String, Instant)>>>;

const BACKLOG_CHARGES: usize = 2_000;
const PACED_CHARGES_PER_SECOND: u64 = 100;
const PACED_SECONDS: u64 = 15;
/// Deliveries queued to the receiver that never answers.
const HANGING_BACKLOG: usize = 2_000;
const FAIR_CHARGES_PER_SECOND: u64 = 20;
const FAIR_SECONDS: u64 = 15;

#[tokio::main]
async fn main() {
    let base = std::env::var("PAYMENTS_URL").expect("PAYMENTS_URL");
    let key = std::env::var("PAYMENTS_KEY").expect("PAYMENTS_KEY");
    let arrivals: Arrivals = Arc::default();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let receiver_url = format!("http://{}/hooks", listener.local_addr().unwrap());
    let client = reqwest::Client::new();
    let post = |path: String, form: Vec<(&'static str, String)>| {
        client.post(format!("{base}{path}")).bearer_auth(&key).form(&form).send()
    };
    let webhook: Value = post(
        "/webhooks".into(),
        vec![
            ("url", receiver_url),
            ("events[]", "payment_intent.succeeded".into()),
            ("events[]", "payment.paid".into()),
        ],
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let webhook_id = webhook["id"].as_str().expect("a webhook").to_owned();

    // 1. Throughput: build a backlog against a receiver that is down, then drain it.
    drop(listener);
    stream::iter(0..BACKLOG_CHARGES)
        .for_each_concurrent(32, |_| async { drop(charge(&client, &base, &key).await) })
        .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    post(format!("/webhooks/{webhook_id}/disable"), Vec::new()).await.unwrap();
    start_receiver(TcpListener::bind(receiver_address(&webhook)).unwrap(), arrivals.clone());
    let backlog = BACKLOG_CHARGES * 2;
    let enabled_at = Instant::now();
    post(format!("/webhooks/{webhook_id}/enable"), Vec::new()).await.unwrap();
    wait_for(&arrivals, backlog).await;
    let last = arrivals.lock().unwrap_or_else(PoisonError::into_inner).iter().map(|(_, at)| *at).max().unwrap();
    let seconds = (last - enabled_at).as_secs_f64();
    println!("throughput: {backlog} events delivered in {seconds:.2} s = {:.0} events/s", backlog as f64 / seconds);

    // 2. Latency at a fixed rate.
    let latencies = paced_latencies(&client, &base, &key, &arrivals, PACED_CHARGES_PER_SECOND, PACED_SECONDS).await;
    report(&format!("latency at {} events/s over {PACED_SECONDS} s", PACED_CHARGES_PER_SECOND * 2), &latencies);

    // 3. Fairness: another account's events while this one's receiver hangs with a deep backlog.
    let Ok(other_key) = std::env::var("PAYMENTS_OTHER_KEY") else {
        return;
    };
    let hanging = TcpListener::bind("127.0.0.1:0").unwrap();
    let hanging_url = format!("http://{}/hooks", hanging.local_addr().unwrap());
    std::thread::spawn(move || {
        // Accepts every connection and never answers; the connections stay open.
        let mut held = Vec::new();
        for stream in hanging.incoming().map_while(Result::ok) {
            held.push(stream);
        }
    });
    post(format!("/webhooks/{webhook_id}/disable"), Vec::new()).await.unwrap();
    let hanging_webhook: Value =
        post("/webhooks".into(), vec![("url", hanging_url), ("events[]", "payment.paid".into())])
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let resend = format!("{base}/webhooks/{}/resend", hanging_webhook["id"].as_str().expect("a webhook"));
    let events: Value =
        client.get(format!("{base}/events?limit=1")).bearer_auth(&key).send().await.unwrap().json().await.unwrap();
    let event_id = events["data"][0]["id"].as_str().expect("an event").to_owned();
    stream::iter(0..HANGING_BACKLOG)
        .for_each_concurrent(32, |_| {
            let request = client.post(&resend).bearer_auth(&key).form(&[("event_id", event_id.as_str())]).send();
            async move { assert_eq!(request.await.unwrap().status(), 200) }
        })
        .await;
    let fast = TcpListener::bind("127.0.0.1:0").unwrap();
    let fast_url = format!("http://{}/hooks", fast.local_addr().unwrap());
    let fair_arrivals: Arrivals = Arc::default();
    start_receiver(fast, fair_arrivals.clone());
    let registered = client
        .post(format!("{base}/webhooks"))
        .bearer_auth(&other_key)
        .form(&[("url", fast_url.as_str()), ("events[]", "payment_intent.succeeded"), ("events[]", "payment.paid")])
        .send()
        .await
        .unwrap();
    assert_eq!(registered.status(), 200);
    let latencies =
        paced_latencies(&client, &base, &other_key, &fair_arrivals, FAIR_CHARGES_PER_SECOND, FAIR_SECONDS).await;
    report(
        &format!(
            "another account at {} events/s over {FAIR_SECONDS} s, beside {HANGING_BACKLOG} deliveries to a receiver that never answers",
            FAIR_CHARGES_PER_SECOND * 2
        ),
        &latencies,
    );
}

/// Charges with `key` at `per_second` for `seconds`; each event's time from the charge's answer to
/// its arrival, in milliseconds, sorted.
async fn paced_latencies(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    arrivals: &Arrivals,
    per_second: u64,
    seconds: u64,
) -> Vec<f64> {
    arrivals.lock().unwrap_or_else(PoisonError::into_inner).clear();
    let answered: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let mut ticker = tokio::time::interval(Duration::from_micros(1_000_000 / per_second));
    let mut charges = Vec::new();
    for _ in 0..per_second * seconds {
        ticker.tick().await;
        let (client, base, key, answered) = (client.clone(), base.to_owned(), key.to_owned(), answered.clone());
        charges.push(tokio::spawn(async move {
            let (intent, at) = charge(&client, &base, &key).await;
            answered.lock().unwrap_or_else(PoisonError::into_inner).insert(intent, at);
        }));
    }
    for charge in charges {
        charge.await.unwrap();
    }
    let expected = usize::try_from(per_second * seconds * 2).unwrap();
    if !arrived(arrivals, expected, Duration::from_secs(120)).await {
        let count = arrivals.lock().unwrap_or_else(PoisonError::into_inner).len();
        println!("only {count} of {expected} events arrived within 120 s of the last charge");
    }
    let answered = answered.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let mut latencies: Vec<f64> = arrivals
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(|(intent, at)| {
            answered.get(intent).map(|answer| at.saturating_duration_since(*answer).as_secs_f64() * 1e3)
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    latencies
}

fn report(what: &str, latencies: &[f64]) {
    if latencies.is_empty() {
        println!("{what}: no event arrived");
        return;
    }
    let percentile = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{what} ({} events): p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        latencies.len(),
        percentile(0.5),
        percentile(0.9),
        percentile(0.99),
        percentile(1.0)
    );
}

/// One charge (create and pay an intent); returns the intent id and when the payment was answered.
async fn charge(client: &reqwest::Client, base: &str, key: &str) -> (String, Instant) {
    let intent: Value = client
        .post(format!("{base}/payment_intents"))
        .bearer_auth(key)
        .form(&[("amount", "10000"), ("currency", "PHP"), ("payment_methods[]", "card")])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = intent["id"].as_str().expect("an intent").to_owned();
    let paid = client
        .post(format!("{base}/payment_intents/{id}/attach"))
        .bearer_auth(key)
        .form(&[
            ("payment_method[type]", "card"),
            ("payment_method[card][number]", "4242424242424242"),
            ("payment_method[card][exp_month]", "12"),
            ("payment_method[card][exp_year]", "2035"),
            ("payment_method[card][cvc]", "123"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(paid.status(), 200);
    (id, Instant::now())
}

fn receiver_address(webhook: &Value) -> String {
    webhook["url"].as_str().unwrap().trim_start_matches("http://").trim_end_matches("/hooks").to_owned()
}

/// A receiver that answers 200 at once and notes, per event, the intent it is about.
fn start_receiver(listener: TcpListener, arrivals: Arrivals) {
    let data = web::Data::new(arrivals);
    let server = HttpServer::new(move || {
        App::new().app_data(data.clone()).default_service(web::to(
            |body: web::Bytes, arrivals: web::Data<Arrivals>| async move {
                let at = Instant::now();
                let event: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let intent = event["data"]["payment_intent_id"]
                    .as_str()
                    .or(event["data"]["id"].as_str())
                    .unwrap_or("")
                    .to_owned();
                arrivals.lock().unwrap_or_else(PoisonError::into_inner).push((intent, at));
                HttpResponse::Ok().finish()
            },
        ))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
}

async fn wait_for(arrivals: &Arrivals, count: usize) {
    assert!(arrived(arrivals, count, Duration::from_secs(120)).await, "not every event arrived");
}

/// Whether `count` events arrived within `within`.
async fn arrived(arrivals: &Arrivals, count: usize, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while arrivals.lock().unwrap_or_else(PoisonError::into_inner).len() < count {
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    true
}
