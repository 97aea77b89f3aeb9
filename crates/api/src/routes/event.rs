//! `/events`: list and retrieve.

use super::{blocking, ok, page_request, resource, List};
use crate::auth::SecretKey;
use crate::decode::QueryParams;
use crate::error::ApiError;
use crate::startup::Services;
use actix_web::{web, HttpResponse};
use payments_domain::event::Event;
use serde::Serialize;
use serde_json::Value;

const RESOURCE: &str = "event";

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

/// An event as the API shows it.
#[derive(Serialize)]
pub(crate) struct EventResource<'a> {
    id: &'a str,
    resource: &'static str,
    #[serde(rename = "type")]
    event_type: &'a str,
    livemode: bool,
    pending_webhooks: i64,
    data: Value,
    previous_attributes: Value,
    created_at: i64,
    updated_at: i64,
}

impl<'a> EventResource<'a> {
    pub(crate) fn new(event: &'a Event) -> Self {
        Self {
            id: event.id.as_str(),
            resource: RESOURCE,
            event_type: &event.event_type,
            livemode: event.livemode,
            pending_webhooks: event.pending_webhooks,
            data: serde_json::from_str(&event.data).unwrap_or(Value::Null),
            previous_attributes: serde_json::from_str(&event.previous_attributes).unwrap_or(Value::Null),
            created_at: event.created_at.unix_seconds(),
            updated_at: event.updated_at.unix_seconds(),
        }
    }
}
