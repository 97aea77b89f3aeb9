//! What every handler shares: registering a resource, answering 200 with JSON, reading a page
//! request, and the answer for routes that do not exist.

use crate::decode::Params;
use crate::error::ApiError;
use actix_web::{web, HttpRequest, HttpResponse, Resource};
use payments_application::pagination::PageRequest;
use payments_application::services::Access;
use payments_domain::account::KeyKind;
use payments_domain::limits::IDENTIFIER_LENGTH;
use serde::Serialize;

/// A resource whose unmatched methods answer like an unknown route.
pub(crate) fn resource(path: &str) -> Resource {
    web::resource(path).default_service(web::to(route_not_found))
}

/// 404 `route_not_found` for anything no route serves.
pub async fn route_not_found(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::route_not_found(request.method().as_str(), request.path()))
}

/// 200 with a JSON body.
pub(crate) fn ok<T: Serialize>(body: &T) -> HttpResponse {
    HttpResponse::Ok().json(body)
}

/// Reads `limit`, `after` and `before` of a list request.
pub(crate) fn page_request(params: &mut Params) -> Option<PageRequest> {
    let limit = params.integer_between("limit", Some(1), Some(i64::from(PageRequest::MAX_LIMIT)));
    let after = params.string("after", IDENTIFIER_LENGTH);
    let before = params.string("before", IDENTIFIER_LENGTH);
    match PageRequest::new(limit, after, before) {
        Ok(page) => Some(page),
        Err(errors) => {
            for error in errors {
                params.push(error);
            }
            None
        }
    }
}

/// The `client_secret` a public key sends to reach one object.
pub(crate) fn client_secret(params: &mut Params) -> Option<String> {
    params.string("client_secret", IDENTIFIER_LENGTH)
}

/// What a key may do: a secret key everything, a public key only with the object's client secret.
pub(crate) fn access(kind: KeyKind, client_secret: Option<&str>) -> Access<'_> {
    match kind {
        KeyKind::Secret => Access::SecretKey,
        KeyKind::Public => Access::ClientSecret(client_secret),
    }
}
