//! `/events`: list and retrieve.

use super::support::{ok, page_request, resource};
use crate::auth::SecretKey;
use crate::decode::QueryParams;
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::event::stored_envelope;
use crate::state::{blocking, Services};
use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/events").route(web::get().to(list)))
        .service(resource("/events/{id}").route(web::get().to(retrieve)));
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let page = page_request(&mut params);
    let page = params.finish(page)?;
    let events = blocking(move || services.events.list(&scope, &page)).await?;
    let envelopes = events.data.iter().map(stored_envelope).collect::<Result<Vec<_>, _>>();
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
    // The envelope as stored when the event happened: the same bytes every webhook received.
    Ok(HttpResponse::Ok().content_type(ContentType::json()).body(event.body))
}
