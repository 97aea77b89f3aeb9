//! `/events`: list and retrieve.

use super::endpoint::Endpoint;
use super::support::{ok, page_request};
use crate::auth::SecretKey;
use crate::decode::QueryParams;
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::event::{live_envelope, EventResource};
use crate::state::{blocking, Services};
use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};

pub(super) fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/events", list)
            .named("list_events", "List events, newest first")
            .query(page_request)
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
    let page = page_request(&mut params);
    let page = params.finish(page)?;
    let events = blocking(move || services.events.list(&scope, &page)).await?;
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
