//! `/request_logs`: the account's request log, listed and retrieved (secret key only). Reading the
//! log is not itself logged.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{Params, QueryParams};
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::request_log::RequestLogResource;
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_application::ports::RequestLogFilter;
use payments_domain::limits::IDENTIFIER_LENGTH;
use payments_domain::request_log::{RequestSource, StatusRange};
use payments_domain::validation::FieldError;

/// The methods a request may be filtered by.
const METHODS: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/// The longest path filter.
const PATH_LENGTH: usize = 500;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/request_logs", list)
            .named("list_request_logs", "List the account's logged requests, newest first")
            .query(list_request)
            .answers::<RequestLogResource>()
            .list(),
        Endpoint::get("/request_logs/{id}", retrieve)
            .named("retrieve_request_log", "Retrieve a logged request with its bodies")
            .answers::<RequestLogResource>(),
    ]
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let request = list_request(&mut params);
    let (filter, page) = params.finish(request)?;
    let entries = blocking(move || services.request_logs.list(&scope, &filter, &page)).await?;
    Ok(ok(&List::from_items(entries.data.iter().map(RequestLogResource::new).collect(), entries.has_more)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let entry = blocking(move || services.request_logs.retrieve(&scope, &id)).await?;
    Ok(ok(&RequestLogResource::new(&entry)))
}

/// A list request: the page and the filters.
pub(crate) fn list_request(params: &mut Params) -> Option<(RequestLogFilter, PageRequest)> {
    let page = page_request(params);
    let status = params.string("status", 3);
    params.pattern("status", "^[1-5]([0-9]{2}|[xX]{2})$");
    let status = status.and_then(|status| {
        let range = StatusRange::parse(&status);
        if range.is_none() {
            let detail = "The parameter status must be a class such as 4xx or a status such as 404.";
            params.push(FieldError::invalid("status", detail));
        }
        range
    });
    let method = params.choice("method", || METHODS.to_vec());
    let method = method.and_then(|method| {
        let known = METHODS.contains(&method.as_str());
        if !known {
            params.push(FieldError::invalid(
                "method",
                format!("The parameter method must be one of {}.", METHODS.join(", ")),
            ));
        }
        known.then_some(method)
    });
    let filter = RequestLogFilter {
        status,
        method,
        path_prefix: params.string("path", PATH_LENGTH),
        object_id: params.string("object_id", IDENTIFIER_LENGTH),
        source: params.one_of("source", RequestSource::ALL, RequestSource::as_str),
    };
    Some((filter, page?))
}
