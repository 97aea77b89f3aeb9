//! `/events`: list, retrieve, and follow as Server-Sent Events.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{Params, QueryParams};
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::event::{live_envelope, EventResource};
use crate::state::{blocking, Services};
use actix_web::http::header::{ContentType, CACHE_CONTROL};
use actix_web::http::Method;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use payments_application::pagination::PageRequest;
use payments_application::ports::EventFilter;
use payments_application::services::event::STREAM_BEGINNING;
use payments_application::Scope;
use payments_domain::event::EventType;
use payments_domain::ids::EventId;
use payments_domain::limits::IDENTIFIER_LENGTH;
use russe::{Event, Message};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// How often a stream looks for new events, and how long it stays quiet before a keep-alive comment.
const STREAM_POLL: Duration = Duration::from_millis(250);
const STREAM_KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The most events one read of the stream takes.
const STREAM_BATCH: u32 = 100;

/// `GET /events/stream`: the scope's events as they happen, as Server-Sent Events (`id`, `event`,
/// `data`), from after `Last-Event-ID` or from now, until the client goes away. Each event goes
/// out once per connection, in the order the store puts them on the stream.
async fn stream(
    SecretKey(scope): SecretKey,
    request: HttpRequest,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
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
    if request.method() == Method::HEAD {
        // No body goes out, so nothing would ever notice the client leave: no stream at all.
        return Ok(answer.finish());
    }
    let head = started(after.as_ref());
    let reader = StreamReader { services: services.into_inner(), scope, after, quiet_since: Instant::now() };
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
    quiet_since: Instant,
}

impl StreamReader {
    /// The next events, encoded, once there are some (or a keep-alive comment after a quiet
    /// while); `None` ends the stream when storage fails, and the client resumes from its last id.
    async fn next_batch(&mut self) -> Option<Bytes> {
        loop {
            if self.services.stopping.has_begun() {
                // The client reconnects (to another instance) and resumes from its last id.
                return None;
            }
            let (services, scope, after) = (self.services.clone(), self.scope.clone(), self.after.clone());
            let read = blocking(move || services.events.stream(&scope, after.as_ref(), STREAM_BATCH)).await;
            let events = match read {
                Ok(events) => events,
                Err(error) => {
                    tracing::warn!(error = %error, "an event stream ended: its next read failed");
                    return None;
                }
            };
            if let Some(last) = events.last() {
                self.after = Some(last.id.clone());
                self.quiet_since = Instant::now();
                return Some(encoded(&events));
            }
            if self.quiet_since.elapsed() >= STREAM_KEEP_ALIVE {
                self.quiet_since = Instant::now();
                return Event::Comment("keep-alive".into()).into_bytestring().ok().map(|text| text.into_bytes());
            }
            tokio::select! {
                () = tokio::time::sleep(STREAM_POLL) => {}
                () = self.services.stopping.begun() => {}
            }
        }
    }
}

/// Events as Server-Sent Events: the id, the type as the event's name, the envelope as its data.
fn encoded(events: &[payments_domain::event::Event]) -> Bytes {
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
        object_id: params.string("object_id", IDENTIFIER_LENGTH),
    };
    Some((filter, page?))
}
