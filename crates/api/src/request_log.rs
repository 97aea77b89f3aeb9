//! The request log's capture. Each request made with an API key (and each action taken in the
//! developer console) is taken as it was answered into a bounded queue, never blocking the request:
//! when the queue is full the entry is dropped and counted. A background task drains the queue,
//! redacts each entry ([`crate::redact`]) and records what it drained at once.

use crate::decode::{body_format, read_body, BodyFormat};
use crate::idempotency::{IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, MAX_KEY_LENGTH};
use crate::redact::{path_as_kept, query_as_kept, request_body_as_kept, response_body_as_kept, scrubbed, shortened};
use crate::state::Services;
use actix_web::body::{to_bytes, BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use actix_web::HttpMessage;
use payments_application::ports::IdGenerator;
use payments_application::Caller;
use payments_domain::ids::RequestLogId;
use payments_domain::request_log::{RequestLog, RequestSource};
use payments_domain::time::Timestamp;
use std::time::Instant;
use tokio::sync::mpsc;

/// Requests waiting to be written, at most; beyond it new ones are dropped (and counted).
const QUEUE_CAPACITY: usize = 8_192;
/// Entries written together, at most.
const BATCH: usize = 512;
/// A body (or a query string) longer than this is kept as its start with a note.
const MAX_BODY_BYTES: usize = 32 * 1024;
/// The console's pages, whose actions are logged as the console's.
pub(crate) const CONSOLE_PREFIX: &str = "/dashboard";
/// Reading the log is not itself logged: `payments logs tail` would feed on its own requests.
const UNLOGGED_PREFIX: &str = "/request_logs";

/// The JSON a page's answer stands for in the request log (a console action's object or error, where
/// the browser gets a redirect or a page), set in the response's extensions.
#[derive(Debug, Clone)]
pub struct LoggedBody(pub String);

/// The sending side of the queue, registered as app data when the log is on.
#[derive(Clone)]
pub struct RequestLogQueue {
    sender: mpsc::Sender<Captured>,
}

/// The receiving side, drained by [`write_request_logs`].
pub struct RequestLogReceiver(mpsc::Receiver<Captured>);

/// A new queue.
#[must_use]
pub fn queue() -> (RequestLogQueue, RequestLogReceiver) {
    let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
    (RequestLogQueue { sender }, RequestLogReceiver(receiver))
}

/// A request as it was answered, not yet redacted.
struct Captured {
    caller: Caller,
    source: RequestSource,
    method: String,
    path: String,
    query: String,
    status: u16,
    duration_ms: i64,
    idempotency_key: Option<String>,
    replayed: bool,
    /// The body, and how the API reads it (`None`: a type it does not read).
    request_body: Option<(Bytes, Option<BodyFormat>)>,
    response_body: Option<Bytes>,
    created_at: Timestamp,
}

/// Captures each request made with a key, and each console action, once it is answered.
///
/// # Errors
/// What the wrapped service returns.
pub async fn capture(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let queue = request.app_data::<web::Data<RequestLogQueue>>().cloned();
    let console_action = request.path().starts_with(CONSOLE_PREFIX) && request.method() == Method::POST;
    // The operator's calls belong to no account's log (and an import may be large).
    let keyed = request.headers().contains_key(actix_web::http::header::AUTHORIZATION)
        && !request.path().starts_with(UNLOGGED_PREFIX)
        && !request.path().starts_with(crate::operator::PATH_PREFIX);
    let (Some(queue), true) = (queue, keyed || console_action) else {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    };
    let started = Instant::now();
    let created_at = request.app_data::<web::Data<Services>>().map(|services| services.clock.now());
    let request_body = if matches!(*request.method(), Method::POST | Method::PUT | Method::PATCH | Method::DELETE) {
        let mut payload = request.take_payload();
        match read_body(request.request(), &mut payload).await {
            Ok(body) => {
                request.set_payload(Payload::from(body.clone()));
                let format = body_format(request.request(), &body).ok();
                Some((body, format))
            }
            Err(error) => return Ok(request.error_response(error)),
        }
    } else {
        None
    };
    let method = request.method().as_str().chars().take(16).collect::<String>();
    let (path, query) = (request.path().to_owned(), request.query_string().to_owned());
    let idempotency_key = request.headers().get(IDEMPOTENCY_KEY).and_then(|key| key.to_str().ok()).map(str::to_owned);
    let response = next.call(request).await?.map_into_boxed_body();
    let Some(caller) = response.request().extensions().get::<Caller>().cloned() else {
        return Ok(response);
    };
    let replayed = response.headers().contains_key(IDEMPOTENT_REPLAYED);
    let status = response.status().as_u16();
    let logged = response.response().extensions().get::<LoggedBody>().map(|logged| Bytes::from(logged.0.clone()));
    let (response, response_body) = match logged {
        Some(logged) => (response, Some(logged)),
        None => keep_body(response).await,
    };
    let captured = Captured {
        caller,
        source: if console_action { RequestSource::Dashboard } else { RequestSource::Api },
        method,
        path,
        query,
        status,
        duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        idempotency_key,
        replayed,
        request_body: request_body.filter(|(body, _)| !body.is_empty()),
        response_body,
        created_at: created_at.unwrap_or_else(|| Timestamp::from_unix_seconds(0)),
    };
    if queue.sender.try_send(captured).is_err() {
        if let Some(services) = response.request().app_data::<web::Data<Services>>() {
            services.metrics.request_log_dropped(1);
        }
    }
    Ok(response)
}

/// The response with its JSON body read into memory (a stream, such as events sent as they happen,
/// and a page are passed on untouched and not kept).
async fn keep_body(response: ServiceResponse<BoxBody>) -> (ServiceResponse<BoxBody>, Option<Bytes>) {
    let json = response
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !json || !matches!(response.response().body().size(), BodySize::Sized(_)) {
        return (response, None);
    }
    let (request, response) = response.into_parts();
    let (head, body) = response.into_parts();
    match to_bytes(body).await {
        Ok(bytes) => {
            let kept = Some(bytes.clone()).filter(|bytes| !bytes.is_empty());
            (ServiceResponse::new(request, head.set_body(BoxBody::new(bytes))), kept)
        }
        Err(_) => (ServiceResponse::new(request, head.set_body(BoxBody::new(Bytes::new()))), None),
    }
}

/// Background job: writes what the queue holds, as much of it at once as is there, until every
/// sender is gone.
pub async fn write_request_logs(RequestLogReceiver(mut receiver): RequestLogReceiver, services: Services) {
    let mut drained = Vec::with_capacity(BATCH);
    while receiver.recv_many(&mut drained, BATCH).await > 0 {
        let batch = std::mem::take(&mut drained);
        let count = batch.len();
        let writer = services.clone();
        let written = tokio::task::spawn_blocking(move || {
            let entries: Vec<RequestLog> =
                batch.into_iter().map(|captured| redacted(captured, writer.ids.as_ref())).collect();
            writer.request_logs.record(&entries)
        })
        .await;
        match written {
            Ok(Ok(())) => services.metrics.request_log_written(count),
            Ok(Err(error)) => {
                services.metrics.request_log_dropped(count);
                tracing::warn!(%error, count, "could not write to the request log");
            }
            Err(error) => {
                services.metrics.request_log_dropped(count);
                tracing::warn!(%error, "the request log writer failed");
            }
        }
    }
}

/// The entry of a captured request, with nothing in it that must not be kept.
fn redacted(captured: Captured, ids: &dyn IdGenerator) -> RequestLog {
    let request_body = captured.request_body.map(|(body, format)| within_bounds(request_body_as_kept(&body, format)));
    let response_body = captured.response_body.map(|body| within_bounds(response_body_as_kept(&body)));
    let path = path_as_kept(&captured.path);
    let object_id =
        object_in_path(&path).map(str::to_owned).or_else(|| response_body.as_deref().and_then(answered_object));
    RequestLog {
        id: RequestLogId::from_random(&ids.id_part()),
        account_id: captured.caller.scope.account_id,
        livemode: captured.caller.scope.mode.is_live(),
        source: captured.source,
        key_kind: captured.caller.key_kind,
        method: captured.method,
        object_id,
        path,
        query: cut(&query_as_kept(&captured.query)),
        status: captured.status,
        duration_ms: captured.duration_ms,
        // Cleaned before it is cut: a key is 255 characters at most, but a GET's is not checked.
        idempotency_key: captured.idempotency_key.map(|key| shortened(&scrubbed(&key), MAX_KEY_LENGTH)),
        replayed: captured.replayed,
        request_body,
        response_body,
        created_at: captured.created_at,
    }
}

/// A body as it is kept (redacted JSON), or, past [`MAX_BODY_BYTES`], its start as a string with a
/// note of where it was cut.
fn within_bounds(kept: String) -> String {
    if kept.len() <= MAX_BODY_BYTES {
        return kept;
    }
    serde_json::Value::String(cut(&kept)).to_string()
}

/// A text past [`MAX_BODY_BYTES`] as its start, with a note of where it was cut.
fn cut(text: &str) -> String {
    if text.len() <= MAX_BODY_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_BODY_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [cut at {end} of {} bytes]", &text[..end], text.len())
}

/// The last segment of `path` that is an object's id (`/customers/cus_1/payment_methods/pm_2` is
/// about `pm_2`).
fn object_in_path(path: &str) -> Option<&str> {
    path.split('/').rev().find(|segment| payments_domain::ids::is_object_id(segment))
}

/// The id of the object a JSON answer is (a list or an error has none).
fn answered_object(body: &str) -> Option<String> {
    let answer: serde_json::Value = serde_json::from_str(body).ok()?;
    answer.get("id")?.as_str().filter(|id| payments_domain::ids::is_object_id(id)).map(str::to_owned)
}
