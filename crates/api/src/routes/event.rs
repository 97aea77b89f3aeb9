//! `/events`: list and retrieve.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::{Params, QueryParams};
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::event::{live_envelope, EventResource};
use crate::state::{blocking, Services};
use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};
use payments_application::pagination::PageRequest;
use payments_application::ports::EventFilter;
use payments_domain::event::EventType;
use payments_domain::limits::IDENTIFIER_LENGTH;

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/events", list)
            .named("list_events", "List events, newest first")
            .query(list_request)
            .answers::<EventResource>()
            .list(),
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

/// A list request: the page and the filters.
pub(crate) fn list_request(params: &mut Params) -> Option<(EventFilter, PageRequest)> {
    let page = page_request(params);
    let filter = EventFilter {
        event_type: params.one_of("type", EventType::ALL, EventType::as_str),
        object_id: params.string("object_id", IDENTIFIER_LENGTH),
    };
    Some((filter, page?))
}
