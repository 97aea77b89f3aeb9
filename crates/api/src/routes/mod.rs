//! HTTP routes, one file per resource, and what every handler shares.

mod customer;
mod event;
mod health;
mod payment;
mod payment_intent;
mod refund;
mod webhook;

pub(crate) use event::EventResource;
pub(crate) use payment::PaymentResource;
pub(crate) use payment_intent::PaymentIntentResource;
pub(crate) use refund::RefundResource;

use crate::error::ApiError;
use actix_web::{web, HttpRequest, HttpResponse, Resource};
use payments_application::pagination::{Page, PageRequest};
use payments_application::ApplicationError;
use payments_domain::limits::IDENTIFIER_LENGTH;
use serde::Serialize;

use crate::decode::Params;

/// Registers every route.
pub fn configure(config: &mut web::ServiceConfig) {
    health::configure(config);
    customer::configure(config);
    payment_intent::configure(config);
    payment::configure(config);
    refund::configure(config);
    event::configure(config);
    webhook::configure(config);
}

/// A resource whose unmatched methods answer like an unknown route.
pub(crate) fn resource(path: &str) -> Resource {
    web::resource(path).default_service(web::to(route_not_found))
}

/// 404 `route_not_found` for anything no route serves.
pub async fn route_not_found(request: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError::route_not_found(request.method().as_str(), request.path()))
}

/// Runs a use case on the blocking pool: storage is synchronous.
///
/// # Errors
/// The use case's error, or 500 when the blocking task died.
pub async fn blocking<T: Send + 'static>(
    use_case: impl FnOnce() -> Result<T, ApplicationError> + Send + 'static,
) -> Result<T, ApiError> {
    web::block(use_case).await.map_err(|error| ApiError::internal(error.into()))?.map_err(ApiError::from)
}

/// 200 with a JSON body.
pub(crate) fn ok<T: Serialize>(body: &T) -> HttpResponse {
    HttpResponse::Ok().json(body)
}

/// The contract's list envelope.
#[derive(Serialize)]
pub(crate) struct List<T> {
    resource: &'static str,
    data: Vec<T>,
    has_more: bool,
}

impl<T> List<T> {
    /// The envelope of a page, each item rendered by `render`.
    pub(crate) fn of<'a, S>(page: &'a Page<S>, render: impl FnMut(&'a S) -> T) -> Self {
        Self { resource: "list", data: page.data.iter().map(render).collect(), has_more: page.has_more }
    }
}

/// The contract's answer to a delete.
#[derive(Serialize)]
pub(crate) struct Deleted<'a> {
    id: &'a str,
    resource: &'static str,
    deleted: bool,
}

impl<'a> Deleted<'a> {
    pub(crate) fn new(id: &'a str, resource: &'static str) -> Self {
        Self { id, resource, deleted: true }
    }
}

/// Reads `limit`, `after` and `before` of a list request.
pub(crate) fn page_request(params: &mut Params) -> Option<PageRequest> {
    let limit = params.integer("limit");
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
