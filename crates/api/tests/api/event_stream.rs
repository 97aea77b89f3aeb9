//! `GET /events/stream`: an account's events as Server-Sent Events, from now or resumed after
//! `Last-Event-ID`, each once and in order, and nothing of another account or mode.

use crate::helpers::{read, single_error, TestApp};
use crate::instance::form_pairs;
use crate::scale_out::CARD;
use crate::webhooks::pay;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use russe::reqwest_0_12::ReqwestExt;
use serde_json::Value;
use std::time::Duration;

on_both_backends!(
    a_stream_sends_the_events_made_after_it_opened_in_order,
    a_stream_resumes_after_the_last_event_id,
    a_stream_shows_nothing_of_another_account_or_mode,
);
on_one_backend!(a_stream_refuses_what_it_cannot_follow);
on_both_backends_with!(
    |settings| {
        settings.event_streams.max_per_key = 2;
        settings.event_streams.max_per_instance = 3;
    } =>
    streams_are_capped_per_key_and_per_instance,
);
on_postgres!(
    a_stream_hears_at_once_what_another_instance_appends,
    a_stream_that_opens_while_a_transaction_holds_events_back_sends_them_when_it_ends,
);

/// One event as the stream sent it: its `id` and `event` fields and its data.
#[derive(Debug)]
struct Streamed {
    id: String,
    event: String,
    data: Value,
}

/// An open stream, and the position its `stream_start` message named.
struct Stream(BoxStream<'static, Result<russe::Event, russe::Error>>, Option<String>);

impl Stream {
    async fn open(app: &TestApp, key: &str, last_event_id: Option<&str>) -> Self {
        let mut request = app.client.get(format!("{}/events/stream", app.address)).basic_auth(key, Some(""));
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        assert_eq!(response.headers()["cache-control"], "no-store");
        let mut stream = Self(response.sse_stream(), None);
        let next = tokio::time::timeout(Duration::from_secs(10), stream.0.next()).await.unwrap().unwrap().unwrap();
        let russe::Event::Message(start) = next else { panic!("the stream opens with stream_start: {next:?}") };
        assert_eq!((start.event.as_deref(), start.retry), (Some("stream_start"), Some(Duration::from_secs(1))));
        let data: Value = serde_json::from_str(&start.data).unwrap();
        let position = start.id.unwrap().to_string();
        assert_eq!(data["resumes_after"].as_str().unwrap_or("start"), position);
        stream.1 = Some(position);
        stream
    }

    /// The next `count` events, or a panic after ten seconds.
    async fn next(&mut self, count: usize) -> Vec<Streamed> {
        let mut events = Vec::new();
        while events.len() < count {
            let next = tokio::time::timeout(Duration::from_secs(10), self.0.next()).await;
            let next = next.unwrap_or_else(|_| panic!("only {} of {count} events came: {events:?}", events.len()));
            if let russe::Event::Message(message) = next.unwrap().unwrap() {
                events.push(Streamed {
                    id: message.id.unwrap().to_string(),
                    event: message.event.unwrap().to_string(),
                    data: serde_json::from_str(&message.data).unwrap(),
                });
            }
        }
        events
    }

    /// Asserts that nothing more comes within a second.
    async fn stays_quiet(&mut self) {
        loop {
            match tokio::time::timeout(Duration::from_secs(1), self.0.next()).await {
                Err(_) => return,
                Ok(Some(Ok(russe::Event::Message(message)))) => panic!("an unexpected event: {message:?}"),
                Ok(_) => {}
            }
        }
    }
}

async fn a_stream_sends_the_events_made_after_it_opened_in_order(app: TestApp) {
    let empty = Stream::open(&app, &app.keys.secret_test, None).await;
    assert_eq!(empty.1.as_deref(), Some("start"), "before the account's first event");
    let before = pay(&app).await;
    // From the last event so far, named: on PostgreSQL a stream opened without one may start a
    // little earlier while another test's transaction holds the stream back.
    let (_, newest) = read(app.get("/events?limit=1").await).await;
    let mut stream = Stream::open(&app, &app.keys.secret_test, newest["data"][0]["id"].as_str()).await;
    let first = pay(&app).await;
    let second = pay(&app).await;
    let events = stream.next(4).await;
    let seen: Vec<(&str, &str)> =
        events.iter().map(|e| (e.event.as_str(), e.data["data"]["id"].as_str().unwrap_or_default())).collect();
    assert_eq!(seen[0], ("payment_intent.succeeded", first.as_str()), "not {before}, made before: {events:?}");
    assert_eq!(seen[2], ("payment_intent.succeeded", second.as_str()));
    assert_eq!((seen[1].0, seen[3].0), ("payment.paid", "payment.paid"));
    for event in &events {
        assert_eq!(
            (event.data["id"].as_str().unwrap(), event.data["type"].as_str().unwrap()),
            (&*event.id, &*event.event)
        );
        let (status, stored) = read(app.get(&format!("/events/{}", event.id)).await).await;
        assert_eq!(status, 200);
        assert_eq!(stored["data"], event.data["data"], "the envelope as written");
    }
    stream.stays_quiet().await;
}

async fn a_stream_resumes_after_the_last_event_id(app: TestApp) {
    pay(&app).await;
    pay(&app).await;
    let types = app.event_types().await;
    assert_eq!(types.len(), 4);
    let (_, listed) = read(app.get("/events?limit=4").await).await;
    let oldest_first: Vec<String> =
        listed["data"].as_array().unwrap().iter().rev().map(|e| e["id"].as_str().unwrap().to_owned()).collect();
    let mut stream = Stream::open(&app, &app.keys.secret_test, Some(&oldest_first[1])).await;
    let resumed: Vec<String> = stream.next(2).await.into_iter().map(|e| e.id).collect();
    assert_eq!(resumed, oldest_first[2..], "the two after the one named, oldest first");
    // What happens next follows on the same connection.
    pay(&app).await;
    assert_eq!(stream.next(2).await.len(), 2);
    stream.stays_quiet().await;
    // `start` is before the first event: everything again, oldest first.
    let mut replay = Stream::open(&app, &app.keys.secret_test, Some("start")).await;
    let replayed: Vec<String> = replay.next(6).await.into_iter().map(|e| e.id).collect();
    assert_eq!(replayed[..4], oldest_first[..]);
}

/// On PostgreSQL an event goes on the stream once every transaction older than its own has ended,
/// in any database of the server (the horizon is the server's, so another test's or another
/// application's transaction holds it too). A stream that opens meanwhile reads again until the
/// events come, rather than waiting for a signal that was sent before it opened.
async fn a_stream_that_opens_while_a_transaction_holds_events_back_sends_them_when_it_ends(app: TestApp) {
    pay(&app).await;
    let held = app.database.lock_rows("SELECT txid_current()");
    pay(&app).await;
    let (_, listed) = read(app.get("/events?limit=4").await).await;
    let oldest_first: Vec<String> =
        listed["data"].as_array().unwrap().iter().rev().map(|e| e["id"].as_str().unwrap().to_owned()).collect();
    let mut stream = Stream::open(&app, &app.keys.secret_test, Some(&oldest_first[1])).await;
    let release = tokio::task::spawn_blocking(move || {
        std::thread::sleep(Duration::from_secs(2));
        drop(held);
    });
    let resumed: Vec<String> = stream.next(2).await.into_iter().map(|e| e.id).collect();
    assert_eq!(resumed, oldest_first[2..], "the held-back two, once the transaction ended");
    release.await.unwrap();
}

async fn a_stream_shows_nothing_of_another_account_or_mode(app: TestApp) {
    let mut mine = Stream::open(&app, &app.keys.secret_test, None).await;
    let mut live = Stream::open(&app, &app.keys.secret_live, None).await;
    let mut other = Stream::open(&app, &app.other_account_key, None).await;
    let paid = pay(&app).await;
    let events = mine.next(2).await;
    assert_eq!(events[0].data["data"]["id"], paid.as_str());
    live.stays_quiet().await;
    other.stays_quiet().await;
    // Another account's event is no place to resume from.
    let response = app
        .request(reqwest::Method::GET, "/events/stream", &app.other_account_key)
        .header("Last-Event-ID", &events[0].id)
        .send()
        .await
        .unwrap();
    let (status, body) = read(response).await;
    assert_eq!(status, 400, "{body}");
    assert!(single_error(&body, "resource_not_found").contains(&events[0].id), "{body}");
    assert_eq!(body["errors"][0]["parameter"], "Last-Event-ID");
}

async fn a_stream_refuses_what_it_cannot_follow(app: TestApp) {
    for (key, last_event_id, query, expected) in [
        (&app.keys.public_test, None, "", 401),
        (&app.keys.secret_test, Some("evt_nothing"), "", 400),
        (&app.keys.secret_test, Some("not an id"), "", 400),
        (&app.keys.secret_test, None, "?limit=3", 400),
    ] {
        let mut request = app.request(reqwest::Method::GET, &format!("/events/stream{query}"), key);
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let (status, body) = read(request.send().await.unwrap()).await;
        assert_eq!(status, expected, "{last_event_id:?} {query}: {body}");
        assert!(body["errors"][0]["detail"].is_string(), "{body}");
    }
    let no_key = app.client.get(format!("{}/events/stream", app.address)).send().await.unwrap();
    assert_eq!(no_key.status(), 401);
    // HEAD answers the headers and ends: no stream is left running without a reader.
    let head = app.request(reqwest::Method::HEAD, "/events/stream", &app.keys.secret_test).send();
    let head = tokio::time::timeout(Duration::from_secs(5), head).await.expect("HEAD ends").unwrap();
    assert_eq!((head.status().as_u16(), head.headers()["content-type"].to_str().unwrap()), (200, "text/event-stream"));
    assert!(tokio::time::timeout(Duration::from_secs(5), head.bytes()).await.expect("no body").unwrap().is_empty());
}

/// The longest an idle stream waits before it reads anyway (its keep-alive): an event that arrives
/// well within it was heard, not found by looking.
const HEARD_WITHIN: Duration = Duration::from_secs(5);

async fn streams_are_capped_per_key_and_per_instance(app: TestApp) {
    let first = Stream::open(&app, &app.keys.secret_test, None).await;
    let _second = Stream::open(&app, &app.keys.secret_test, None).await;
    let refused = app.request(reqwest::Method::GET, "/events/stream", &app.keys.secret_test).send().await.unwrap();
    assert_eq!(refused.headers()["retry-after"], "10");
    let (status, body) = read(refused).await;
    assert_eq!(status, 429, "{body}");
    assert!(single_error(&body, "rate_limit_exceeded").contains("This key has 2 event streams open"), "{body}");
    // The key's HEAD opens no stream, so it is not refused.
    let head = app.request(reqwest::Method::HEAD, "/events/stream", &app.keys.secret_test).send().await.unwrap();
    assert_eq!(head.status(), 200);
    let _other = Stream::open(&app, &app.other_account_key, None).await;
    let (status, body) =
        read(app.request(reqwest::Method::GET, "/events/stream", &app.keys.secret_live).send().await.unwrap()).await;
    assert_eq!(status, 429, "{body}");
    assert!(single_error(&body, "rate_limit_exceeded").contains("This instance has 3"), "{body}");
    // A stream closed by its client gives its place back.
    drop(first);
    let deadline = std::time::Instant::now() + HEARD_WITHIN;
    loop {
        let response = app.request(reqwest::Method::GET, "/events/stream", &app.keys.secret_test).send().await.unwrap();
        if response.status() == 200 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the closed stream's place was not given back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// PostgreSQL tells every instance what any of them appended: a stream on this one hears a payment
/// made through another process on the same database at once.
async fn a_stream_hears_at_once_what_another_instance_appends(app: TestApp) {
    let other = crate::instance::Instance::start(app.database.url()).await;
    let (_, newest) = read(app.get("/events?limit=1").await).await;
    let mut stream = Stream::open(&app, &app.keys.secret_test, newest["data"][0]["id"].as_str()).await;
    for _ in 0..2 {
        let paid_at = std::time::Instant::now();
        let intent = other_instance_charge(&other.address, &app.keys.secret_test).await;
        let events = tokio::time::timeout(HEARD_WITHIN, stream.next(2)).await.expect("heard within the keep-alive");
        assert_eq!(events[0].data["data"]["id"], intent.as_str());
        assert!(paid_at.elapsed() < HEARD_WITHIN);
    }
    stream.stays_quiet().await;
}

/// A card payment made through the service at `address`: the intent's id.
async fn other_instance_charge(address: &str, key: &str) -> String {
    let client = reqwest::Client::new();
    let post = |path: String, body: &str| {
        client.post(format!("{address}{path}")).basic_auth(key, Some("")).form(&form_pairs(body)).send()
    };
    let created = post("/payment_intents".into(), "amount=10000&currency=PHP&payment_methods[]=card").await;
    let created: Value = created.unwrap().json().await.unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let paid: Value = post(format!("/payment_intents/{id}/attach"), CARD).await.unwrap().json().await.unwrap();
    assert_eq!(paid["status"], "succeeded", "{paid}");
    id
}
