//! Open-loop charge load, run by `bench/run` against a running service (`PAYMENTS_URL`,
//! `PAYMENTS_KEY`): charges start on a fixed schedule (`RATE` a second for `SECONDS`), each in a task
//! of its own, whether or not earlier ones have been answered. Each request's latency is counted
//! from when it was due to start, not from when it was sent, so a stall shows in full in the tail
//! instead of delaying the requests behind it (no coordinated omission). A charge is a create then
//! an attach of the Visa success card; the attach is due when the create is answered. The slowest
//! seconds are named by their wall-clock time, to line them up with the service's and the database's
//! logs.

// A benchmark tool: a panic is its failure report.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

const CARD: [(&str, &str); 5] = [
    ("payment_method[type]", "card"),
    ("payment_method[card][number]", "4242424242424242"),
    ("payment_method[card][exp_month]", "12"),
    ("payment_method[card][exp_year]", "2035"),
    ("payment_method[card][cvc]", "123"),
];

#[tokio::main]
async fn main() {
    let base = std::env::var("PAYMENTS_URL").expect("PAYMENTS_URL");
    let key = std::env::var("PAYMENTS_KEY").expect("PAYMENTS_KEY");
    let rate: u64 = std::env::var("RATE").ok().and_then(|r| r.parse().ok()).unwrap_or(500);
    let seconds: u64 = std::env::var("SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let client = reqwest::Client::new();
    // (second of the run the charge was due in, latency)
    let latencies: Arc<Mutex<Vec<(u64, Duration)>>> = Arc::default();
    let failures = Arc::new(Mutex::new(0_u64));
    let start = tokio::time::Instant::now() + Duration::from_millis(100);
    let started_at = std::time::SystemTime::now() + Duration::from_millis(100);
    let charges = rate * seconds;
    let mut tasks = Vec::with_capacity(usize::try_from(charges).unwrap());
    for number in 0..charges {
        // Each charge's task starts when it is due, so the generator's own work does not pile up at
        // the start; a late start still counts from the due time.
        let due = start + Duration::from_nanos(number * 1_000_000_000 / rate);
        tokio::time::sleep_until(due).await;
        let (client, base, key) = (client.clone(), base.clone(), key.clone());
        let (latencies, failures) = (latencies.clone(), failures.clone());
        tasks.push(tokio::spawn(async move {
            let due = due.into_std();
            let create = client
                .post(format!("{base}/payment_intents"))
                .bearer_auth(&key)
                .form(&[("amount", "10000"), ("currency", "PHP"), ("payment_methods[]", "card")])
                .send()
                .await;
            let created = Instant::now();
            let id = match create {
                Ok(answer) if answer.status() == 200 => {
                    let body: serde_json::Value = answer.json().await.unwrap();
                    body["id"].as_str().unwrap().to_owned()
                }
                _ => {
                    *failures.lock().unwrap_or_else(PoisonError::into_inner) += 1;
                    return;
                }
            };
            let attach =
                client.post(format!("{base}/payment_intents/{id}/attach")).bearer_auth(&key).form(&CARD).send().await;
            let attached = Instant::now();
            if !attach.is_ok_and(|answer| answer.status() == 200) {
                *failures.lock().unwrap_or_else(PoisonError::into_inner) += 1;
            }
            let second = number / rate;
            let mut latencies = latencies.lock().unwrap_or_else(PoisonError::into_inner);
            latencies.push((second, created - due));
            latencies.push((second, attached - created));
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = start.elapsed();
    let timed = latencies.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let mut slowest_by_second = std::collections::BTreeMap::<u64, Duration>::new();
    for &(second, latency) in &timed {
        let slowest = slowest_by_second.entry(second).or_default();
        *slowest = (*slowest).max(latency);
    }
    let mut slowest_seconds: Vec<(u64, Duration)> = slowest_by_second.into_iter().collect();
    slowest_seconds.sort_by_key(|&(_, latency)| std::cmp::Reverse(latency));
    let mut latencies: Vec<Duration> = timed.into_iter().map(|(_, latency)| latency).collect();
    latencies.sort();
    let at = |share: f64| {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
        let index = ((latencies.len() as f64 * share) as usize).min(latencies.len().saturating_sub(1));
        latencies.get(index).map_or(0.0, |latency| latency.as_secs_f64() * 1_000.0)
    };
    let failed = *failures.lock().unwrap_or_else(PoisonError::into_inner);
    println!(
        "open-loop: {charges} charges at {rate}/s in {:.1} s; per request p50 {:.1} ms, p90 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms; failed {failed}",
        elapsed.as_secs_f64(),
        at(0.50),
        at(0.90),
        at(0.95),
        at(0.99),
        at(1.0),
    );
    let unix_start = started_at.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let slowest: Vec<String> = slowest_seconds
        .iter()
        .take(3)
        .map(|(second, latency)| format!("unix {} max {:.1} ms", unix_start + second, latency.as_secs_f64() * 1_000.0))
        .collect();
    println!("slowest seconds: {}", slowest.join(", "));
}
