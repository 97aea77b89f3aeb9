//! `/events`: list and retrieve.

use super::support::{ok, page_request, resource};
use crate::auth::SecretKey;
use crate::decode::QueryParams;
use crate::error::ApiError;
use crate::representation::envelope::List;
use crate::representation::event::EventResource;
use crate::state::{blocking, Services};
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
    Ok(ok(&List::of(&events, EventResource::new)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let event = blocking(move || services.events.retrieve(&scope, &id)).await?;
    Ok(ok(&EventResource::new(&event)))
}
