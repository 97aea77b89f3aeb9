//! CORS for the operations a public key may call, so a merchant's own web page can retrieve and
//! attach to an intent, and read a customer session, from the customer's browser (actix-cors).
//!
//! Only the paths of those operations answer preflights, for the methods a public key may use
//! there, from any origin, without credentials (the key travels in `Authorization`). A response
//! to a request made with a secret key never carries CORS headers: a browser keeps the page from
//! reading it, so a secret key in a web page is of no use to it. A preflight that is refused (a
//! method a public key may not use there) is a 400 in the API's error shape.

use crate::error::ApiError;
use actix_cors::{Cors, CorsError};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::HttpMessage;
use payments_application::Caller;
use payments_domain::account::KeyKind;

/// How long a browser may remember a preflight's answer, in seconds.
const PREFLIGHT_MAX_AGE: usize = 600;

/// What a page may send: the key, a form or JSON body, and an idempotency key.
const ALLOWED_HEADERS: [HeaderName; 3] =
    [header::AUTHORIZATION, header::CONTENT_TYPE, HeaderName::from_static("idempotency-key")];

/// What a page may read besides the simple headers: the rate limits and the request id.
const EXPOSED_HEADERS: [&str; 6] =
    ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after", "x-request-id", "idempotent-replayed"];

/// The CORS rules of a path whose public-key operations use `methods`.
pub(crate) fn for_public_key_methods(methods: &[Method]) -> Cors {
    Cors::default()
        .allow_any_origin()
        .send_wildcard()
        .allowed_methods(methods.iter().cloned())
        .allowed_headers(ALLOWED_HEADERS)
        .expose_headers(EXPOSED_HEADERS)
        .max_age(PREFLIGHT_MAX_AGE)
}

/// Wrapped around [`for_public_key_methods`]: takes the CORS headers off an answer to a secret key,
/// and gives a refused preflight the API's error shape.
///
/// # Errors
/// What the wrapped service returns.
pub(crate) async fn public_keys_only(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let mut response = next.call(request).await?.map_into_boxed_body();
    let refused = response.response().error().and_then(|error| error.as_error::<CorsError>()).map(ToString::to_string);
    if let Some(reason) = refused {
        let (request, _) = response.into_parts();
        let error = ApiError::cross_origin_refused(&reason);
        return Ok(ServiceResponse::new(request, actix_web::ResponseError::error_response(&error)));
    }
    let secret_key =
        response.request().extensions().get::<Caller>().is_some_and(|caller| caller.key_kind == KeyKind::Secret);
    if secret_key {
        let headers = response.headers_mut();
        headers.remove(header::ACCESS_CONTROL_ALLOW_ORIGIN);
        headers.remove(header::ACCESS_CONTROL_EXPOSE_HEADERS);
    }
    Ok(response)
}
