//! Real instances on one database, with the test spreading requests over them as a load balancer
//! would. Two on PostgreSQL start at once on an empty database and create one first account between
//! them; under load one is killed (SIGKILL) and the other carries on; every charge moves money once,
//! and every event reaches the webhook receiver, twice only if the dead instance had sent it. And
//! under load one is stopped (SIGTERM), on both backends: nothing it had taken fails, its webhook
//! deliveries are finished or given back, and the other instance (or the same one started again, on
//! SQLite) carries on at once: every event arrives once, long before a lease could run out.

use crate::instance::{form_pairs, Instance};
use crate::receiver::Receiver;
use futures_util::stream::{self, StreamExt};
use payments_adapters::db::testing::TestDatabase;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Charges made, and how many run at once.
const CHARGES: usize = 120;
const CONCURRENCY: usize = 16;
pub(crate) const CARD: &str = "payment_method[type]=card&payment_method[card][number]=4242424242424242\
                    &payment_method[card][exp_month]=12&payment_method[card][exp_year]=2035&payment_method[card][cvc]=123";

/// Both instances' addresses, the key, and the client: a charge goes to one of them and falls back
/// to the survivor when its instance is gone.
struct Cluster {
    client: reqwest::Client,
    key: String,
    instances: [String; 2],
}

/// How a load's charges go: through an instance's death (a key its cut-off request holds is read
/// past), or without a hitch (every step answered 200).
#[derive(Clone, Copy)]
enum Charging {
    RetryingCutOffs,
    Smoothly,
}

/// What the survivor answered, after a retry there if the first instance did not answer.
struct Answer {
    status: u16,
    body: Value,
}

impl Cluster {
    /// Sends `body` to `path` on instance `first` with `idempotency_key`; when that instance does not
    /// answer (it was killed), sends the same request, same key, to the survivor.
    async fn post(&self, first: usize, path: &str, body: &str, idempotency_key: &str) -> Answer {
        // Until one answers: an instance started again on its port (SQLite) answers after a while.
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            for address in [&self.instances[first], &self.instances[1]] {
                let sent = self
                    .client
                    .post(format!("{address}{path}"))
                    .bearer_auth(&self.key)
                    .header("Idempotency-Key", idempotency_key)
                    .form(&form_pairs(body))
                    .send()
                    .await;
                if let Ok(response) = sent {
                    let status = response.status().as_u16();
                    let body = response.json().await.unwrap_or(Value::Null);
                    return Answer { status, body };
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no instance answered {path}")
    }

    async fn get(&self, path: &str) -> Value {
        let response =
            self.client.get(format!("{}{path}", self.instances[1])).bearer_auth(&self.key).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        response.json().await.unwrap()
    }

    /// One charge: create an intent, pay it with a card. A request cut off by the kill is retried
    /// with its key; if its key is still held by the dead instance's request (`409`), the charge
    /// reads where that request got to, and goes on from there with a new key.
    async fn charge(&self, number: usize) -> String {
        let first = number % 2;
        let create = "amount=10000&currency=PHP&payment_methods[]=card";
        let mut intent = self.post(first, "/payment_intents", create, &format!("create-{number}")).await;
        if intent.status == 409 {
            intent = self.post(1, "/payment_intents", create, &format!("create-{number}-again")).await;
        }
        assert_eq!(intent.status, 200, "{}", intent.body);
        let id = intent.body["id"].as_str().unwrap().to_owned();
        let attach = format!("/payment_intents/{id}/attach");
        let paid = self.post(first, &attach, CARD, &format!("attach-{number}")).await;
        if paid.status == 409 && self.get(&format!("/payment_intents/{id}")).await["status"] != "succeeded" {
            let again = self.post(1, &attach, CARD, &format!("attach-{number}-again")).await;
            assert_eq!(again.status, 200, "{}", again.body);
        } else if paid.status != 409 {
            assert_eq!(paid.status, 200, "{}", paid.body);
        }
        id
    }

    /// One charge that must go through without a hitch: create an intent, pay it with a card, each
    /// answered 200 by whichever instance takes it.
    async fn smooth_charge(&self, number: usize) -> String {
        let first = number % 2;
        let create = "amount=10000&currency=PHP&payment_methods[]=card";
        let intent = self.post(first, "/payment_intents", create, &format!("create-{number}")).await;
        assert_eq!(intent.status, 200, "{}", intent.body);
        let id = intent.body["id"].as_str().unwrap().to_owned();
        let paid = self.post(first, &format!("/payment_intents/{id}/attach"), CARD, &format!("attach-{number}")).await;
        assert_eq!(paid.status, 200, "{}", paid.body);
        id
    }

    /// Waits until no webhook delivery is pending, as `instance`'s metrics read it from the
    /// database; answers how long that took.
    async fn until_delivered(&self, instance: &str, within: Duration) -> Duration {
        let started = Instant::now();
        let pending = "payments_webhook_deliveries_pending";
        loop {
            let metrics = self.client.get(format!("{instance}/metrics")).send().await.unwrap();
            let metrics = metrics.text().await.unwrap();
            if metrics.lines().any(|line| line == format!("{pending} 0")) {
                return started.elapsed();
            }
            assert!(started.elapsed() < within, "deliveries still pending after {within:?}: {metrics}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// [`CHARGES`] charges, [`CONCURRENCY`] at a time, each counted in `done` once made; answers
    /// their intents' ids.
    async fn charges(&self, charging: Charging, done: &AtomicUsize) -> Vec<String> {
        stream::iter(0..CHARGES)
            .map(|number| async move {
                let id = match charging {
                    Charging::RetryingCutOffs => self.charge(number).await,
                    Charging::Smoothly => self.smooth_charge(number).await,
                };
                done.fetch_add(1, Ordering::SeqCst);
                id
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await
    }

    /// The ids of every `payment.paid` event, from the API.
    async fn paid_events(&self) -> Vec<String> {
        let (mut ids, mut after) = (Vec::new(), String::new());
        loop {
            let page = self.get(&format!("/events?limit=100{after}")).await;
            let events = page["data"].as_array().unwrap();
            for event in events.iter().filter(|event| event["type"] == "payment.paid") {
                ids.push(event["id"].as_str().unwrap().to_owned());
            }
            if page["has_more"] != true {
                return ids;
            }
            after = format!("&after={}", events.last().unwrap()["id"].as_str().unwrap());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_share_the_load_and_the_survivor_carries_on() {
    let database = tokio::task::spawn_blocking(TestDatabase::unmigrated_postgres).await.unwrap();
    let (mut doomed, survivor) = tokio::join!(Instance::start(database.url()), Instance::start(database.url()));

    // One first account between the two, printed by whichever created it.
    let key = tokio::select! {
        key = doomed.wait_for_printed_key() => key,
        key = survivor.wait_for_printed_key() => key,
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let printed = [doomed.printed_key(), survivor.printed_key()];
    assert_eq!(printed.iter().flatten().count(), 1, "both instances created a first account: {printed:?}");

    let cluster =
        Cluster { client: reqwest::Client::new(), key, instances: [doomed.address.clone(), survivor.address.clone()] };
    let receiver = Receiver::start(Vec::new());
    let webhook = format!("url={}&events[]=payment.paid", receiver.url);
    assert_eq!(cluster.post(1, "/webhooks", &webhook, "webhook").await.status, 200);

    // Half-way through the load, the first instance dies.
    let done = AtomicUsize::new(0);
    let charges = cluster.charges(Charging::RetryingCutOffs, &done);
    let kill = async {
        while done.load(Ordering::SeqCst) < CHARGES / 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        doomed.kill_now();
        Instant::now()
    };
    let (intents, killed_at) = tokio::join!(charges, kill);

    // Every charge succeeded, once.
    for id in &intents {
        assert_eq!(cluster.get(&format!("/payment_intents/{id}")).await["status"], "succeeded", "{id}");
    }
    let paid: BTreeSet<String> = cluster.paid_events().await.into_iter().collect();
    assert_eq!(paid.len(), CHARGES, "one payment.paid event per charge");

    // Every event reaches the receiver; the dead instance's deliveries in flight are sent again by
    // the survivor once their lease runs out, and nothing else is sent twice. Done when the
    // survivor's metrics (read from the database) show no delivery pending.
    cluster.until_delivered(&survivor.address, Duration::from_secs(30)).await;
    let mut received: HashMap<String, Vec<Instant>> = HashMap::new();
    for delivery in receiver.received() {
        let event: Value = serde_json::from_str(&delivery.body).unwrap();
        received.entry(event["id"].as_str().unwrap().to_owned()).or_default().push(delivery.at);
    }
    assert_eq!(received.keys().cloned().collect::<BTreeSet<_>>(), paid, "no event lost");
    for (event, arrivals) in &received {
        assert!(arrivals.len() == 1 || arrivals[0] < killed_at, "{event} was delivered twice: {arrivals:?}");
    }
}

on_both_backends_unstarted!(sigterm_under_load_fails_nothing_and_leaves_nothing_behind);

/// Leases long enough that a delivery left leased by the stopping instance would show; with a slow
/// receiver and few sends at once per endpoint, deliveries are both being sent and claimed ahead,
/// waiting their turn, when the signal comes.
const LONG_LEASE: [(&str, &str); 4] = [
    ("PAYMENTS__WEBHOOKS__LEASE_SECONDS", "60"),
    ("PAYMENTS__WEBHOOKS__TIMEOUT_SECONDS", "5"),
    ("PAYMENTS__WEBHOOKS__PER_ENDPOINT_CONCURRENCY", "4"),
    ("PAYMENTS__SERVER__SHUTDOWN_GRACE_SECONDS", "10"),
];
const SLOW_RECEIVER: Duration = Duration::from_millis(400);

async fn sigterm_under_load_fails_nothing_and_leaves_nothing_behind(backend: payments_adapters::db::Backend) {
    let database = tokio::task::spawn_blocking(move || TestDatabase::new(backend)).await.unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut stopping = Instance::start_with(database.url(), port, &LONG_LEASE).await;
    // PostgreSQL: a second instance beside it. SQLite (one process at a time on its file): the same
    // instance, started again once it has stopped.
    let postgres = backend == payments_adapters::db::Backend::Postgres;
    let other = if postgres {
        let other_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Some(Instance::start_with(database.url(), other_port, &LONG_LEASE).await)
    } else {
        None
    };
    let key = stopping.wait_for_printed_key().await;
    let other_address = other.as_ref().map_or(stopping.address.clone(), |other| other.address.clone());
    let cluster = Cluster { client: reqwest::Client::new(), key, instances: [stopping.address.clone(), other_address] };
    let receiver = Receiver::start(vec![crate::receiver::Reply::Slow(SLOW_RECEIVER); CHARGES]);
    let webhook = format!("url={}&events[]=payment.paid", receiver.url);
    assert_eq!(cluster.post(1, "/webhooks", &webhook, "webhook").await.status, 200);

    // A `payments listen` of the stopping instance: its stream ends, rather than holding the
    // instance up for the whole grace.
    let listening = cluster.client.get(format!("{}/events/stream", cluster.instances[0])).bearer_auth(&cluster.key);
    let listening = listening.send().await.unwrap();
    assert_eq!(listening.status(), 200);
    let stream_ended = tokio::spawn(async move {
        let _ = listening.bytes().await;
        Instant::now()
    });

    let done = AtomicUsize::new(0);
    let charges = cluster.charges(Charging::Smoothly, &done);
    let stop = async {
        while done.load(Ordering::SeqCst) < CHARGES / 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        stopping.terminate();
        let signalled = Instant::now();
        let stream_ended = tokio::time::timeout(Duration::from_secs(5), stream_ended).await;
        assert!(stream_ended.is_ok(), "the event stream ends when its instance stops");
        let exit = stopping.exited_within(Duration::from_secs(15)).await;
        assert!(exit.is_some_and(|status| status.success()), "the instance exits cleanly within the grace: {exit:?}");
        let stopped_in = signalled.elapsed();
        if !postgres {
            stopping = Instance::start_with(database.url(), port, &LONG_LEASE).await;
        }
        stopped_in
    };
    let (intents, stopped_in) = tokio::join!(charges, stop);
    assert!(stopped_in < Duration::from_secs(10), "stopped in {stopped_in:?}");

    for id in &intents {
        assert_eq!(cluster.get(&format!("/payment_intents/{id}")).await["status"], "succeeded", "{id}");
    }
    let paid: BTreeSet<String> = cluster.paid_events().await.into_iter().collect();
    assert_eq!(paid.len(), CHARGES, "one payment.paid event per charge");
    // Nothing was left leased by the stopped instance: with 60-second leases, everything arrives
    // within seconds, and once.
    let took = cluster.until_delivered(&cluster.instances[1], Duration::from_secs(30)).await;
    let mut received: HashMap<String, usize> = HashMap::new();
    for delivery in receiver.received() {
        let event: Value = serde_json::from_str(&delivery.body).unwrap();
        *received.entry(event["id"].as_str().unwrap().to_owned()).or_default() += 1;
    }
    assert_eq!(received.keys().cloned().collect::<BTreeSet<_>>(), paid, "no event lost (took {took:?})");
    let twice: Vec<_> = received.iter().filter(|(_, count)| **count > 1).collect();
    assert!(twice.is_empty(), "delivered more than once: {twice:?}");
    drop(other);
}
