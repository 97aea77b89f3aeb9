//! The `Idempotency-Key` middleware for POST, PUT and DELETE.
//!
//! Keys belong to the API key that sent them (account, mode and key kind), and the caller is
//! authenticated before anything is replayed. The first completed response of a key (a 2xx, or a
//! failure that changed state such as a recorded decline) is stored and replayed byte for byte, with
//! `Idempotent-Replayed: true`, to every retry within 24 hours. Any other failure stores nothing, so
//! its retry runs again: every use case is one transaction, so such a failure changed nothing.
//!
//! The record holds nothing card data can be recovered from. A key that may hold a card number is
//! kept with it reduced to its first six and last four digits and, for a secret API key's caller,
//! a keyed digest of the whole key ([`key_as_kept`]), so that keys that differ only in those middle
//! digits (timestamps, long order numbers) stay apart. The digest that tells a retry from another
//! request reads the request with its card data reduced the same way and its verification code
//! left out ([`fingerprint`]).

use crate::auth::{authenticate, presented_key};
use crate::decode::{body_format, read_body, BodyFormat};
use crate::error::{ApiError, Committed};
use crate::redact::{
    card_numbers_masked, path_as_fingerprinted, query_as_fingerprinted, request_body_as_fingerprinted,
};
use crate::state::{blocking, Services};
use actix_web::body::{to_bytes, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse, ResponseError};
use payments_application::services::IdempotentStart;
use payments_application::Caller;
use payments_domain::account::{hex, KeyKind};
use payments_domain::webhook_signature::hmac_sha256;
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// The request header that carries the key.
pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
/// The response header that marks a replay.
pub const IDEMPOTENT_REPLAYED: &str = "Idempotent-Replayed";
/// Longest accepted key (visible ASCII, so as many characters as bytes).
pub const MAX_KEY_LENGTH: usize = 255;

/// Applies idempotency to a mutating route's requests that carry the header (it wraps each such
/// route of the API, so it runs once the path and the method matched).
///
/// # Errors
/// What the wrapped service returns.
pub async fn idempotency(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let mutating = matches!(*request.method(), Method::POST | Method::PUT | Method::DELETE);
    let key = request.headers().get(IDEMPOTENCY_KEY).cloned();
    let (Some(key), true) = (key, mutating) else {
        return next.call(request).await.map(ServiceResponse::map_into_boxed_body);
    };
    let key = match key.to_str() {
        Ok(key) if !key.trim().is_empty() && key.len() <= MAX_KEY_LENGTH => key.to_owned(),
        _ => {
            let error = ApiError::bad_body("The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
            return Ok(request.error_response(error));
        }
    };
    let caller = match authenticate(request.request()).await {
        Ok(caller) => caller,
        Err(error) => return Ok(request.error_response(error)),
    };
    let secret_key = match caller.key_kind {
        KeyKind::Secret => presented_key(request.request()).ok(),
        KeyKind::Public => None,
    };
    let key = key_as_kept(&key, secret_key.as_deref());
    let mut payload = request.take_payload();
    let body = match read_body(request.request(), &mut payload).await {
        Ok(body) => body,
        Err(error) => return Ok(request.error_response(error)),
    };
    let format = body_format(request.request(), &body).ok();
    let fingerprint = fingerprint(request.method().as_str(), request.path(), request.query_string(), &body, format);
    request.set_payload(Payload::from(body));
    let Some(services) = request.app_data::<web::Data<Services>>().cloned() else {
        return Ok(request.error_response(ApiError::internal_message("the services are not registered")));
    };

    // From the claim of the key to the record of the response, the request runs in a task of its
    // own: a client that disconnects drops this future but not the task, so the key never stays
    // claimed by a request that was cut off, and a retry replays what happened instead of running
    // the use case a second time.
    let run = actix_web::rt::spawn(run_once(request, next, services, caller, key, fingerprint));
    run.await.unwrap_or_else(|error| {
        Err(ApiError::internal(format!("an idempotent request's task failed: {error}").into()).into())
    })
}

/// Claims the key, then replays its stored response or runs the request and stores its response.
async fn run_once<B: MessageBody + 'static>(
    request: ServiceRequest,
    next: Next<B>,
    services: web::Data<Services>,
    caller: Caller,
    key: String,
    fingerprint: String,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let (begin_services, begin_caller, begin_key) = (services.clone(), caller.clone(), key.clone());
    let start = blocking(move || begin_services.idempotency.begin(&begin_caller, &begin_key, &fingerprint)).await;
    match start {
        Err(error) => Ok(request.error_response(error)),
        Ok(IdempotentStart::Replay { status, body }) => {
            services.metrics.idempotent_replay();
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let response = HttpResponse::build(status)
                .content_type(header::ContentType::json())
                .insert_header((IDEMPOTENT_REPLAYED, "true"))
                .body(body);
            Ok(request.into_response(response))
        }
        Ok(IdempotentStart::Proceed) => {
            let outcome = next.call(request).await;
            let (outcome, stored) = keep_response(outcome).await;
            let finished = blocking(move || {
                let response = stored.as_ref().map(|(status, body)| (*status, body.as_slice()));
                services.idempotency.finish(&caller, &key, response)
            })
            .await;
            match finished {
                Ok(()) => {}
                // The database took no writes: the key stays claimed until it is abandoned.
                Err(error) if error.status() == StatusCode::SERVICE_UNAVAILABLE => {
                    tracing::warn!(%error, "could not record the idempotent response");
                }
                Err(error) => tracing::error!(%error, "could not record the idempotent response"),
            }
            outcome
        }
    }
}

/// The response, and what to store for retries: a success, or a failure that changed state (a
/// recorded decline). Other failures store nothing, so their retries run again.
async fn keep_response<B: MessageBody + 'static>(
    outcome: Result<ServiceResponse<B>, actix_web::Error>,
) -> (Result<ServiceResponse<BoxBody>, actix_web::Error>, Option<(u16, Vec<u8>)>) {
    match outcome {
        Ok(response) if response.status().is_success() || response.response().extensions().contains::<Committed>() => {
            let (request, response) = response.into_parts();
            let (head, body) = response.into_parts();
            match to_bytes(body).await {
                Ok(bytes) => {
                    let stored = Some((head.status().as_u16(), bytes.to_vec()));
                    (Ok(ServiceResponse::new(request, head.set_body(BoxBody::new(bytes)))), stored)
                }
                Err(_) => {
                    let error = ApiError::internal_message("the response body could not be read");
                    (Ok(ServiceResponse::new(request, ResponseError::error_response(&error))), None)
                }
            }
        }
        Ok(response) => (Ok(response.map_into_boxed_body()), None),
        Err(error) => (Err(error), None),
    }
}

/// The key as its record keeps it: as sent, or, when it may hold a card number, with each such
/// number reduced to its first six and last four digits and, for a caller with a secret API key,
/// `#` and the HMAC-SHA256 of the whole key under that API key (which the service stores only as a
/// digest, so the record's reader cannot key it). Keys that differ only in the middle digits then
/// stay apart for a secret key's caller; a retry must come with the same secret key, which a
/// retry does. A publishable key is no secret, so its caller's keys are kept masked only: two such
/// keys that differ only in the middle digits are one key (browsers make random keys).
fn key_as_kept(key: &str, secret_key: Option<&str>) -> String {
    match (card_numbers_masked(key), secret_key) {
        (Cow::Borrowed(_), _) => key.to_owned(),
        (Cow::Owned(masked), None) => masked,
        (Cow::Owned(masked), Some(secret_key)) => {
            let digest = hex(&hmac_sha256(secret_key, &[key.as_bytes()]));
            format!("{masked}#{}", &digest[..KEY_DIGEST_LENGTH])
        }
    }
}

/// Hex digits of the keyed digest a key that may hold a card number is kept with: 128 bits.
const KEY_DIGEST_LENGTH: usize = 32;

/// Digest of what makes two requests "the same": method, path, query and body, each read with its
/// card data reduced to what the service keeps of a card anyway (first six and last four digits,
/// expiry) and with no verification code. A retry with another card still differs (in those digits
/// or its expiry); one that differs only in the middle digits or the code is taken for the same
/// request, so the digest holds nothing of them to guess back.
#[must_use]
pub fn fingerprint(method: &str, path: &str, query: &str, body: &[u8], format: Option<BodyFormat>) -> String {
    let mut digest = Sha256::new();
    digest.update(method.as_bytes());
    digest.update(b"\n");
    digest.update(path_as_fingerprinted(path).as_bytes());
    digest.update(b"?");
    digest.update(query_as_fingerprinted(query).as_bytes());
    digest.update(b"\n");
    digest.update(request_body_as_fingerprinted(body, format).as_bytes());
    hex(&digest.finalize())
}
