//! `/webhooks`: create, list, retrieve, update, delete, enable, disable; and for the merchant's
//! troubleshooting, `GET /webhooks/:id/attempts` and `POST /webhooks/:id/resend`.

use super::support::{ok, page_request, resource};
use crate::auth::SecretKey;
use crate::decode::{BodyParams, Params, QueryParams};
use crate::error::ApiError;
use crate::representation::envelope::{Deleted, List};
use crate::representation::webhook::{AttemptResource, WebhookResource, RESOURCE};
use crate::state::{blocking, Services};
use actix_web::{web, HttpResponse};
use payments_application::ports::WebhookFilter;
use payments_application::services::WebhookService;
use payments_application::{ApplicationError, Scope};
use payments_domain::description::Description;
use payments_domain::event::EventType;
use payments_domain::limits::{CHOICES, CHOICE_LENGTH, IDENTIFIER_LENGTH, URL_LENGTH};
use payments_domain::webhook::{NewWebhook, Webhook, WebhookChanges, WebhookUrl};

pub(super) fn configure(config: &mut web::ServiceConfig) {
    config
        .service(resource("/webhooks").route(web::post().to(create)).route(web::get().to(list)))
        .service(
            resource("/webhooks/{id}")
                .route(web::get().to(retrieve))
                .route(web::put().to(update))
                .route(web::delete().to(delete)),
        )
        .service(resource("/webhooks/{id}/enable").route(web::post().to(enable)))
        .service(resource("/webhooks/{id}/disable").route(web::post().to(disable)))
        .service(resource("/webhooks/{id}/attempts").route(web::get().to(attempts)))
        .service(resource("/webhooks/{id}/resend").route(web::post().to(resend)));
}

async fn create(
    SecretKey(scope): SecretKey,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let url = url(&mut params);
    let url = params.require("url", url);
    let events = events(&mut params);
    let events = params.require("events", events);
    let description = params.description("description");
    let new = params.finish(url.zip(events).map(|(url, events)| NewWebhook { url, events, description }))?;
    let webhook = blocking(move || services.webhooks.create(&scope, new)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn list(
    SecretKey(scope): SecretKey,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let page = page_request(&mut params);
    let filter = WebhookFilter {
        url: params.string("url", URL_LENGTH),
        description: params.string("description", Description::MAX_LENGTH),
    };
    let page = params.finish(page)?;
    let webhooks = blocking(move || services.webhooks.list(&scope, &filter, &page)).await?;
    Ok(ok(&List::of(&webhooks, WebhookResource::new)))
}

async fn retrieve(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let webhook = blocking(move || services.webhooks.retrieve(&scope, &id)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn update(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let url = url(&mut params);
    let events = events(&mut params);
    let description = params.description("description");
    let changes = params.finish(Some(WebhookChanges { url, events, description }))?;
    let webhook = blocking(move || services.webhooks.update(&scope, &id, changes)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn delete(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let webhook = blocking(move || services.webhooks.delete(&scope, &id)).await?;
    Ok(ok(&Deleted::new(webhook.id().as_str(), RESOURCE)))
}

async fn enable(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    switch(scope, id.into_inner(), params, services, WebhookService::enable).await
}

async fn disable(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    switch(scope, id.into_inner(), params, services, WebhookService::disable).await
}

/// Enables or disables a webhook (`change` is the service method); such a request takes no
/// parameters.
async fn switch(
    scope: Scope,
    id: String,
    params: Params,
    services: web::Data<Services>,
    change: fn(&WebhookService, &Scope, &str) -> Result<Webhook, ApplicationError>,
) -> Result<HttpResponse, ApiError> {
    params.finish(Some(()))?;
    let webhook = blocking(move || change(&services.webhooks, &scope, &id)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

async fn attempts(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    QueryParams(mut params): QueryParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let limit = params.integer("limit");
    params.finish(Some(()))?;
    let limit = u32::try_from(limit.unwrap_or(20).clamp(1, 100)).unwrap_or(20);
    let attempts = blocking(move || services.webhooks.attempts(&scope, &id, limit)).await?;
    let data: Vec<AttemptResource<'_>> = attempts.iter().map(AttemptResource::new).collect();
    Ok(ok(&serde_json::json!({"resource": "list", "data": data, "has_more": false})))
}

async fn resend(
    SecretKey(scope): SecretKey,
    id: web::Path<String>,
    BodyParams(mut params): BodyParams,
    services: web::Data<Services>,
) -> Result<HttpResponse, ApiError> {
    let event_id = params.required_string("event_id", IDENTIFIER_LENGTH);
    let event_id = params.finish(event_id)?;
    let webhook = blocking(move || services.webhooks.resend(&scope, &id, &event_id)).await?;
    Ok(ok(&WebhookResource::new(&webhook)))
}

fn url(params: &mut Params) -> Option<WebhookUrl> {
    let text = params.string("url", URL_LENGTH)?;
    params.check("url", WebhookUrl::new(text))
}

fn events(params: &mut Params) -> Option<Vec<EventType>> {
    let names = params.string_list("events", CHOICES, CHOICE_LENGTH)?;
    params.check("events", EventType::parse_list(&names))
}
