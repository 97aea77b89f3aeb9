//! `/events`: list, retrieve, and follow as Server-Sent Events.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{Params, QueryParams};
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::event::{live_envelope, EventResource};
use crate::state::{blocking, Services};
use crate::stream_slots::StreamSlot;
use actix_web::http::header::{ContentType, CACHE_CONTROL};
use actix_web::http::Method;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use payments_application::pagination::PageRequest;
use payments_application::ports::{Appended, EventFilter};
use payments_application::services::event::STREAM_BEGINNING;
use payments_application::Scope;
use payments_domain::event::Event as DomainEvent;
use payments_domain::event::EventType;
use payments_domain::ids::EventId;
use payments_domain::limits::IDENTIFIER_LENGTH;
use russe::{Event, Message};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::{self, error::RecvError};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/events", list)
            .named("list_events", "List events, newest first")
            .query(list_request)
            .answers::<EventResource>()
            .list(),
        // Before `/events/{id}`, which would take `stream` for an id.
        Endpoint::get("/events/stream", stream)
            .named("stream_events", "Follow events as they happen (Server-Sent Events)")
            .answers::<EventResource>()
            .event_stream(),
        Endpoint::get("/events/{id}", retrieve).named("retrieve_event", "Retrieve an event").answers::<EventResource>(),
    ]
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (filter, page) = params.finish(request)?;
    let events = blocking(move || services.events.list(&scope, &filter, &page)).await?;
    let envelopes = events.data.iter().map(live_envelope).collect::<Result<Vec<_>, _>>();
    let envelopes = envelopes.map_err(|error| ApiError::internal(error.into()))?;
    Ok(ok(&List::from_items(envelopes, events.has_more)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let event = blocking(move || services.events.retrieve(&scope, &id)).await?;
    let envelope = live_envelope(&event).map_err(|error| ApiError::internal(error.into()))?;
    Ok(HttpResponse::Ok().content_type(ContentType::json()).body(envelope.get().to_owned()))
}

/// How long a stream stays quiet before a keep-alive comment; it also reads then, in case it was
/// told nothing (its listener was away).
const STREAM_KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The most events one read of the stream takes.
const STREAM_BATCH: u32 = 100;
/// How long a stream told of new events waits before it reads them.
const STREAM_GATHER: Duration = Duration::from_millis(100);
/// Told of events its read did not find yet (on PostgreSQL, a transaction older than theirs still
/// running holds them back, in any database of the server: the horizon is the server's), a stream
/// reads again after these waits, each twice the last, and then every [`OWED_MAX_WAIT`] until it
/// finds them or [`OWED_FOR_AT_MOST`] has passed. A stream that just opened is owed too: what was
/// appended before it may still be held back, and no signal will tell of it again.
const OWED_FIRST_WAIT: Duration = Duration::from_millis(20);
const OWED_MAX_WAIT: Duration = Duration::from_secs(1);
const OWED_FOR_AT_MOST: Duration = STREAM_KEEP_ALIVE;

/// `GET /events/stream`: the scope's events as they happen, as Server-Sent Events (`id`, `event`,
/// `data`), from after `Last-Event-ID` or from now, until the client goes away. Each event goes
/// out once per connection, in the order the store puts them on the stream. A key, and this
/// instance, may have only so many open ([`crate::stream_slots::StreamSlots`]).
async fn stream(
    SecretKey(scope): SecretKey,
    request: HttpRequest,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let head_only = request.method() == Method::HEAD;
    // A HEAD sends no body, so nothing would ever notice the client leave: no stream, and no slot.
    let slot = if head_only { None } else { Some(services.stream_slots.take(&scope)?) };
    // An empty header is no cursor (EventSource sends one before any event had an id); bytes that
    // are no text make an id no event has.
    let last_event_id = request
        .headers()
        .get("Last-Event-ID")
        .map(|value| String::from_utf8_lossy(value.as_bytes()).trim().to_owned())
        .filter(|id| !id.is_empty());
    let reader = services.clone();
    let start_scope = scope.clone();
    let after = blocking(move || reader.events.stream_start(&start_scope, last_event_id.as_deref())).await?;
    let mut answer = HttpResponse::Ok();
    answer
        .content_type(russe::MEDIA_TYPE_STR)
        .insert_header((CACHE_CONTROL, "no-store"))
        // Proxies such as nginx send each event on at once rather than buffering the answer.
        .insert_header(("X-Accel-Buffering", "no"));
    let Some(slot) = slot else {
        return Ok(answer.finish());
    };
    let head = started(after.as_ref());
    let reader = StreamReader::new(services.into_inner(), scope, after, slot);
    let events = futures_util::stream::unfold(reader, |mut reader| async move {
        let batch = reader.next_batch().await?;
        Some((Ok::<_, actix_web::Error>(batch), reader))
    });
    Ok(answer.streaming(futures_util::stream::once(async { Ok(head) }).chain(events)))
}

/// The stream's opening: the reconnection delay, and a `stream_start` message whose id is where
/// the stream starts (the last event before it, or `start`), so that a client that drops before
/// its first event resumes from there (`EventSource` keeps the id by itself).
fn started(after: Option<&EventId>) -> Bytes {
    let position = after.map_or(STREAM_BEGINNING, EventId::as_str);
    let message = Message {
        data: serde_json::json!({"resumes_after": after.map(EventId::as_str)}).to_string().into(),
        event: Some("stream_start".into()),
        retry: Some(Duration::from_secs(1)),
        id: Some(position.into()),
    };
    Bytes::from(Event::Message(message).into_bytestring().map(String::from).unwrap_or_default())
}

/// One client's place on its scope's event stream.
struct StreamReader {
    services: Arc<Services>,
    scope: Scope,
    after: Option<EventId>,
    appended: broadcast::Receiver<Appended>,
    quiet_since: Instant,
    /// Since when the stream was told of events its reads have not found yet, and how long it
    /// waits before it reads again.
    owed: Option<(Instant, Duration)>,
    _slot: StreamSlot,
}

impl StreamReader {
    /// A reader of `scope`'s events after `after`, from now on told what is appended.
    fn new(services: Arc<Services>, scope: Scope, after: Option<EventId>, slot: StreamSlot) -> Self {
        let appended = services.event_signal.subscribe();
        let owed = Some((Instant::now(), OWED_FIRST_WAIT));
        Self { services, scope, after, appended, quiet_since: Instant::now(), owed, _slot: slot }
    }

    /// The next events, encoded, once there are some (or a keep-alive comment after a quiet
    /// while); `None` ends the stream when storage fails or the instance stops, and the client
    /// resumes from its last id.
    async fn next_batch(&mut self) -> Option<Bytes> {
        loop {
            if self.services.stopping.has_begun() {
                return None;
            }
            let events = self.read().await?;
            if let Some(last) = events.last() {
                self.after = Some(last.id.clone());
                self.quiet_since = Instant::now();
                self.owed = None;
                return Some(encoded(&events));
            }
            if self.quiet_since.elapsed() >= STREAM_KEEP_ALIVE {
                self.quiet_since = Instant::now();
                return Event::Comment("keep-alive".into()).into_bytestring().ok().map(|text| text.into_bytes());
            }
            self.wait().await;
        }
    }

    async fn read(&self) -> Option<Vec<DomainEvent>> {
        let (services, scope, after) = (self.services.clone(), self.scope.clone(), self.after.clone());
        match blocking(move || services.events.stream(&scope, after.as_ref(), STREAM_BATCH)).await {
            Ok(events) => Some(events),
            Err(error) => {
                tracing::warn!(error = %error, "an event stream ended: its next read failed");
                None
            }
        }
    }

    /// Waits until the stream may have something to read: told of its scope's events, owed some it
    /// was told of, time for a keep-alive, or the instance stopping.
    async fn wait(&mut self) {
        let until_keep_alive = STREAM_KEEP_ALIVE.saturating_sub(self.quiet_since.elapsed());
        let owed_wait = match self.owed {
            Some((since, _)) if since.elapsed() >= OWED_FOR_AT_MOST => {
                self.owed = None;
                None
            }
            Some((since, wait)) => {
                self.owed = Some((since, (wait * 2).min(OWED_MAX_WAIT)));
                Some(wait)
            }
            None => None,
        };
        let timeout = owed_wait.map_or(until_keep_alive, |wait| wait.min(until_keep_alive));
        let (appended, scope, stopping) = (&mut self.appended, &self.scope, &self.services.stopping);
        let told = async {
            loop {
                match appended.recv().await {
                    Ok(signal) if signal.concerns(scope) => return true,
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => return true,
                    // The signal is gone: the keep-alive's read is all that is left.
                    Err(RecvError::Closed) => return std::future::pending().await,
                }
            }
        };
        let told = tokio::select! {
            told = told => told,
            () = tokio::time::sleep(timeout) => false,
            () = stopping.begun() => false,
        };
        if told {
            if self.owed.is_none() {
                self.owed = Some((Instant::now(), OWED_FIRST_WAIT));
            }
            // What else is appended meanwhile comes in the same read: a busy account's streams read
            // ten times a second at most, not once per commit. What it was told meanwhile is in
            // that read too.
            tokio::time::sleep(STREAM_GATHER).await;
            while self.appended.try_recv().is_ok() {}
        }
    }
}

/// Events as Server-Sent Events: the id, the type as the event's name, the envelope as its data.
fn encoded(events: &[DomainEvent]) -> Bytes {
    let mut text = String::new();
    for event in events {
        let message = Message {
            data: event.body.clone().into(),
            event: Some(event.event_type.as_str().into()),
            retry: None,
            id: Some(event.id.as_str().into()),
        };
        // Ids and type names hold no line breaks, the only thing the encoder refuses.
        if let Ok(encoded) = Event::Message(message).into_bytestring() {
            text.push_str(&encoded);
        }
    }
    Bytes::from(text)
}

/// A list request: the page and the filters.
pub(crate) fn list_request(params: &mut Params) -> Option<(EventFilter, PageRequest)> {
    let page = page_request(params);
    let filter = EventFilter {
        event_type: params.one_of("type", EventType::ALL, EventType::as_str),
        object_ids: params.string("object_id", IDENTIFIER_LENGTH).into_iter().collect(),
    };
    Some((filter, page?))
}
